"""The output-format interface: a report in, text out. One format per module."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from stackcheck.check.model import Report
from stackcheck.fleet.model import FleetReport


class ReportFormat(ABC):
    name: ClassVar[str]

    @abstractmethod
    def render(self, report: Report) -> str: ...


class FleetReportFormat(ABC):
    """The same, for a fleet report."""

    name: ClassVar[str]

    @abstractmethod
    def render(self, report: FleetReport) -> str: ...
