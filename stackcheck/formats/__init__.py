"""Output formats for reports. The CLI picks one by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from stackcheck.formats.base import PlanFormat, ReportFormat
from stackcheck.formats.github import GithubFormat
from stackcheck.formats.json import JsonFormat
from stackcheck.formats.markdown import MarkdownFormat
from stackcheck.formats.prometheus import PrometheusFormat, RunFacts
from stackcheck.formats.sarif import SarifFormat
from stackcheck.formats.text import TextFormat, use_colour


@dataclass(frozen=True)
class FormatOptions:
    colour: bool = False
    show_suppressed: bool = False
    run: RunFacts | None = None  # when the check ran and how long it took (prometheus)


_FACTORIES: dict[str, Callable[[FormatOptions], ReportFormat]] = {
    "text": lambda o: TextFormat(colour=o.colour, show_suppressed=o.show_suppressed),
    "json": lambda _: JsonFormat(),
    "sarif": lambda _: SarifFormat(),
    "github": lambda _: GithubFormat(),
    "markdown": lambda _: MarkdownFormat(),
    "prometheus": lambda o: PrometheusFormat(o.run),
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


def get_format(
    name: str,
    show_suppressed: bool = False,
    colour: bool | None = None,
    run: RunFacts | None = None,
) -> ReportFormat:
    options = FormatOptions(use_colour() if colour is None else colour, show_suppressed, run)
    return _FACTORIES[name](options)


def get_plan_format(name: str, colour: bool | None = None) -> PlanFormat:
    return _PLAN_FACTORIES[name](use_colour() if colour is None else colour)


__all__ = [
    "FORMAT_NAMES",
    "PLAN_FORMAT_NAMES",
    "FormatOptions",
    "JsonFormat",
    "PlanFormat",
    "ReportFormat",
    "get_format",
    "get_plan_format",
]
