"""What the benchmark scripts share. Scripts run as `python benchmarks/NAME.py`, so this folder
is on their import path."""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "stackcheck"


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


def add_bytecode_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--source-only",
        action="store_true",
        help="do not compile stackcheck's bytecode first (as under PYTHONDONTWRITEBYTECODE)",
    )


def compile_bytecode(args: argparse.Namespace) -> bool:
    """Compile stackcheck's modules to __pycache__ (unless --source-only), as installing a
    wheel does: otherwise a checkout run under PYTHONDONTWRITEBYTECODE compiles every module
    on every start, which no installed copy does (about 0.05 s of a probe). True if compiled.

    --source-only removes stackcheck's compiled modules and keeps the timed processes from
    writing them again, so that every start compiles them, as such a checkout does."""
    if args.source_only:
        for cache in PACKAGE.rglob("__pycache__"):
            shutil.rmtree(cache)
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # inherited by every timed process
        return False
    compileall.compile_dir(PACKAGE, quiet=1)
    return True
