"""What the benchmark scripts share. Scripts run as `python benchmarks/NAME.py`, so this folder
is on their import path."""

from __future__ import annotations

import argparse
import json
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
