"""node-problem-detector's custom plugin protocol: one line on stdout, which NPD cuts at its
``max_output_length`` (80 by default) and sets as the condition's message; the exit code (0 OK,
1 problem, 2 unknown) is the command's, decided by --fail-on like every other format's."""

from __future__ import annotations

from stackcheck.check.model import Report, failing
from stackcheck.formats.base import ReportFormat

MAX_MESSAGE = 80  # NPD's default max_output_length; the example config sets the same


def one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


class NpdFormat(ReportFormat):
    name = "npd"

    def __init__(self, fail_on: str, limit: int = MAX_MESSAGE) -> None:
        self.fail_on = fail_on
        self.limit = limit

    def render(self, report: Report) -> str:
        bad = failing(report.findings, self.fail_on)
        if bad:
            ids = ",".join(dict.fromkeys(f.id for f in bad))
            message = f"{ids}: {bad[0].title}"
        elif self.fail_on == "never":
            message = "stack checked: --fail-on never"
        else:  # the same words every time: a changing message would churn the condition
            message = f"stack healthy: no finding at {self.fail_on} or above"
        return one_line(message, self.limit) + "\n"
