"""The Markdown summary: a stack table, a findings table and the recommendations.

The same text serves `--format markdown` and GitHub's step summary, which takes at most 1 MiB
per step; a longer summary is cut at a row boundary with a note saying so.
"""

from __future__ import annotations

from stackcheck.check.model import Report, Severity
from stackcheck.formats.base import ReportFormat
from stackcheck.snapshot.model import ComponentName

SUMMARY_LIMIT = 1 << 20
_ICONS = {Severity.ERROR: "🔴 error", Severity.WARNING: "🟠 warning", Severity.INFO: "🔵 info"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


class MarkdownFormat(ReportFormat):
    name = "markdown"

    def render(self, report: Report) -> str:
        snapshot = report.snapshot
        counts = ", ".join(f"{report.count(s)} {s.value}" for s in Severity)
        head = [
            f"## stackcheck: {snapshot.source.kind} `{_cell(snapshot.source.target)}`",
            "",
            f"**{counts}** · matrix {report.matrix_version} · "
            f"stackcheck {report.stackcheck_version}",
            "",
            "### Stack",
            "",
            "| component | version | read from |",
            "|---|---|---|",
        ]
        stack = []
        if snapshot.gpus.devices:
            names = sorted({g.name for g in snapshot.gpus.devices})
            stack.append(f"| GPUs | {len(snapshot.gpus.devices)}x {_cell(', '.join(names))} | |")
        if snapshot.instance.type:
            stack.append(f"| Instance | {snapshot.instance.type} | |")
        for name in ComponentName:
            for installation in snapshot.installations(name):
                where = installation.evidence[0].source if installation.evidence else ""
                version = installation.version or "unknown"
                stack.append(f"| {name.display_name} | {_cell(version)} | `{_cell(where)}` |")
        findings = ["", "### Findings", ""]
        if report.findings:
            findings += ["| severity | rule | finding | fix |", "|---|---|---|---|"]
            findings += [
                f"| {_ICONS[f.severity]} | `{f.id}` {_cell(f.title)} | {_cell(f.message)} "
                f"| {_cell(f.fix)} |"
                for f in report.findings
            ]
        else:
            findings.append("No findings.")
        tail = ["", "### Recommendations", ""]
        tail += [
            f"- **{r.kind.upper()}** `{_cell(r.name)}`: {_cell(r.reason)}"
            + (f" ({_cell('; '.join(r.changes))})" if r.changes else "")
            for r in report.recommendations
        ] or ["None from the matrix for what was found."]
        if report.suppressed:
            tail += ["", f"<details><summary>{len(report.suppressed)} suppressed</summary>", ""]
            tail += [
                f"- `{s.finding.id}` {_cell(s.finding.message)} — {_cell(s.reason)}"
                for s in report.suppressed
            ]
            tail += ["", "</details>"]
        return _fit([*head, *stack, *findings, *tail])


def _fit(lines: list[str]) -> str:
    """Join lines, cutting at a line boundary to stay within GitHub's summary limit."""
    note = (
        "\n\n_Summary cut to fit GitHub's 1 MiB limit; the JSON and SARIF reports are complete._\n"
    )
    out: list[str] = []
    size = 0
    for line in lines:
        size += len(line.encode()) + 1
        if size > SUMMARY_LIMIT - len(note.encode()):
            return "\n".join(out) + note
        out.append(line)
    return "\n".join(out) + "\n"
