"""The human fleet report: the distinct stacks, drift, per-node findings grouped with the nodes
that have them, and every node that gave no snapshot."""

from __future__ import annotations

from stackcheck.check.model import Finding, Severity
from stackcheck.fleet.model import FleetReport, NodeFinding
from stackcheck.formats.base import FleetReportFormat
from stackcheck.formats.text import Writer, render_finding
from stackcheck.snapshot.model import ComponentName, Snapshot

_HEADLINE = (
    ComponentName.DRIVER,
    ComponentName.CUDA_TOOLKIT,
    ComponentName.NCCL,
    ComponentName.OFI_NCCL,
    ComponentName.TORCH,
)
MAX_STACKS = 12  # the largest stacks are listed; the JSON report has all of them


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


_MAX_DIFFERENCES = 4


def _aspects(snapshot: Snapshot) -> dict[str, str]:
    """Everything a stack's report shows, aspect by aspect, to say where two stacks differ."""
    platform = snapshot.platform
    aspects = {
        "platform": " ".join(p for p in (platform.os, platform.kernel, platform.machine) if p),
        "GPUs": ", ".join(gpu.name for gpu in snapshot.gpus.devices),
        "EFA devices": ", ".join(snapshot.runtime.efa_devices or []),
    }
    for name in ComponentName:
        component = snapshot.components.get(name)
        installations = component.installations if component else []
        aspects[name.display_name] = "; ".join(
            " ".join(p for p in (i.version or "?", i.origin, i.path) if p) for i in installations
        )
    for variable, value in snapshot.env.items():
        aspects[variable] = value.value or ""
    return aspects


def headlines(snapshots: list[Snapshot]) -> list[str]:
    """Each stack's headline; where two would read the same, each adds what tells it apart."""
    lines = [headline(s) for s in snapshots]
    alike: dict[str, list[int]] = {}
    for index, line in enumerate(lines):
        alike.setdefault(line, []).append(index)
    for group in alike.values():
        if len(group) < 2:
            continue
        aspects = [_aspects(snapshots[i]) for i in group]
        keys = list(dict.fromkeys(k for a in aspects for k in a))
        differing = [k for k in keys if len({a.get(k, "") for a in aspects}) > 1]
        for index, own in zip(group, aspects, strict=True):
            shown = [f"{k} {own.get(k) or 'unset'}" for k in differing[:_MAX_DIFFERENCES]]
            more = len(differing) - _MAX_DIFFERENCES
            if more > 0:
                shown.append(f"{more} more (--format json)")
            lines[index] += " · differs: " + ", ".join(shown)
    return lines


class FleetTextFormat(FleetReportFormat):
    name = "text"

    def __init__(self, colour: bool = False) -> None:
        self.colour = colour

    @staticmethod
    def _finding(out: Writer, finding: Finding) -> None:
        where = None
        if isinstance(finding, NodeFinding):
            where = f"on {finding.count} of {finding.out_of} nodes: {finding.nodes}"
        render_finding(finding, out, where)

    def render(self, report: FleetReport) -> str:
        out = Writer(self.colour)
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
        listed = report.stacks[:MAX_STACKS]
        lines = headlines([stack.report.snapshot for stack in listed])
        for stack, line in zip(listed, lines, strict=True):
            out.wrapped(f"{stack.id}  {_plural(stack.count, 'node')}: {stack.nodes}", 2)
            out.wrapped(line, 16)
        rest = report.stacks[MAX_STACKS:]
        if rest:
            nodes = sum(s.count for s in rest)
            out.wrapped(
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
                out.wrapped(f"{silent.reason:<12} {silent.nodes}: {silent.detail}", 2)
        for note in report.notes:
            out.lines.append(f"Note: {note}")
        return "\n".join(out.lines) + "\n"
