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

from stackcheck import limits
from stackcheck.check.model import Severity
from stackcheck.errors import StackcheckError
from stackcheck.inputs import check_regular, read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_FILE = ".stackcheck.toml"
PYPROJECT = "pyproject.toml"


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
        if not path.exists():
            raise StackcheckError(f"config {explicit}: no such file")
        check_regular(path, "config")  # a FIFO would block the read
        return path
    if (directory / CONFIG_FILE).is_file():
        return directory / CONFIG_FILE
    pyproject = directory / PYPROJECT
    if pyproject.is_file() and _tool_table(_read(pyproject)) is not None:
        return pyproject
    return None


def _tool_table(data: dict[str, Any]) -> Any:
    """``[tool.stackcheck]`` of a pyproject.toml, or None."""
    tool = data.get("tool")
    return tool.get("stackcheck") if isinstance(tool, dict) else None


def _read(path: Path) -> dict[str, Any]:
    raw, _ = read_regular(path, "config", limits.CONFIG_FILE_BYTES)
    try:
        data: dict[str, Any] = tomllib.loads(raw.decode("utf-8"))
        return data
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise StackcheckError(f"config {path}: malformed TOML: {exc}") from None
    except RecursionError:
        raise StackcheckError(f"config {path}: malformed TOML: nested too deeply") from None


def load_config(path: Path | None, known_rules: set[str]) -> Config:
    if path is None:
        return Config()
    data = _read(path)
    table: Any = (_tool_table(data) or {}) if path.name == PYPROJECT else data
    if not isinstance(table, dict):
        raise StackcheckError(f"config {path}: [tool.stackcheck] must be a table")
    from pydantic import ValidationError

    from stackcheck.policy.config_model import ConfigTable, problems

    try:
        parsed = ConfigTable.model_validate(table)
    except ValidationError as exc:
        raise StackcheckError(f"config {path}: {'; '.join(problems(exc))}") from None

    def rule_id(value: str, key: str) -> str:
        checked = value.strip().upper()
        if checked not in known_rules:
            raise StackcheckError(f"config {path}: unknown rule ID {checked!r} in {key}")
        return checked

    return Config(
        origin=str(path),
        ignore=frozenset(rule_id(v, "ignore") for v in parsed.ignore),
        severity={rule_id(k, "severity"): Severity(v) for k, v in parsed.severity.items()},
        fail_on=parsed.fail_on,
        matrix_dirs=tuple(_directory(path, d) for d in parsed.matrix_dirs),
    )


def _directory(config: Path, value: str) -> str:
    try:
        return str((config.parent / value).resolve())
    except (OSError, ValueError, RuntimeError) as exc:  # a NUL byte, a symlink loop
        raise StackcheckError(f"config {config}: matrix-dirs entry {value!r}: {exc}") from None
