"""What a job's processes answered to ``ulimit -l``: a launcher line that asks it (``srun -N2
bash -c 'ulimit -l'``, ``mpirun -np 2 sh -c "ulimit -l"``, ``docker run IMAGE bash -c 'ulimit
-l'``, ``kubectl exec POD -- sh -c 'ulimit -l'``), or that runs a script where the text's only
limit asked anywhere is ``ulimit -l`` (the script shown with ``cat``), then one answer per task:
``16384`` or ``unlimited``. This is the job's limit, not the login shell's: limits.conf raises a
PAM login's, while a launcher's tasks inherit slurmd's, the container runtime's or the
kubelet's (a systemd unit without LimitMEMLOCK=infinity). The smallest answer is the one read."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, RuntimeFact
from stackcheck.ingest.lines import Line
from stackcheck.parsers.units import limit_bytes

_LAUNCHER = re.compile(
    r"^(?:sudo\s)?(?:srun|mpirun|mpiexec|salloc|prun|pdsh|clush|ssh|"
    r"(?:docker|podman|nerdctl)\s(?:run|exec)|kubectl\sexec|enroot\sstart|"
    r"(?:singularity|apptainer)\s(?:exec|run))\b"
)
_ASKS = re.compile(r"\bulimit\s-l\b")
_OTHER = re.compile(r"\bulimit\s-(?!l\b)[a-zA-Z]")  # -a, -n, -s: another limit's answers
_SCRIPT = re.compile(r"[\w./-]{1,120}\.(?:sh|bash)\b")
_ANSWER = re.compile(r"^\s*(?:\[?\d{1,5}\]?:\s?)?(\d{1,12}|unlimited)\s*$")
_GAP = 2  # fences or blanks between the command and its first answer


def _answers(lines: Sequence[Line], index: int) -> list[tuple[Line, str]]:
    """The answer lines right after line ``index``, one per task."""
    found: list[tuple[Line, str]] = []
    gap = 0
    for line in lines[index + 1 : index + 1 + 1024]:
        if line.fence or line.blank:
            gap += 1
            if found or gap > _GAP:
                break
            continue
        answer = _ANSWER.match(line.text)
        if answer is None:
            break
        found.append((line, answer.group(1)))
    return found


def ulimit_answers(lines: Sequence[Line]) -> list[Fact]:
    """The locked-memory limit a launcher's tasks reported, where the text shows one."""
    # Most texts (a 5 MB NCCL log) never say ulimit: one substring test per line settles it.
    said = [line for line in lines if "ulimit" in line.text]
    if not any(_ASKS.search(line.text) for line in said):
        return []
    # A script is read as asking ``ulimit -l`` only where no other limit is asked in the text.
    scripts = not any(_OTHER.search(line.text) for line in said)
    least: tuple[Line, int] | None = None
    for index, line in enumerate(lines):
        if _LAUNCHER.match(line.text) is None:
            continue
        if not (_ASKS.search(line.text) or (scripts and _SCRIPT.search(line.text))):
            continue
        for answer, value in _answers(lines, index):
            limit = limit_bytes(value, "k")
            if limit is None:
                continue
            if least is None or (limit >= 0 and (least[1] < 0 or limit < least[1])):
                least = (answer, limit)
    return [] if least is None else [RuntimeFact(least[0], "memlock_bytes", least[1])]
