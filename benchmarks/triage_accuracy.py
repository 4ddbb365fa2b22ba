"""Accuracy of `stackcheck triage` on the corpus (tests/data/reports), per split.

For each report whose text suffices (it expects a family that is not marked undetectable), the
diagnosis is right when every expected family is among the findings of severity warning or
error. For each healthy report, a false error is any finding of severity error. A report is
"nothing recognised" when triage finds no tool output, message or listing in it (it would exit 2).
That rate is given twice: over all reports, and over the reports that hold a stack component's
version, an error or warning message or a listing's row by their shape alone (issue 13's goal;
the shapes are in tests/stack_text.py and do not depend on what triage reads).

The held-out split is read only here, to measure: no test asserts a held-out report.

    python benchmarks/triage_accuracy.py            # both splits
    python benchmarks/triage_accuracy.py --misses   # also list what was missed, per report
"""

from __future__ import annotations

import sys
from pathlib import Path

from _common import benchmark_parser, print_result  # benchmarks/ is the script's folder

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from stackcheck.check.engine import check  # noqa: E402
from stackcheck.check.model import Severity  # noqa: E402
from stackcheck.ingest import read_report  # noqa: E402
from stackcheck.matrix import load_matrix  # noqa: E402
from tests.corpus import ALL_REPORTS, NAMING, CorpusReport  # noqa: E402
from tests.stack_text import holds_stack_text  # noqa: E402


def measure(reports: list[CorpusReport], misses: list[str]) -> dict[str, object]:
    matrix = load_matrix()
    diagnosable = right = healthy = false_error = unrecognised = holding = unrecognised_holding = 0
    for report in reports:
        triage = read_report(report.body, report.path.name)
        findings = check(triage.snapshot, matrix).findings
        loud = {f.family for f in findings if f.severity in NAMING}
        holds = holds_stack_text(report.body)
        holding += holds
        if not triage.recognised:
            unrecognised += 1
            unrecognised_holding += holds
            if holds:
                misses.append(f"{report.path.name}: holds a version, message or listing; none read")
        wanted = report.expect - report.undetectable
        if wanted:
            diagnosable += 1
            if wanted <= loud:
                right += 1
            else:
                misses.append(f"{report.path.name}: wanted {sorted(wanted)}, found {sorted(loud)}")
        if report.healthy:
            healthy += 1
            errors = sorted({f.id for f in findings if f.severity is Severity.ERROR})
            if errors:
                false_error += 1
                misses.append(f"{report.path.name}: healthy, but errors {errors}")
    return {
        "reports": len(reports),
        "diagnosable": diagnosable,
        "right": right,
        "accuracy %": round(100 * right / diagnosable, 1) if diagnosable else None,
        "healthy": healthy,
        "false errors": false_error,
        "nothing recognised": unrecognised,
        "nothing recognised %": round(100 * unrecognised / len(reports), 1) if reports else None,
        "holding stack text": holding,
        "holding, none recognised": unrecognised_holding,
        "holding, none recog. %": (
            round(100 * unrecognised_holding / holding, 1) if holding else None
        ),
    }


def main() -> int:
    parser = benchmark_parser(__doc__, runs=None)
    parser.add_argument("--misses", action="store_true", help="list each miss")
    args = parser.parse_args()
    result: dict[str, object] = {}
    misses: dict[str, list[str]] = {}
    for split in ("dev", "heldout"):
        chosen = [r for r in ALL_REPORTS if r.split == split]
        misses[split] = []
        for key, value in measure(chosen, misses[split]).items():
            result[f"{split} {key}"] = value
    print_result(result, args.json)
    if args.misses:
        for split, lines in misses.items():
            for line in lines:
                print(f"{split}: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
