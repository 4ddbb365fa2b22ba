"""Every fuzz target of tests/support/fuzz.py at >= 10,000 inputs, seeded: per target the inputs
run, how many ended with a documented error (refused), how many with an uncaught exception (the
figure that must be 0), the time, and the first uncaught examples.

    python benchmarks/fuzz_all.py [--inputs N] [--seed S] [--only NAME] [--json]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from _common import benchmark_parser, print_result  # benchmarks/ is the script's folder

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from stackcheck.matrix import load_matrix  # noqa: E402
from tests.support import fuzz  # noqa: E402
from tests.support.elfbuild import ElfFactory  # noqa: E402


def main() -> None:
    parser = benchmark_parser(__doc__, runs=None)
    parser.add_argument("--inputs", type=int, default=10_000, help="inputs a target")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--only", help="run the targets whose name starts with this")
    args = parser.parse_args()
    result: dict[str, object] = {}
    total_uncaught = total_inputs = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="stackcheck-fuzz-") as folder:
        work = Path(folder)
        targets = fuzz.all_targets(work / "seeds", ElfFactory(work / "elves"), load_matrix())
        for target in targets:
            if args.only and not target.name.startswith(args.only):
                continue
            run = target.fuzz(args.inputs, args.seed)
            total_inputs += run.inputs
            total_uncaught += run.uncaught
            result[target.name] = (
                f"{run.inputs} inputs, {run.refused} refused, {run.uncaught} uncaught, "
                f"{run.seconds:.1f} s"
            )
            for example in run.examples:
                result[f"  {target.name} example"] = example
    result["targets"] = sum(1 for key in result if not key.startswith("  "))
    result["inputs"] = total_inputs
    result["uncaught"] = total_uncaught
    result["seconds"] = f"{time.monotonic() - started:.0f}"
    print_result(result, args.json)
    sys.exit(1 if total_uncaught else 0)


if __name__ == "__main__":
    main()
