"""Reading and writing snapshots as JSON."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, Any

from stackcheck.errors import StackcheckError
from stackcheck.inputs import load_json
from stackcheck.snapshot.model import SCHEMA_VERSION, Snapshot, _Model, field_names

if TYPE_CHECKING:
    from pydantic import TypeAdapter


class _Unwritten(Exception):
    """A value whose JSON pydantic may write differently from ``json``: pydantic writes it."""


@cache
def snapshot_adapter() -> TypeAdapter[Snapshot]:
    """pydantic's validator and serialiser of snapshots: built on first use, where a snapshot is
    read from JSON (or written in a shape ``json`` may write differently)."""
    from pydantic import TypeAdapter

    return TypeAdapter(Snapshot)


def dump_snapshot(snapshot: Snapshot) -> str:
    """The snapshot as JSON, with secrets masked and non-UTF-8 names escaped (redact.py).

    The same bytes as pydantic's serialiser gives (a test holds them equal), written with
    ``json``: importing pydantic and building its serialiser would cost `stackcheck probe` more
    than the probing itself."""
    from stackcheck.redact import redact

    redacted = redact(snapshot)
    try:
        return json.dumps(_plain(redacted), indent=2, ensure_ascii=False)
    except _Unwritten:
        return snapshot_adapter().dump_json(redacted, indent=2).decode()


def _plain(value: Any) -> Any:
    """``value`` as JSON types, fields in declaration order, as pydantic's JSON mode gives it."""
    if isinstance(value, _Model):
        return {name: _plain(getattr(value, name)) for name in field_names(type(value))}
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
        document = json.loads(snapshot_adapter().dump_json(snapshot))
    document.pop("taken_at", None)
    text = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    import hashlib  # here: loading OpenSSL costs the probe, which digests nothing, 0.007 s

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
    from pydantic import ValidationError

    try:
        return snapshot_adapter().validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise StackcheckError(f"{origin}: invalid snapshot at {where}: {first['msg']}") from None
