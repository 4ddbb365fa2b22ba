"""The output-format interfaces: a report (or a plan) in, text out. One format per module."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar

from stackcheck.check.model import Report
from stackcheck.fleet.model import FleetReport

if TYPE_CHECKING:
    from stackcheck.plan.model import PlanReport


class ReportFormat(ABC):
    name: ClassVar[str]

    @abstractmethod
    def render(self, report: Report) -> str: ...


class PlanFormat(ABC):
    """`stackcheck plan`'s output: the same format names as reports."""

    name: ClassVar[str]

    @abstractmethod
    def render_plan(self, plan: PlanReport) -> str: ...


class FleetReportFormat(ABC):
    """The same, for a fleet report."""

    name: ClassVar[str]

    @abstractmethod
    def render(self, report: FleetReport) -> str: ...
