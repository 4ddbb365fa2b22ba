"""Output formats for reports. The CLI picks one by name."""

from __future__ import annotations

from collections.abc import Callable

from stackcheck.formats.base import PlanFormat, ReportFormat
from stackcheck.formats.json import JsonFormat
from stackcheck.formats.text import TextFormat, use_colour

_FACTORIES: dict[str, Callable[[bool], ReportFormat]] = {
    "text": lambda colour: TextFormat(colour=colour),
    "json": lambda _colour: JsonFormat(),
}
FORMAT_NAMES = tuple(_FACTORIES)


def _plan_text(colour: bool) -> PlanFormat:
    # Imported here: the plan models are not needed by `stackcheck probe`, which must start fast.
    from stackcheck.formats.plan_text import PlanTextFormat

    return PlanTextFormat(colour=colour)


_PLAN_FACTORIES: dict[str, Callable[[bool], PlanFormat]] = {
    "text": _plan_text,
    "json": lambda _colour: JsonFormat(),
}
PLAN_FORMAT_NAMES = tuple(_PLAN_FACTORIES)


def get_format(name: str, colour: bool | None = None) -> ReportFormat:
    return _FACTORIES[name](use_colour() if colour is None else colour)


def get_plan_format(name: str, colour: bool | None = None) -> PlanFormat:
    return _PLAN_FACTORIES[name](use_colour() if colour is None else colour)


__all__ = [
    "FORMAT_NAMES",
    "PLAN_FORMAT_NAMES",
    "JsonFormat",
    "PlanFormat",
    "ReportFormat",
    "TextFormat",
    "get_format",
    "get_plan_format",
]
