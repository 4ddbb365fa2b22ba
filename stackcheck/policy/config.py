"""Configuration in ``.stackcheck.toml`` or ``[tool.stackcheck]`` of ``pyproject.toml``.

Keys: ``ignore`` (rule IDs), ``severity`` (rule ID -> error/warning/info), ``fail-on``,
``matrix-dirs`` (extra matrix directories, relative to the file). Anything else, an unknown rule
ID or malformed TOML is an error: a typo must not silently switch a check off.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stackcheck.check.model import Severity
from stackcheck.errors import StackcheckError
from stackcheck.policy.levels import FAIL_ON

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_FILE = ".stackcheck.toml"
PYPROJECT = "pyproject.toml"
_KEYS = {"ignore", "severity", "fail-on", "matrix-dirs"}


@dataclass(frozen=True)
class Config:
    origin: str = "defaults"
    ignore: frozenset[str] = frozenset()
    severity: dict[str, Severity] = field(default_factory=dict)
    fail_on: str | None = None
    matrix_dirs: tuple[str, ...] = ()


def find_config(explicit: str | None, directory: Path) -> Path | None:
    """``--config PATH``, else ``.stackcheck.toml``, else pyproject.toml with [tool.stackcheck]."""
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise StackcheckError(f"config {explicit}: no such file")
        return path
    if (directory / CONFIG_FILE).is_file():
        return directory / CONFIG_FILE
    pyproject = directory / PYPROJECT
    if (
        pyproject.is_file()
        and "tool" in _read(pyproject)
        and "stackcheck" in _read(pyproject)["tool"]
    ):
        return pyproject
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
        return data
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise StackcheckError(f"config {path}: malformed TOML: {exc}") from None
    except OSError as exc:
        raise StackcheckError(f"config {path}: {exc.strerror or exc}") from None


def load_config(path: Path | None, known_rules: set[str]) -> Config:
    if path is None:
        return Config()
    data = _read(path)
    table: Any = data.get("tool", {}).get("stackcheck", {}) if path.name == PYPROJECT else data
    if not isinstance(table, dict):
        raise StackcheckError(f"config {path}: [tool.stackcheck] must be a table")
    unknown = set(table) - _KEYS
    if unknown:
        raise StackcheckError(
            f"config {path}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(_KEYS))})"
        )

    def rule_ids(values: Any, key: str) -> list[str]:
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise StackcheckError(f"config {path}: {key} must be a list of rule IDs")
        ids = [v.strip().upper() for v in values]
        for rule_id in ids:
            if rule_id not in known_rules:
                raise StackcheckError(f"config {path}: unknown rule ID {rule_id!r} in {key}")
        return ids

    ignore = rule_ids(table.get("ignore", []), "ignore")
    levels = table.get("severity", {})
    if not isinstance(levels, dict):
        raise StackcheckError(f"config {path}: severity must be a table of rule ID = level")
    severity: dict[str, Severity] = {}
    for rule_id, level in levels.items():
        [checked] = rule_ids([rule_id], "severity")
        if level not in {s.value for s in Severity}:
            raise StackcheckError(
                f"config {path}: severity of {rule_id} must be error, warning or info"
            )
        severity[checked] = Severity(level)
    fail_on = table.get("fail-on")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise StackcheckError(f"config {path}: fail-on must be one of {', '.join(FAIL_ON)}")
    dirs = table.get("matrix-dirs", [])
    if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
        raise StackcheckError(f"config {path}: matrix-dirs must be a list of directories")
    return Config(
        origin=str(path),
        ignore=frozenset(ignore),
        severity=severity,
        fail_on=fail_on,
        matrix_dirs=tuple(str((path.parent / d).resolve()) for d in dirs),
    )
