"""Time and memory of `stackcheck triage` on a full NCCL_DEBUG=INFO run of 64 ranks (8 nodes of
8 GPUs over EFA), about 5 MB: the log is generated from the line shapes NCCL 2.2x and
aws-ofi-nccl 1.1x print (init, plugin, topology, per-channel connections, comm init), as a
fresh process, as a user runs it. Peak memory is the child's maximum resident set size.

An installed package has its modules compiled to bytecode (pip does it at install), so by default
the child writes its bytecode to a private cache in a first run that is not counted.
``--no-bytecode`` measures a checkout run with PYTHONDONTWRITEBYTECODE set, where every module
whose cached bytecode is missing or stale is compiled from source in every run: about a third of
a second more.

    python benchmarks/triage_nccl_log.py --runs 3
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import benchmark_parser, print_result  # benchmarks/ is the script's folder

RANKS = 64
PER_NODE = 8
TARGET = 5 << 20  # bytes


def _rank_lines(rank: int, step: int) -> list[str]:
    node, local = divmod(rank, PER_NODE)
    host = f"ip-10-1-{node}-{17 + node}"
    pid = 4000 + rank
    p = f"{host}:{pid}:{pid}"
    t = f"{host}:{pid}:{pid + 120}"
    peer = (rank + PER_NODE) % RANKS
    lines = [
        f"{p} [{local}] NCCL INFO cudaDriverVersion 12040",
        f"{p} [{local}] NCCL INFO Bootstrap : Using ens32:10.1.{node}.{17 + node}<0>",
        f"{p} [{local}] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v8 symbol.",
        f"{t} [{local}] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.13.2-aws",
        f"{t} [{local}] NCCL INFO NET/OFI Using Libfabric version 1.22",
        f"{t} [{local}] NCCL INFO NET/OFI Using CUDA driver version 12040 with runtime 12040",
        f"{t} [{local}] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)",
        f"{t} [{local}] NCCL INFO Using network AWS Libfabric",
        f"{t} [{local}] NCCL INFO comm 0x55d1c8e0 rank {rank} nranks {RANKS} cudaDev {local} "
        f"nvmlDev {local} busId {local + 1}0000 commId 0x9c2f5d4e1a7b3c60 - Init START",
        f"{t} [{local}] NCCL INFO Setting affinity for GPU {local} to ffffff,ffff0000,00000000",
    ]
    if rank == 0 and step == 0:
        lines.insert(3, "NCCL version 2.21.5+cuda12.4")
    for channel in range(32):
        lines.append(
            f"{t} [{local}] NCCL INFO Channel {channel:02d}/0 : {rank}[{local}] -> "
            f"{(rank + 1) % RANKS}[{(local + 1) % PER_NODE}] via P2P/IPC/read"
        )
        lines.append(
            f"{t} [{local}] NCCL INFO Channel {channel:02d}/0 : {peer}[{local}] -> {rank}[{local}] "
            f"[receive] via NET/AWS Libfabric/{local // 2}/GDRDMA"
        )
    lines.append(f"{t} [{local}] NCCL INFO Connected all rings")
    lines.append(f"{t} [{local}] NCCL INFO Connected all trees")
    lines.append(
        f"{t} [{local}] NCCL INFO comm 0x55d1c8e0 rank {rank} nranks {RANKS} cudaDev {local} "
        f"nvmlDev {local} busId {local + 1}0000 commId 0x9c2f5d4e1a7b3c60 - Init COMPLETE"
    )
    return lines


def nccl_log(target: int = TARGET) -> str:
    """A log of ``target`` bytes or just over: communicators created again and again, as a job
    with many process groups does."""
    lines: list[str] = []
    size = 0
    step = 0
    while size < target:
        for rank in range(RANKS):
            for line in _rank_lines(rank, step):
                lines.append(line)
                size += len(line) + 1
        step += 1
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = benchmark_parser(__doc__, runs=3)
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="write no bytecode: modules without a fresh cache compile in every run",
    )
    args = parser.parse_args()
    text = nccl_log()
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as handle:
        handle.write(text)
    with tempfile.TemporaryDirectory(prefix="sc-pyc-") as cache:
        seconds, cpu, done = _runs(handle.name, args.runs, cache, bytecode=not args.no_bytecode)
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    Path(handle.name).unlink()
    print_result(
        {
            "log bytes": len(text),
            "log lines": text.count("\n"),
            "ranks": RANKS,
            "bytecode cache": "yes" if not args.no_bytecode else "no",
            "triage seconds (median)": round(statistics.median(seconds), 3),
            "triage seconds (max)": round(max(seconds), 3),
            "triage CPU seconds (median)": round(statistics.median(cpu), 3),
            "peak RSS MiB": round(peak_kib / 1024, 1),
            "findings lines": done.stdout.count("\n"),
        },
        args.json,
    )
    return 0


def _runs(
    log: str, runs: int, cache: str, *, bytecode: bool
) -> tuple[list[float], list[float], subprocess.CompletedProcess[str]]:
    """Wall and CPU seconds of ``runs`` fresh triage processes on ``log``, bytecode in the
    private ``cache`` (written by an uncounted first run) or none written."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if bytecode:
        env["PYTHONPYCACHEPREFIX"] = cache
    else:  # the interpreter's own bytecode as installed; this package's compiled where stale
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    command = [sys.executable, "-m", "stackcheck", "triage", log, "--fail-on", "never"]
    if bytecode:
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True, env=env)
    seconds: list[float] = []
    cpu: list[float] = []
    done = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.PIPE, check=True, text=True, env=env)
        seconds.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # CPU time is what the run costs; wall time also counts waiting on a busy machine.
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    assert done is not None, "at least one run"
    return seconds, cpu, done


if __name__ == "__main__":
    raise SystemExit(main())
