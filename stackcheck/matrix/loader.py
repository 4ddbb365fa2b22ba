"""Loading the matrix: the bundled TOML files, then any user directories over them."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from stackcheck.errors import StackcheckError
from stackcheck.matrix.models import TABLE_KEYS, Matrix

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

META_KEYS = ("version", "built", "primary_sources")


def bundled_dir() -> Path:
    """``stackcheck/matrices`` in an installed wheel; the checkout's ``matrices/`` otherwise."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "matrices"
    return installed if installed.is_dir() else package.parent / "matrices"


def read_tables(directory: Path) -> dict[str, Any]:
    """The top-level keys of every ``*.toml`` in ``directory``; tables from several files join."""
    if not directory.is_dir():
        raise StackcheckError(f"matrix directory {directory} does not exist")
    merged: dict[str, Any] = {}
    for path in sorted(directory.glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
            raise StackcheckError(f"matrix file {path}: {exc}") from None
        for key, value in data.items():
            if key in META_KEYS:
                merged[key] = value
            elif key not in TABLE_KEYS:
                raise StackcheckError(f"matrix file {path}: unknown table {key!r}")
            elif not isinstance(value, list):
                raise StackcheckError(f"matrix file {path}: {key!r} must be an array of tables")
            else:
                merged.setdefault(key, []).extend(value)
    return merged


def _entry_key(table: str, entry: Any) -> tuple[Any, ...]:
    if not isinstance(entry, dict):
        return (id(entry),)
    return tuple(entry.get(k) for k in TABLE_KEYS[table])


def overlay(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``extra``'s entries replace ``base``'s entries with the same key, and add the rest."""
    result = dict(base)
    for table, entries in extra.items():
        if table in META_KEYS:
            continue
        by_key = {_entry_key(table, e): e for e in result.get(table, [])}
        for entry in entries:
            by_key[_entry_key(table, entry)] = entry
        result[table] = list(by_key.values())
    return result


def build(data: dict[str, Any], origin: str) -> Matrix:
    try:
        return Matrix.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise StackcheckError(
            f"{origin}: invalid matrix entry at {where}: {first['msg']}"
        ) from None


def load_matrix(extra_dirs: Sequence[str | Path] = ()) -> Matrix:
    """The bundled matrix with ``extra_dirs`` (user matrices) laid over it, in order."""
    data = read_tables(bundled_dir())
    for directory in extra_dirs:
        data = overlay(data, read_tables(Path(directory)))
    return build(data, "matrix")
