"""What triage reads from every corpus report stays what it was when recorded: the findings
(rule ID, severity, message), each segment's reading (``--show-parsed``) and the snapshot. A guard
for changes meant to be invisible (speed); a change meant to alter readings re-records with

    STACKCHECK_RECORD_READINGS=1 python -m pytest tests/test_triage_readings_snapshot.py
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from stackcheck.formats.parsed import parsed_json
from stackcheck.snapshot.io import dump_snapshot
from tests.corpus import ALL_REPORTS, CorpusReport, triaged

RECORDED = Path(__file__).parent / "data" / "triage_readings.json"
RECORD = os.environ.get("STACKCHECK_RECORD_READINGS") == "1"


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


@cache
def _recorded() -> dict[str, Any]:
    if RECORD:
        RECORDED.write_text(
            json.dumps({r.key: readings(r) for r in ALL_REPORTS}, indent=1, sort_keys=True) + "\n",
            encoding="utf-8",
        )
    loaded: dict[str, Any] = json.loads(RECORDED.read_text(encoding="utf-8"))
    return loaded


def test_every_report_is_recorded() -> None:
    assert sorted(_recorded()) == sorted(r.key for r in ALL_REPORTS)


@pytest.mark.parametrize("report", ALL_REPORTS, ids=lambda r: r.key)
def test_readings_are_unchanged(report: CorpusReport) -> None:
    assert readings(report) == _recorded()[report.key]
