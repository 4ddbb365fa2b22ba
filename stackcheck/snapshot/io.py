"""Reading and writing snapshots as JSON."""

from __future__ import annotations

import json

from pydantic import ValidationError

from stackcheck.errors import StackcheckError
from stackcheck.snapshot.model import SCHEMA_VERSION, Snapshot


def dump_snapshot(snapshot: Snapshot) -> str:
    return snapshot.model_dump_json(indent=2)


def load_snapshot(text: str, origin: str) -> Snapshot:
    """Parse a snapshot; any problem becomes one StackcheckError naming ``origin``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StackcheckError(f"{origin}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise StackcheckError(f"{origin}: not a stackcheck snapshot (expected a JSON object)")
    if "snapshot" in data and "findings" in data:
        data = data["snapshot"]  # a report: its snapshot is what was checked
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise StackcheckError(
            f"{origin}: snapshot schema_version {version!r} is not {SCHEMA_VERSION}, "
            "the version this stackcheck reads"
        )
    try:
        return Snapshot.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise StackcheckError(f"{origin}: invalid snapshot at {where}: {first['msg']}") from None
