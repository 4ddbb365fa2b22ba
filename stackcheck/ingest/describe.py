"""What a text seemed to be when triage recognised nothing in it, and what triage looked for:
the one line ``stackcheck triage`` prints before exiting 2."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest import signatures
from stackcheck.ingest.formats import FORMATS
from stackcheck.ingest.lines import Line

# (what the text seems to be, the lines that say so); the first kind with enough lines wins.
_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "a Python traceback",
        re.compile(r"^\s*Traceback \(most recent call last\)|^\s*File \".{1,300}\", line \d"),
    ),
    (
        "a stack trace of another program",
        re.compile(
            r"^\s*at [\w$.]{1,200}\(.{0,200}\)\s*$|^goroutine \d{1,9} \[|^\s*#\d{1,3}\s+0x[0-9a-f]"
            r"|^\s*frame #\d{1,3}:"
        ),
    ),
    (
        "source code",
        re.compile(
            r"^\s*(?:def |class |import |from \S{1,80} import |#include|fn |func |"
            r"(?:public|private|static) )|[;{]\s*$"
        ),
    ),
    (
        "a log of another program",
        re.compile(r"^\s*\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\b(?:INFO|WARNING|ERROR|DEBUG)\b[\]:]"),
    ),
    ("a shell session", re.compile(r"^\s*\$ \S")),
)


def seems(lines: Sequence[Line]) -> str:
    """A short description of what the text seems to be."""
    content = [line for line in lines if not line.blank and not line.fence]
    if not content:
        return "empty"
    for kind, pattern in _KINDS:
        hits = sum(1 for line in content if pattern.search(line.raw))
        if hits >= max(2, len(content) // 5):
            return f"{kind} ({len(content)} lines)"
    return f"prose ({len(content)} lines)"


def looked_for() -> str:
    names = sorted({f.name.replace("_", " ") for f in FORMATS})
    known = len(signatures.catalogue())
    return (
        f"{len(names)} kinds of tool output ({', '.join(names)}) and {known} known error messages"
    )


def nothing_recognised(name: str, lines: Sequence[Line]) -> str:
    return (
        f"{name}: no tool output recognised; the text seems to be {seems(lines)}. Looked for "
        f"{looked_for()}. Paste the output itself, e.g. `python -m torch.utils.collect_env`, "
        "`nvidia-smi` or an NCCL_DEBUG=INFO log."
    )
