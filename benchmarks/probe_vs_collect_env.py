"""Time `stackcheck probe` against `python -m torch.utils.collect_env` on this machine.

Both run as fresh processes, as a user would run them, interleaved; the figure is the median
of several runs. stackcheck's bytecode is compiled first, as an installed wheel's is
(--source-only: not).
collect_env needs PyTorch: the script makes a virtualenv with PyTorch's CPU wheel under
.cache/bench-venv the first time (or use --collect-env-python).

    python benchmarks/probe_vs_collect_env.py --runs 7
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

from _common import (  # benchmarks/ is the script's folder
    add_bytecode_argument,
    benchmark_parser,
    compile_bytecode,
    print_result,
    timed,
)

PROJECT = Path(__file__).resolve().parent.parent
BENCH_VENV = PROJECT / ".cache" / "bench-venv"
TORCH = "torch==2.13.0"


def collect_env_python() -> Path:
    python = BENCH_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", TORCH], check=True)
    return python


def main() -> int:
    parser = benchmark_parser(__doc__, runs=7)
    parser.add_argument("--collect-env-python", type=Path, help="a Python that has torch installed")
    add_bytecode_argument(parser)
    args = parser.parse_args()
    bytecode = compile_bytecode(args)

    other = args.collect_env_python or collect_env_python()
    probe_argv = [sys.executable, "-m", "stackcheck", "probe", "--json", "--no-network"]
    collect_argv = [str(other), "-m", "torch.utils.collect_env"]
    probe: list[float] = []
    collect: list[float] = []
    for _ in range(args.runs):  # interleaved, so a busy machine slows both alike
        probe += timed(probe_argv, 1)
        collect += timed(collect_argv, 1)
    probe_s, collect_s = statistics.median(probe), statistics.median(collect)
    result: dict[str, object] = {
        "runs": args.runs,
        "bytecode": bytecode,
        "stackcheck_probe_median_s": round(probe_s, 3),
        "collect_env_median_s": round(collect_s, 3),
        "ratio": round(probe_s / collect_s, 3),
        "goal": "ratio <= 0.1",
    }
    print_result(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
