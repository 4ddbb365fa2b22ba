"""Reading and writing snapshots as JSON."""

from __future__ import annotations

from pydantic import ValidationError

from stackcheck.errors import StackcheckError
from stackcheck.inputs import load_json
from stackcheck.snapshot.model import SCHEMA_VERSION, Snapshot


def dump_snapshot(snapshot: Snapshot) -> str:
    """The snapshot as JSON, with secrets masked and non-UTF-8 names escaped (redact.py)."""
    from stackcheck.redact import redact

    return redact(snapshot).model_dump_json(indent=2)


def load_snapshot(text: str, origin: str) -> Snapshot:
    """Parse a snapshot; any problem becomes one StackcheckError naming ``origin``."""
    data = load_json(text, origin)
    if not isinstance(data, dict):
        raise StackcheckError(f"{origin}: not a stackcheck snapshot (expected a JSON object)")
    if "snapshot" in data and "findings" in data:
        data = data["snapshot"]  # a report: its snapshot is what was checked
        if not isinstance(data, dict):
            raise StackcheckError(f"{origin}: the report's snapshot is not a JSON object")
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
