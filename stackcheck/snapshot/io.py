"""Reading and writing snapshots as JSON."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta
from enum import Enum
from typing import Any

from pydantic import BaseModel, ValidationError

from stackcheck.errors import StackcheckError
from stackcheck.inputs import load_json
from stackcheck.snapshot.model import SCHEMA_VERSION, Snapshot


class _Unwritten(Exception):
    """A value whose JSON pydantic may write differently from ``json``: pydantic writes it."""


def dump_snapshot(snapshot: Snapshot) -> str:
    """The snapshot as JSON, with secrets masked and non-UTF-8 names escaped (redact.py).

    The same bytes as pydantic's ``model_dump_json(indent=2)`` (a test holds them equal), written
    with ``json``: pydantic's serialiser is built on first use, which costs `stackcheck probe`
    more than the probing itself."""
    from stackcheck.redact import redact

    redacted = redact(snapshot)
    try:
        return json.dumps(_plain(redacted), indent=2, ensure_ascii=False)
    except _Unwritten:
        return redacted.model_dump_json(indent=2)


def _plain(value: Any) -> Any:
    """``value`` as JSON types, fields in declaration order, as pydantic's JSON mode gives it."""
    if isinstance(value, BaseModel):
        return {name: _plain(getattr(value, name)) for name in type(value).__pydantic_fields__}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (str, bool, int)) or value is None:
        return value
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and "e" not in repr(value) and value == value and abs(value) < 1e16:
        return value  # Python and pydantic write these floats alike (16.0, 2.5)
    if isinstance(value, datetime) and value.utcoffset() == timedelta(0) and not value.microsecond:
        return value.replace(tzinfo=None).isoformat() + "Z"
    raise _Unwritten(type(value).__name__)


def content_digest(snapshot: Snapshot) -> str:
    """The SHA-256 of what a probe read: the snapshot's JSON, unredacted, without the time it
    was taken (the result cache's key for an image, stackcheck.results)."""
    try:
        document = _plain(snapshot)
    except _Unwritten:
        document = json.loads(snapshot.model_dump_json())
    document.pop("taken_at", None)
    text = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


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
