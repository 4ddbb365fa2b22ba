"""The human fleet report: the distinct stacks, drift, per-node findings grouped with the nodes
that have them, and every node that gave no snapshot."""

from __future__ import annotations

import textwrap

from stackcheck.check.model import Finding, Severity
from stackcheck.fleet.model import FleetReport, NodeFinding
from stackcheck.formats.base import FleetReportFormat
from stackcheck.formats.text import _COLOURS, _Writer
from stackcheck.snapshot.model import ComponentName, Snapshot

_HEADLINE = (
    ComponentName.DRIVER,
    ComponentName.CUDA_TOOLKIT,
    ComponentName.NCCL,
    ComponentName.OFI_NCCL,
    ComponentName.TORCH,
)
_EVIDENCE_WIDTH = 88
MAX_STACKS = 12  # the largest stacks are listed; the JSON report has all of them
_WIDTH = 100


def _wrapped(out: _Writer, text: str, indent: int) -> None:
    """Wrapped at spaces only: a hostlist (p5-[001-016,018-064]) is never cut."""
    pad = " " * indent
    out.lines.extend(
        textwrap.wrap(
            text,
            _WIDTH,
            initial_indent=pad,
            subsequent_indent=pad,
            break_on_hyphens=False,
            break_long_words=False,
        )
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _severities(findings: list[Finding]) -> str:
    counts = [sum(1 for f in findings if f.severity is s) for s in Severity]
    words = ("error", "warning", "info")
    return ", ".join(_plural(n, w) for n, w in zip(counts, words, strict=True))


def headline(snapshot: Snapshot) -> str:
    """One line that tells stacks apart: instance, GPUs, EFA and the key components."""
    parts = []
    if snapshot.instance.type:
        parts.append(snapshot.instance.type)
    counts: dict[str, int] = {}
    for gpu in snapshot.gpus.devices:
        counts[gpu.name] = counts.get(gpu.name, 0) + 1
    parts.extend(f"{n}x {name}" for name, n in counts.items())
    if snapshot.runtime.efa_devices:
        parts.append(f"{len(snapshot.runtime.efa_devices)} EFA")
    for name in _HEADLINE:
        found = snapshot.component(name).versions
        if found:
            parts.append(f"{name.display_name} {'/'.join(found)}")
    return " · ".join(parts) or "nothing found"


class FleetTextFormat(FleetReportFormat):
    name = "text"

    def __init__(self, colour: bool = False) -> None:
        self.colour = colour

    def _finding(self, out: _Writer, finding: Finding) -> None:
        level = out.paint(f"{finding.severity.value:<7}", _COLOURS[finding.severity])
        out.lines.append(f"  {level} {finding.id} {finding.title}")
        if isinstance(finding, NodeFinding):
            _wrapped(out, f"on {finding.count} of {finding.out_of} nodes: {finding.nodes}", 10)
        _wrapped(out, finding.message, 10)
        for evidence in finding.evidence[:2]:
            shown = textwrap.shorten(evidence.describe(), _EVIDENCE_WIDTH, placeholder=" ...")
            out.lines.append(f"          evidence: {shown}")
        _wrapped(out, f"fix: {finding.fix}", 10)
        out.lines.append(f"          docs: {finding.docs}")

    def render(self, report: FleetReport) -> str:
        out = _Writer(self.colour)
        summary = report.summary
        out.lines.append(f"stackcheck {report.stackcheck_version} · matrix {report.matrix_version}")
        out.lines.append("")
        out.lines.append(
            f"Fleet of {_plural(summary.nodes, 'node')}: {summary.answered} answered with "
            f"{_plural(summary.stacks, 'distinct stack')}, {summary.no_answer} gave no snapshot"
        )
        out.lines.append(f"  from {report.source}")
        if report.stacks:
            out.lines.append("")
            out.lines.append("Stacks")
        for stack in report.stacks[:MAX_STACKS]:
            _wrapped(out, f"{stack.id}  {_plural(stack.count, 'node')}: {stack.nodes}", 2)
            _wrapped(out, headline(stack.report.snapshot), 16)
        rest = report.stacks[MAX_STACKS:]
        if rest:
            nodes = sum(s.count for s in rest)
            _wrapped(
                out,
                f"and {len(rest)} more stacks on {_plural(nodes, 'node')} "
                "(--format json lists them all)",
                2,
            )
        out.lines.append("")
        drift: list[Finding] = list(report.drift)
        out.lines.append(f"Drift: {_severities(drift)}" if drift else "Drift: none")
        for finding in drift:
            self._finding(out, finding)
        out.lines.append("")
        findings: list[Finding] = list(report.findings)
        head = f"Findings on nodes: {_severities(findings)}" if findings else "Findings: none"
        out.lines.append(head)
        for finding in findings:
            self._finding(out, finding)
        if report.no_answer:
            out.lines.append("")
            out.lines.append(f"No snapshot from {_plural(summary.no_answer, 'node')}")
            for silent in report.no_answer:
                _wrapped(out, f"{silent.reason:<12} {silent.nodes}: {silent.detail}", 2)
        for note in report.notes:
            out.lines.append(f"Note: {note}")
        return "\n".join(out.lines) + "\n"
