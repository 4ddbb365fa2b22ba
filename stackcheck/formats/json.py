"""The versioned JSON report: the machine-readable contract."""

from __future__ import annotations

from stackcheck.check.model import Report
from stackcheck.formats.base import ReportFormat


class JsonFormat(ReportFormat):
    name = "json"

    def render(self, report: Report) -> str:
        return report.model_dump_json(indent=2) + "\n"
