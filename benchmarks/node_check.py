"""Time `stackcheck node-check` on this host, as Slurm's HealthCheckProgram or NPD would run it:
fresh processes, the median of several runs, alone and against an expected stack (this host's
own snapshot, so the check passes and every drift rule runs). The goal: under 1 s on a healthy
host, well inside any HealthCheckInterval or NPD invoke_interval.

    python benchmarks/node_check.py --runs 9
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import benchmark_parser, print_result, timed  # benchmarks/ is the script's folder

STACKCHECK = [sys.executable, "-m", "stackcheck"]


def main() -> int:
    args = benchmark_parser(__doc__, runs=9).parse_args()
    base = [*STACKCHECK, "node-check", "--no-network"]
    with tempfile.TemporaryDirectory() as scratch:
        expected = Path(scratch) / "expected.json"
        probe = subprocess.run(
            [*STACKCHECK, "probe", "--json", "--no-network"], capture_output=True, check=True
        )
        expected.write_bytes(probe.stdout)
        cases = {
            "node_check": base,
            "node_check_npd": [*base, "--format", "npd"],
            "node_check_expected": [*base, "--expected", str(expected)],
        }
        result: dict[str, object] = {"runs": args.runs}
        for name, argv in cases.items():
            times = timed(argv, args.runs)
            result[f"{name}_median_s"] = round(statistics.median(times), 3)
            result[f"{name}_max_s"] = round(max(times), 3)
    result["goal"] = "median < 1 s on a healthy host"
    print_result(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
