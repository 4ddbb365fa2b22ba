"""Launcher command lines (``mpirun``, ``torchrun``, ``srun``, ``deepspeed``): the environment they
pass to the ranks (``-x NAME=value``, ``--export=...``, leading ``NAME=value``).

Also whether the command selects only transports without RDMA: Open MPI's ``--mca pml ob1``
with a ``--mca btl`` list of shared-memory and TCP components (self, sm, vader, smcuda, tcp), or
UCX's ``UCX_TLS`` naming only shared-memory, CUDA-copy and TCP transports. RDMA errors such a
run prints come from device discovery (UCX opens every HCA at start), not from its transfers."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, ObservationFact
from stackcheck.ingest.formats.base import Format, continued, joined
from stackcheck.ingest.formats.docker_run import tokens
from stackcheck.ingest.formats.env_dump import env_facts
from stackcheck.ingest.formats.prose import settings
from stackcheck.ingest.lines import Line

_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w{0,100})=(.{0,4000})$")
# An nccl-tests binary the launcher runs (NVIDIA/nccl-tests src/*.cu, built as <name>_perf, or
# <name>_perf_mpi by some packagers): its settings are a measurement's, not a job's.
_NCCL_TESTS = re.compile(
    r"(?:^|/)((?:all_reduce|all_gather|alltoall|broadcast|reduce_scatter|reduce|sendrecv|gather|"
    r"scatter|hypercube)_perf)(?:_mpi)?$"
)
# What may precede the launcher on a command line: assignments, env/sudo/exec, a path, a prompt.
_COMMAND_PREFIX = re.compile(
    r"^(?:\s*(?:[A-Za-z_]\w{0,100}=\S{0,400}|env|sudo|exec|nohup|time|srun\s\S{0,200}|"
    r"[\w./~-]{0,200}/|\$|#))*\s*$"
)


def _sentence(line: Line, anchor: re.Pattern[str]) -> bool:
    """Whether the launcher is named inside a sentence ("we run torchrun with ...") rather
    than starting a command line."""
    found = anchor.search(line.text)
    if found is None:
        return False
    # The anchor's leading space or slash belongs to the prefix; a launcher at the line's
    # start has none.
    lead = found.group(0)[:1] if found.group(0)[:1] in (" ", "\t", "/") else ""
    return not _COMMAND_PREFIX.match(line.text[: found.start()] + lead)


# Open MPI BTL components and UCX transports that move data without RDMA (Open MPI 4-5
# `ompi_info`, UCX 1.x `ucx_info -d` transport names).
_BTL_LOCAL = frozenset({"self", "sm", "vader", "smcuda", "tcp"})
_UCX_LOCAL = frozenset(
    {"self", "sm", "shm", "posix", "sysv", "xpmem", "cma", "knem", "tcp", "cuda"}
    | {"cuda_copy", "cuda_ipc", "gdr_copy", "rocm", "rocm_copy", "rocm_ipc"}
)


def _rdma_unselected(line: Line, words: Sequence[str]) -> list[Fact]:
    """Whether the command's transport selection leaves RDMA out (see the module's text)."""
    mca: dict[str, str] = {}
    ucx: str | None = None
    for index, word in enumerate(words[:-1]):
        if word in ("--mca", "-mca", "--gmca", "-gmca") and index + 2 < len(words):
            mca[words[index + 1]] = words[index + 2]
        passed = _ASSIGNMENT.match(words[index + 1]) if word in ("-x", "--env") else None
        if passed is not None and passed.group(1) == "UCX_TLS":
            ucx = passed.group(2)
    for word in words:
        if word.startswith("UCX_TLS="):
            ucx = word[len("UCX_TLS=") :]
    btl = set(mca.get("btl", "").split(","))
    if mca.get("pml") == "ob1" and btl <= _BTL_LOCAL and btl != {""}:
        return [ObservationFact(line, "rdma-unselected", f"--mca pml ob1 --mca btl {mca['btl']}")]
    if ucx and not ucx.startswith("^") and set(ucx.split(",")) <= _UCX_LOCAL:
        return [ObservationFact(line, "rdma-unselected", f"UCX_TLS={ucx}")]
    return []


# Slurm's GPU requests (srun/sbatch/salloc(1)): `-G, --gpus=[type:]N`, `--gpus-per-node`,
# `--gpus-per-task`, `--gpus-per-socket`, `--gres=gpu[:type][:N]` (N defaults to 1). A job given
# GPUs is meant to see them (pyxis and enroot pass them into its container).
_SLURM_GPUS = frozenset(("--gpus", "--gpus-per-node", "--gpus-per-task", "--gpus-per-socket", "-G"))


def _slurm_gpu_request(line: Line, words: Sequence[str]) -> list[Fact]:
    """A GPU request of an srun command (`srun --gpus=2 --container-image=...`)."""
    if "srun" not in {w.rsplit("/", 1)[-1] for w in words}:
        return []
    for index, word in enumerate(words):
        option, sep, value = word.partition("=")
        if option not in _SLURM_GPUS and option != "--gres":
            continue
        if not sep and index + 1 < len(words):
            value = words[index + 1]
        asked = [v.split(":") for v in value.split(",")]
        if option == "--gres":
            asked = [v for v in asked if v[0] == "gpu"]
        # The count is the last field where it is a number; a type alone (gpu:a100) is one.
        if any(not (v[-1].isdigit() and int(v[-1]) == 0) for v in asked if v[-1]):
            facts: list[Fact] = [ObservationFact(line, "gpu-implied", f"{option}={value}")]
            # pyxis's options (its SPANK plugin runs the task in an enroot container, which
            # holds only the GPUs the job was given)
            image = next((w for w in words if w.startswith(_PYXIS)), None)
            if image is not None:
                facts.append(ObservationFact(line, "slurm-gpu-container", f"{image} {word}"))
            return facts
    return []


_PYXIS = ("--container-image", "--container-name")


class Launcher(Format):
    name = "launcher"
    title = "launcher command (mpirun, torchrun, srun, deepspeed)"
    anchor = re.compile(
        r"(?:^|[\s/])(?:mpirun|mpiexec|torchrun|srun|deepspeed)\s|"
        r"\bpython\S{0,10} -m torch\.distributed\.(?:launch|run)\b"
    )

    def opens(self, line: Line) -> bool:
        # ds_report's "deepspeed info ......" names DeepSpeed, not its launcher
        return super().opens(line) and "...." not in line.text

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return continued(segment)

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        assert self.anchor is not None
        if _sentence(lines[0], self.anchor):
            # A sentence that names a launcher states its settings as any sentence does.
            return [fact for line in lines for fact in settings(line)]
        words = tokens(joined(lines))
        facts: list[Fact] = _rdma_unselected(lines[0], words)
        facts.extend(_slurm_gpu_request(lines[0], words))
        benchmark = next((m.group(1) for w in words if (m := _NCCL_TESTS.search(w))), None)
        if benchmark is not None:
            facts.append(ObservationFact(lines[0], "nccl-tests-run", benchmark))
        leading = True
        for index, word in enumerate(words):
            assignment = _ASSIGNMENT.match(word)
            if leading and assignment:
                facts.extend(env_facts(lines[0], assignment.group(1), assignment.group(2)))
                continue
            leading = False
            if word in ("-x", "--env", "-genv") and index + 1 < len(words):
                passed = _ASSIGNMENT.match(words[index + 1])
                if passed:
                    facts.extend(env_facts(lines[0], passed.group(1), passed.group(2)))
            elif word.startswith("--export="):
                for part in word[len("--export=") :].split(","):
                    passed = _ASSIGNMENT.match(part)
                    if passed:
                        facts.extend(env_facts(lines[0], passed.group(1), passed.group(2)))
        return facts
