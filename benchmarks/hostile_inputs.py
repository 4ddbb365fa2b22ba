"""Every reproduction of issue 19 at its own size, each run as `python -m stackcheck` in a child
process: its wall time, its peak RSS (from wait4), and whether it ended as expected (exit 2 with
one line, or an answer). The corpus is tests/support/hostile.py at ``--scale`` (default: the
issue's sizes: 800 members of 4 MiB, a 13 MB paste, a million LD_LIBRARY_PATH entries).

    python benchmarks/hostile_inputs.py [--scale N] [--json]
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import benchmark_parser, print_result  # benchmarks/ is the script's folder

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from tests.support import hostile  # noqa: E402
from tests.support.elfbuild import ElfFactory  # noqa: E402

TIME_LIMIT_S = 10.0
MEMORY_LIMIT_MB = 300.0
_KILL_AFTER_S = 60.0


# A small launcher: a child forked from this (large) process would inherit its peak RSS in
# ru_maxrss; forked from the launcher, stackcheck's figure is its own.
_LAUNCHER = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL)
with open(sys.argv[1], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(done.returncode)
"""


def _run(case: hostile.Case, work: Path) -> tuple[int, float, float, str, str]:
    """(exit code, seconds, peak RSS in MB, stdout tail, stderr) of one case."""
    env = {**os.environ, **case.env, "XDG_CACHE_HOME": str(work / "cache")}
    peak = work / f"{case.name}.maxrss"
    command = [sys.executable, "-m", "stackcheck", *case.argv]
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, str(peak), *command],
            stdout=out,
            stderr=err,
            env=env,
            cwd=PROJECT,
            start_new_session=True,
        )
        try:
            code = process.wait(_KILL_AFTER_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            code = process.wait()
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        stdout = out.read()[-20000:].decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    memory = int(peak.read_text()) / 1024 if peak.exists() else float("nan")
    return code, seconds, memory, stdout, stderr


def _verdict(case: hostile.Case, code: int, stdout: str, stderr: str) -> str:
    lines = stderr.strip().splitlines()
    if "Traceback" in stderr:
        return "traceback"
    if case.expect == hostile.ERROR:
        one_line = len(lines) == 1 and " error: " in lines[0] and case.fragment in lines[0]
        return "ok" if code == 2 and one_line else f"expected exit 2, got {code}: {stderr[-300:]}"
    return "ok" if code in (0, 1) and case.fragment in stdout else f"exit {code}: {stderr[-300:]}"


def main() -> None:
    parser = benchmark_parser(__doc__, runs=None)
    parser.add_argument("--scale", type=int, default=40, help="40: the issue's sizes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="stackcheck-hostile-") as folder:
        work = Path(folder)
        built = time.monotonic()
        corpus = hostile.build(work / "corpus", ElfFactory(work / "elves"), args.scale)
        result: dict[str, object] = {"corpus built in": f"{time.monotonic() - built:.1f} s"}
        worst_time = worst_memory = 0.0
        failed = []
        for case in corpus.cases:
            code, seconds, memory, stdout, stderr = _run(case, work)
            verdict = _verdict(case, code, stdout, stderr)
            within = seconds < TIME_LIMIT_S and memory < MEMORY_LIMIT_MB
            if verdict != "ok" or not within:
                failed.append(case.name)
            worst_time, worst_memory = max(worst_time, seconds), max(worst_memory, memory)
            result[case.name] = f"exit {code}  {seconds:5.2f} s  {memory:6.1f} MB  {verdict}"
        result["cases"] = len(corpus.cases)
        result["slowest"] = f"{worst_time:.2f} s (limit {TIME_LIMIT_S:g} s)"
        result["largest peak RSS"] = f"{worst_memory:.1f} MB (limit {MEMORY_LIMIT_MB:g} MB)"
        result["failed"] = failed
        corpus.cleanup()
    print_result(result, args.json)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
