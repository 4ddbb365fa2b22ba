"""What the benchmark scripts share. Scripts run as `python benchmarks/NAME.py`, so this folder
is on their import path."""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from collections.abc import Mapping


def benchmark_parser(description: str | None, runs: int | None) -> argparse.ArgumentParser:
    """The options every benchmark takes: ``--json``, and ``--runs`` where it repeats runs."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    if runs is not None:
        parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def print_result(result: Mapping[str, object], as_json: bool) -> None:
    """A benchmark's figures, as JSON or as aligned ``name value`` lines."""
    if as_json:
        print(json.dumps(result, indent=2))
        return
    for key, value in result.items():
        print(f"{key:28} {value}")


def timed(argv: list[str], runs: int, ok: tuple[int, ...] = (0,)) -> list[float]:
    """Wall times of ``runs`` fresh processes of ``argv``, each ending with an exit code in
    ``ok``."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
        if done.returncode not in ok:
            raise SystemExit(f"{' '.join(argv)}: exit code {done.returncode}")
    return times
