"""The output-format interface: a report in, text out. One format per module."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from stackcheck.check.model import Report


class ReportFormat(ABC):
    name: ClassVar[str]

    @abstractmethod
    def render(self, report: Report) -> str: ...
