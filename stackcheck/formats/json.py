"""The versioned JSON report and plan: the machine-readable contracts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from stackcheck.check.model import Report
from stackcheck.formats.base import PlanFormat, ReportFormat

if TYPE_CHECKING:
    from stackcheck.plan.model import PlanReport


def _dump(model: BaseModel) -> str:
    return model.model_dump_json(indent=2) + "\n"


class JsonFormat(ReportFormat, PlanFormat):
    name = "json"

    def render(self, report: Report) -> str:
        return _dump(report)

    def render_plan(self, plan: PlanReport) -> str:
        return _dump(plan)
