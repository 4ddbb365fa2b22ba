"""A guard for changes to triage meant to be invisible (speed, refactoring): record what triage
reads from every development report of the corpus (findings with rule ID, severity and message;
each segment's reading as `--show-parsed` prints it; the snapshot), change the code, then compare.

    python benchmarks/triage_readings.py record          # before the change
    python benchmarks/triage_readings.py compare         # after: lists every report that differs

The record is kept under .cache/ (not committed): readings are meant to change with every new
reading, and a committed copy would only be re-recorded without being read. Held-out reports are
never read here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from stackcheck.formats.parsed import parsed_json  # noqa: E402
from stackcheck.snapshot.io import dump_snapshot  # noqa: E402
from tests.corpus import REPORTS, CorpusReport, triaged  # noqa: E402

RECORD = PROJECT / ".cache" / "triage_readings.json"


def readings(report: CorpusReport) -> dict[str, Any]:
    triage, checked = triaged(report.key)
    snapshot = json.loads(dump_snapshot(triage.snapshot))
    snapshot.pop("taken_at", None)  # the time of the run, not a reading
    return {
        "findings": [[f.id, str(f.severity), f.message] for f in checked.findings],
        "parsed": parsed_json(triage),
        "recognised": triage.recognised,
        "snapshot": snapshot,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("--file", type=Path, default=RECORD, help=f"default: {RECORD.name}")
    args = parser.parse_args()
    now = {r.key: readings(r) for r in REPORTS}
    if args.action == "record":
        args.file.parent.mkdir(parents=True, exist_ok=True)
        args.file.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"recorded {len(now)} reports in {args.file}")
        return 0
    before: dict[str, Any] = json.loads(args.file.read_text(encoding="utf-8"))
    differ = sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))
    for key in differ:
        print(f"{key}: readings differ")
    print(f"{len(differ)} of {len(now)} reports read differently")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
