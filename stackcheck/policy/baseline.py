"""Baselines: the findings an existing image already had, so only new ones fail the gate."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from stackcheck import __version__, limits
from stackcheck.check.fingerprint import fingerprint
from stackcheck.check.model import Report
from stackcheck.errors import StackcheckError
from stackcheck.inputs import load_json, read_regular

BASELINE_SCHEMA_VERSION = 1


def write_baseline(report: Report, path: Path) -> int:
    """Record every current finding (suppressed ones included); returns how many."""
    findings = [*report.findings, *(s.finding for s in report.suppressed)]
    document = {
        "schema_version": BASELINE_SCHEMA_VERSION,
        "stackcheck_version": __version__,
        "created": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "findings": [
            {"id": f.id, "fingerprint": fingerprint(f), "title": f.title, "message": f.message}
            for f in findings
        ],
    }
    try:
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise StackcheckError(f"cannot write baseline {path}: {exc.strerror or exc}") from None
    return len(findings)


def load_baseline(path: Path) -> set[str]:
    data = load_json(read_regular(path, "baseline", limits.JSON_FILE_BYTES)[0], f"baseline {path}")
    if not isinstance(data, dict) or data.get("schema_version") != BASELINE_SCHEMA_VERSION:
        found = data.get("schema_version") if isinstance(data, dict) else None
        raise StackcheckError(
            f"baseline {path}: schema_version {found!r} is not {BASELINE_SCHEMA_VERSION}; "
            "write a new one with --write-baseline"
        )
    entries = data.get("findings")
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries
    ):
        raise StackcheckError(
            f"baseline {path}: findings must be a list of objects with a fingerprint"
        )
    return {e["fingerprint"] for e in entries}
