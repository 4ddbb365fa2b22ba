"""Time `stackcheck fleet DIR` over 10,000 generated node snapshots, and its peak memory.

The snapshots are real probes of the test suite's DLAMI p5 tree and of copies of it with one
thing changed (an older NCCL wheel, a stray /etc/nccl.conf, a lost EFA device, the broken p5),
plus variations written into the snapshot (a newer kernel, NCCL_DEBUG set), each node with its
own host name and time, as `stackcheck probe --json` writes them. Some files are garbage or cut
off, some nodes have no file. `--all-distinct` gives every node a value of its own (an
NCCL_SOCKET_IFNAME nobody else has), the case where grouping identical stacks cannot help.

Each run is a fresh `python -m stackcheck fleet` process; the figures are the median wall and
CPU (user + system) time and the largest peak RSS over the runs. Needs gcc (the test trees'
libraries are built with it).

    python benchmarks/fleet_10k.py --nodes 10000 --runs 3
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from _common import benchmark_parser, print_result  # benchmarks/ is the script's folder

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from stackcheck.snapshot import EnvVar, Evidence, Snapshot  # noqa: E402
from tests.support.elfbuild import ElfFactory  # noqa: E402
from tests.support.fleet import p5_trees, probe_trees, write_fleet  # noqa: E402

# Share of nodes (per 10,000) that get each odd stack; the rest are healthy.
ODD_STACKS = {"older-nccl": 40, "stray-nccl-conf": 30, "lost-efa-device": 30, "broken": 20}
NEWER_KERNEL = 200  # per 10,000: rebooted into another kernel
NCCL_DEBUG = 50  # per 10,000: NCCL_DEBUG=INFO left in a profile
GARBAGE = 10  # per 10,000: a traceback instead of JSON
CUT_OFF = 10  # per 10,000: JSON cut off half-way
MISSING = 10  # per 10,000: no file at all


def _variant(base: Snapshot, kernel: bool, debug: bool) -> Snapshot:
    snapshot = base
    if kernel:
        snapshot = replace(snapshot, platform=replace(base.platform, kernel="6.8.0-1021-aws"))
    if debug:
        env = dict(base.env)
        env["NCCL_DEBUG"] = EnvVar(value="INFO", evidence=Evidence(kind="env", source="NCCL_DEBUG"))
        snapshot = replace(snapshot, env=env)
    return snapshot


def generate(directory: Path, work: Path, count: int, all_distinct: bool, seed: int = 5) -> str:
    """Write the fleet into ``directory`` (the trees it probes go to ``work``); return the
    hostlist of every node expected."""
    rng = random.Random(seed)
    stacks = probe_trees(p5_trees(work / "trees", ElfFactory(work / "elves")))
    names = [f"p5-{i:05d}" for i in range(1, count + 1)]
    order = names[:]
    rng.shuffle(order)
    per = count / 10_000
    assigned: dict[str, str] = {}
    cursor = 0
    for stack, share in ODD_STACKS.items():
        for name in order[cursor : cursor + round(share * per)]:
            assigned[name] = stack
        cursor += round(share * per)
    kernel = set(rng.sample(names, round(NEWER_KERNEL * per)))
    debug = set(rng.sample(names, round(NCCL_DEBUG * per)))
    snapshots: dict[str, Snapshot] = {}
    nodes: dict[str, str] = {}
    for name in names:
        base = assigned.get(name, "healthy")
        key = f"{base}{'+kernel' if name in kernel else ''}{'+debug' if name in debug else ''}"
        if all_distinct:
            key = f"{key}+{name}"
        if key not in snapshots:
            snapshot = _variant(stacks[base], name in kernel, name in debug)
            if all_distinct:
                env = dict(snapshot.env)
                env["NCCL_SOCKET_IFNAME"] = EnvVar(
                    value=f"ens{name[-5:]}",
                    evidence=Evidence(kind="env", source="NCCL_SOCKET_IFNAME"),
                )
                snapshot = replace(snapshot, env=env)
            snapshots[key] = snapshot
        nodes[name] = key
    silent = order[cursor : cursor + round((GARBAGE + CUT_OFF + MISSING) * per)]
    garbage = silent[: round(GARBAGE * per)]
    cut = silent[len(garbage) : len(garbage) + round(CUT_OFF * per)]
    missing = silent[len(garbage) + len(cut) :]
    for name in missing:
        del nodes[name]
    write_fleet(directory, snapshots, nodes)
    for name in garbage:
        (directory / f"{name}.json").write_text(
            'Traceback (most recent call last):\n  File "<string>", line 1\nMemoryError\n'
        )
    for name in cut:
        path = directory / f"{name}.json"
        text = path.read_text()
        path.write_text(text[: len(text) // 2])
    return f"p5-[00001-{count:05d}]"


def fleet_argv(directory: Path, nodelist: str, output: str) -> list[str]:
    return [
        *(sys.executable, "-m", "stackcheck", "fleet", str(directory)),
        *("--nodelist", nodelist, "--format", output),
    ]


def run_once(directory: Path, nodelist: str, output: str) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds, peak RSS in KiB and exit code of one fresh fleet process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        fleet_argv(directory, nodelist, output),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, process.returncode


def main() -> int:
    parser = benchmark_parser(__doc__, runs=3)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--all-distinct", action="store_true", help="every node a stack of its own")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as scratch:
        directory = Path(scratch) / "snapshots"
        started = time.perf_counter()
        nodelist = generate(directory, Path(scratch), args.nodes, args.all_distinct)
        generated = time.perf_counter() - started
        files = list(directory.iterdir())
        size = sum(p.stat().st_size for p in files)
        result: dict[str, object] = {
            "nodes": args.nodes,
            "files": len(files),
            "megabytes": round(size / 1e6, 1),
            "all_distinct": args.all_distinct,
            "generate_s": round(generated, 1),
            "cpus": os.cpu_count(),
        }
        for output in ("json", "text"):
            runs = [run_once(directory, nodelist, output) for _ in range(args.runs)]
            result[f"{output}_median_s"] = round(statistics.median(r[0] for r in runs), 2)
            result[f"{output}_cpu_median_s"] = round(statistics.median(r[1] for r in runs), 2)
            result[f"{output}_peak_rss_mib"] = round(max(r[2] for r in runs) / 1024, 1)
            result[f"{output}_exit_code"] = runs[0][3]
        summary = subprocess.run(
            fleet_argv(directory, nodelist, "json"),
            capture_output=True,
            text=True,
            check=False,
        )
        result["summary"] = json.loads(summary.stdout)["summary"]
    print_result(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
