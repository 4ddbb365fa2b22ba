"""What the benchmark scripts share. Scripts run as `python benchmarks/NAME.py`, so this folder
is on their import path."""

from __future__ import annotations

import json


def print_result(result: dict[str, object], as_json: bool) -> None:
    """A benchmark's figures, as JSON or as aligned ``name value`` lines."""
    if as_json:
        print(json.dumps(result, indent=2))
        return
    for key, value in result.items():
        print(f"{key:28} {value}")
