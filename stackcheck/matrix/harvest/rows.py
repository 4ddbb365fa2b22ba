"""What a harvest is, how it prints as TOML, and how it compares with the bundled matrix."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from stackcheck.matrix.models import Matrix, entry_key

Row = dict[str, Any]
# Fields about the reading itself, not facts to compare.
_META = ("source", "checked", "note", "via", "unsure")


@dataclass
class Harvest:
    table: str  # a Matrix field: "efa_installer"
    rows: list[Row] = field(default_factory=list)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, date)):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def to_toml(harvest: Harvest) -> str:
    """The rows as the matrix files write them; a list of tables becomes ``[[table.key]]``."""
    out = []
    for row in harvest.rows:
        out.append(f"[[{harvest.table}]]")
        nested = {
            k: v for k, v in row.items() if isinstance(v, list) and v and isinstance(v[0], dict)
        }
        out += [f"{k} = {_scalar(v)}" for k, v in row.items() if k not in nested and v is not None]
        for key, items in nested.items():
            for item in items:
                out += ["", f"[[{harvest.table}.{key}]]"]
                out += [f"{k} = {_scalar(v)}" for k, v in item.items() if v is not None]
        out.append("")
    return "\n".join(out)


def _differences(where: str, fresh: Mapping[str, Any], bundled: Mapping[str, Any]) -> list[str]:
    found = []
    for name, value in fresh.items():
        if name in _META or value is None:
            continue
        have = bundled.get(name)
        if isinstance(value, list) and value and isinstance(value[0], dict):
            found += _nested(f"{where} {name}", value, have or [])
        elif _norm(value) != _norm(have):
            found.append(f"{where}: {name}: matrix {have!r}, source {value!r}")
    return found


def _nested(where: str, fresh: Sequence[Row], bundled: Sequence[Row]) -> list[str]:
    """Nested rows (torch variants) pair up by their first field (``cuda``)."""
    found = []
    for item in fresh:
        first = next(iter(item))
        match = next((b for b in bundled if str(b.get(first)) == str(item[first])), None)
        label = f"{where} {first}={item[first]}"
        if match is None:
            found.append(f"{label}: not in the matrix")
        else:
            found += _differences(label, item, match)
    return found


def _norm(value: Any) -> Any:
    if isinstance(value, list):
        return [_norm(v) for v in value]
    return str(value) if value is not None else None


def check(harvest: Harvest, matrix: Matrix) -> list[str]:
    """Every difference between a fresh harvest and the bundled matrix, one line each; only the
    fields the harvester reads are compared, and rows the harvest lacks are not reported."""
    bundled = {
        entry_key(harvest.table, e): e
        for e in (x.model_dump(mode="json") for x in getattr(matrix, harvest.table))
    }
    found = []
    for row in harvest.rows:
        key = entry_key(harvest.table, row)
        label = f"{harvest.table} {' '.join(key)}"
        entry = bundled.get(key)
        if entry is None:
            found.append(f"{label}: not in the matrix")
        else:
            found += _differences(label, row, entry)
    return found


def version_in(text: str, pattern: str) -> str | None:
    """The first group of ``pattern`` in ``text``, or None."""
    match = re.search(pattern, text)
    return match.group(1) if match else None
