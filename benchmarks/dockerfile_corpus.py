"""Time `stackcheck lint-dockerfile` over the Dockerfile corpus (tests/data/dockerfiles): in
process, read + lint + check of every file, median of several passes (the matrix loaded once, as
one `lint-dockerfile DIR` run does); and as a fresh process on the whole directory, as a CI gate
runs it.

    python benchmarks/dockerfile_corpus.py --runs 5
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import benchmark_parser, print_result  # benchmarks/ is the script's folder

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from stackcheck.check.engine import check  # noqa: E402
from stackcheck.dockerfile.lint import lint_dockerfile, read_dockerfile  # noqa: E402
from stackcheck.dockerfile.many import find_dockerfiles  # noqa: E402
from stackcheck.matrix import load_matrix  # noqa: E402
from stackcheck.matrix.index import MatrixIndex  # noqa: E402

CORPUS = PROJECT / "tests" / "data" / "dockerfiles"


def main() -> int:
    parser = benchmark_parser(__doc__, runs=5)
    args = parser.parse_args()

    files = find_dockerfiles(str(CORPUS))
    lines = sum(len(Path(f).read_text().splitlines()) for f in files)
    started = time.perf_counter()
    matrix = load_matrix()
    index = MatrixIndex(matrix)
    matrix_s = time.perf_counter() - started
    passes = []
    for _ in range(args.runs):
        started = time.perf_counter()
        for path in files:
            check(lint_dockerfile(read_dockerfile(path), path, index).snapshot, matrix)
        passes.append(time.perf_counter() - started)
    command = [sys.executable, "-m", "stackcheck", "lint-dockerfile", str(CORPUS)]
    command += ["--fail-on", "never", "--format", "json"]
    cold = []
    for _ in range(args.runs):
        started = time.perf_counter()
        subprocess.run(
            command,
            stdout=subprocess.DEVNULL,
            check=True,
            cwd=PROJECT,
        )
        cold.append(time.perf_counter() - started)
    print_result(
        {
            "dockerfiles": len(files),
            "lines": lines,
            "matrix_load_s": round(matrix_s, 3),
            "lint_all_median_s": round(statistics.median(passes), 3),
            "per_file_ms": round(1000 * statistics.median(passes) / len(files), 2),
            "cli_whole_dir_median_s": round(statistics.median(cold), 3),
        },
        args.json,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
