"""The versioned JSON fleet report (``kind: stackcheck-fleet-report``); see docs/fleet.md."""

from __future__ import annotations

from stackcheck.fleet.model import FleetReport
from stackcheck.formats.base import FleetReportFormat


class FleetJsonFormat(FleetReportFormat):
    name = "json"

    def render(self, report: FleetReport) -> str:
        return report.model_dump_json(indent=2) + "\n"
