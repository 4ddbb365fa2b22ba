"""Time `stackcheck triage` over the corpus (tests/data/reports): in process, read + check of
every body, median of several passes; one long paste (the corpus twenty times over); and as a
fresh process on the largest body, as a user would run it.

    python benchmarks/triage_corpus.py --runs 5
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import benchmark_parser, print_result  # benchmarks/ is the script's folder

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from stackcheck.check.engine import check  # noqa: E402
from stackcheck.ingest import read_report  # noqa: E402
from stackcheck.matrix import load_matrix  # noqa: E402

CORPUS = PROJECT / "tests" / "data" / "reports"


def bodies() -> list[str]:
    return [p.read_text().partition("\n---\n")[2] for p in sorted(CORPUS.glob("[0-9]*.txt"))]


def main() -> int:
    parser = benchmark_parser(__doc__, runs=5)
    args = parser.parse_args()

    texts = bodies()
    matrix = load_matrix()
    passes = []
    for _ in range(args.runs):
        started = time.perf_counter()
        for text in texts:
            check(read_report(text, "bench.txt").snapshot, matrix)
        passes.append(time.perf_counter() - started)
    # A long paste: every body of the corpus, twenty times over, read as one text.
    pasted = "\n\n".join(texts * 20)
    started = time.perf_counter()
    check(read_report(pasted, "bench.txt").snapshot, matrix)
    long_paste = time.perf_counter() - started
    largest = max(texts, key=len)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.write(largest)
    cold = []
    for _ in range(args.runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "stackcheck", "triage", handle.name, "--fail-on", "never"],
            stdout=subprocess.DEVNULL,
            check=True,
        )
        cold.append(time.perf_counter() - started)
    Path(handle.name).unlink()
    result = {
        "runs": args.runs,
        "reports": len(texts),
        "corpus_median_s": round(statistics.median(passes), 3),
        "per_report_median_ms": round(1000 * statistics.median(passes) / len(texts), 2),
        "largest_report_chars": len(largest),
        "long_paste_kib": len(pasted) >> 10,
        "long_paste_s": round(long_paste, 3),
        "cli_cold_start_median_s": round(statistics.median(cold), 3),
    }
    print_result(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
