"""GitHub Actions workflow commands: annotations within GitHub's limits.

A step shows at most 10 error, 10 warning and 10 notice annotations; more are silently dropped.
So findings go out most severe first, at most 10 per level, and a log line says how many more
there are (the step summary and the SARIF file have them all).
"""

from __future__ import annotations

from stackcheck.check.model import Finding, Report, Severity
from stackcheck.formats.base import ReportFormat

PER_LEVEL = 10
_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding, target: str) -> str:
    located = next((e for e in finding.evidence if e.line is not None), None)
    properties = [f"file={_property(located.source)}", f"line={located.line}"] if located else []
    properties.append(f"title={_property(f'{finding.id} {finding.title}')}")
    message = f"{finding.message} Fix: {finding.fix} ({finding.docs}; {target})"
    return f"::{_COMMANDS[finding.severity]} {','.join(properties)}::{_data(message)}"


class GithubFormat(ReportFormat):
    name = "github"

    def render(self, report: Report) -> str:
        lines = []
        shown = dict.fromkeys(Severity, 0)
        left = 0
        for finding in report.findings:
            if shown[finding.severity] < PER_LEVEL:
                shown[finding.severity] += 1
                lines.append(annotation(finding, report.snapshot.source.target))
            else:
                left += 1
        if left:
            lines.append(
                f"stackcheck: {left} more finding(s) not annotated (GitHub shows {PER_LEVEL} per "
                "level and step); the step summary and the SARIF file list them all."
            )
        if report.suppressed:
            lines.append(f"stackcheck: {len(report.suppressed)} finding(s) suppressed by policy.")
        return "\n".join(lines) + ("\n" if lines else "")
