"""Output formats for reports. The CLI picks one by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from stackcheck.formats.base import ReportFormat
from stackcheck.formats.github import GithubFormat
from stackcheck.formats.json import JsonFormat
from stackcheck.formats.markdown import MarkdownFormat
from stackcheck.formats.sarif import SarifFormat
from stackcheck.formats.text import TextFormat, use_colour


@dataclass(frozen=True)
class FormatOptions:
    colour: bool = False
    show_suppressed: bool = False


_FACTORIES: dict[str, Callable[[FormatOptions], ReportFormat]] = {
    "text": lambda o: TextFormat(colour=o.colour, show_suppressed=o.show_suppressed),
    "json": lambda _: JsonFormat(),
    "sarif": lambda _: SarifFormat(),
    "github": lambda _: GithubFormat(),
    "markdown": lambda _: MarkdownFormat(),
}
FORMAT_NAMES = tuple(_FACTORIES)


def get_format(
    name: str, show_suppressed: bool = False, colour: bool | None = None
) -> ReportFormat:
    options = FormatOptions(use_colour() if colour is None else colour, show_suppressed)
    return _FACTORIES[name](options)


__all__ = ["FORMAT_NAMES", "FormatOptions", "ReportFormat", "get_format"]
