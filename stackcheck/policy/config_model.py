"""The shape of ``.stackcheck.toml`` / ``[tool.stackcheck]``, checked by a model so that each
wrong key or type is named. Imported only when a configuration file exists."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Level = Literal["error", "warning", "info"]
FailOn = Literal["error", "warning", "info", "never"]  # stackcheck.policy.levels.FAIL_ON


class ConfigTable(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    ignore: list[str] = Field(default_factory=list, description="rule IDs to suppress")
    severity: dict[str, Level] = Field(default_factory=dict, description="rule ID -> level")
    fail_on: FailOn | None = Field(default=None, alias="fail-on")
    matrix_dirs: list[str] = Field(default_factory=list, alias="matrix-dirs")


_KNOWN = "fail-on, ignore, matrix-dirs, severity"
_MESSAGES = {
    "list_type": "must be a list",
    "dict_type": "must be a table",
    "string_type": "must be a string",
    "literal_error": "must be one of {expected}",
}


def problems(error: ValidationError) -> list[str]:
    """One phrase per wrong key or type: ``severity.SC101: must be one of error, ...``."""
    found = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(top)"
        kind = item["type"]
        if kind == "extra_forbidden":
            found.append(f"unknown key {where!r} (known: {_KNOWN})")
            continue
        expected = str((item.get("ctx") or {}).get("expected", "")).replace("'", "")
        message = _MESSAGES[kind].format(expected=expected) if kind in _MESSAGES else item["msg"]
        found.append(f"{where}: {message}")
    return found
