"""The Prometheus text exposition format (0.0.4), as node_exporter's textfile collector reads it.

One file per run, every sample without a timestamp (the collector refuses timestamps), every
family with HELP and TYPE. All metrics are gauges: a check is a picture of now, not a count that
only grows. Metric and label names follow Prometheus' conventions (``stackcheck_`` prefix, base
units in the name, ``_info`` metrics with the value 1 carrying text in labels). The list, with
PromQL for a dashboard, is in docs/operations.md.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone

from stackcheck import __version__
from stackcheck.check.model import Finding, Report, Severity
from stackcheck.fleet.model import FleetReport
from stackcheck.formats.base import FleetReportFormat, ReportFormat
from stackcheck.snapshot.model import Snapshot

SEVERITIES = tuple(Severity)

Labels = tuple[tuple[str, str], ...]


def escape_label(value: str) -> str:
    """A label value as the format requires: backslash, double quote and line feed escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass
class Family:
    """One metric family: its samples keyed by their labels, so a label set appears once."""

    name: str
    help: str
    samples: dict[Labels, float] = field(default_factory=dict)

    def set(self, value: float, **labels: str) -> None:
        self.samples[tuple(labels.items())] = value

    def add(self, value: float, **labels: str) -> None:
        key = tuple(labels.items())
        self.samples[key] = self.samples.get(key, 0) + value

    def render(self) -> str:
        lines = [f"# HELP {self.name} {_escape_help(self.help)}", f"# TYPE {self.name} gauge"]
        for labels, value in self.samples.items():
            inner = ",".join(f'{k}="{escape_label(v)}"' for k, v in labels)
            lines.append(
                f"{self.name}{{{inner}}} {_number(value)}"
                if inner
                else f"{self.name} {_number(value)}"
            )
        return "\n".join(lines) + "\n"


def _timestamp(moment: datetime | date) -> float:
    if not isinstance(moment, datetime):
        moment = datetime(moment.year, moment.month, moment.day, tzinfo=timezone.utc)
    elif moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def _finding_labels(finding: Finding) -> dict[str, str]:
    return {
        "rule": finding.id,
        "family": finding.family,
        "severity": finding.severity.value,
        "title": finding.title,
    }


def _component_labels(snapshot: Snapshot) -> Iterable[dict[str, str]]:
    """Each (component, version, origin) with a version once: two copies of one version from
    one origin (two site-packages) are one series."""
    for name, component in snapshot.components.items():
        for installation in component.installations:
            if installation.version:
                yield {
                    "component": name.value,
                    "version": installation.version,
                    "origin": installation.origin,
                }


@dataclass
class RunFacts:
    """What the report does not hold: when the check ran and how long it took."""

    now: datetime
    duration: float | None = None


class _Exposition:
    """The families of one output, in the order they are written."""

    def __init__(self) -> None:
        self.families: dict[str, Family] = {}

    def family(self, name: str, help: str) -> Family:
        return self.families.setdefault(name, Family(name, help))

    def common(self, run: RunFacts, matrix_version: str, matrix_built: date | None) -> None:
        self.family("stackcheck_build_info", "The stackcheck that wrote these metrics.").set(
            1, version=__version__
        )
        self.family("stackcheck_matrix_info", "The compatibility matrix the check used.").set(
            1, version=matrix_version
        )
        if matrix_built is not None:
            built = _timestamp(matrix_built)
            self.family(
                "stackcheck_matrix_built_timestamp_seconds",
                "When the matrix was built (Unix time, the start of its date in UTC).",
            ).set(built)
            self.family(
                "stackcheck_matrix_age_seconds", "Age of the matrix when the check ran."
            ).set(round(max(0.0, _timestamp(run.now) - built)))
        self.family(
            "stackcheck_check_timestamp_seconds", "When the check finished (Unix time)."
        ).set(round(_timestamp(run.now), 3))
        if run.duration is not None:
            self.family(
                "stackcheck_check_duration_seconds",
                "How long the check took: probe, matrix, rules and report.",
            ).set(round(run.duration, 6))

    def render(self) -> str:
        return "".join(f.render() for f in self.families.values() if f.samples)


class PrometheusFormat(ReportFormat, FleetReportFormat):
    name = "prometheus"

    def __init__(self, run: RunFacts | None = None) -> None:
        self.run = run or RunFacts(datetime.now(timezone.utc))

    def render(self, report: Report | FleetReport) -> str:
        if isinstance(report, FleetReport):
            return self._fleet(report)
        return self._report(report)

    def _report(self, report: Report) -> str:
        out = _Exposition()
        out.common(self.run, report.matrix_version, report.matrix_built)
        out.family(
            "stackcheck_snapshot_timestamp_seconds", "When the stack was probed (Unix time)."
        ).set(_timestamp(report.snapshot.taken_at))
        by_severity = out.family(
            "stackcheck_findings_by_severity",
            "Findings at each severity (suppressed ones not counted); 0 when there are none.",
        )
        counts = Counter(f.severity for f in report.findings)
        for severity in SEVERITIES:
            by_severity.set(counts[severity], severity=severity.value)
        findings = out.family(
            "stackcheck_findings", "Findings of each rule, by rule ID, family and severity."
        )
        for finding in report.findings:
            findings.add(1, **_finding_labels(finding))
        out.family(
            "stackcheck_suppressed_findings", "Findings kept out of the gate by config or baseline."
        ).set(len(report.suppressed))
        components = out.family(
            "stackcheck_component_info", "A version of a stack component found, and where."
        )
        for labels in _component_labels(report.snapshot):
            components.set(1, **labels)
        return out.render()

    def _fleet(self, report: FleetReport) -> str:
        out = _Exposition()
        built = next((s.report.matrix_built for s in report.stacks), None)
        out.common(self.run, report.matrix_version, built)
        summary = report.summary
        out.family("stackcheck_fleet_nodes", "Nodes in the fleet: asked or expected.").set(
            summary.nodes
        )
        out.family("stackcheck_fleet_answered_nodes", "Nodes that gave a snapshot.").set(
            summary.answered
        )
        out.family("stackcheck_fleet_stacks", "Distinct stacks among the answers.").set(
            summary.stacks
        )
        silent = out.family(
            "stackcheck_fleet_no_answer_nodes", "Nodes that gave no snapshot, by reason."
        )
        for group in report.no_answer:
            silent.add(group.count, reason=group.reason)
        by_severity = out.family(
            "stackcheck_fleet_findings_by_severity",
            "Rows of the fleet report (drift and node findings) at each severity.",
        )
        rows = Counter(f.severity for f in report.all_findings())
        for severity in SEVERITIES:
            by_severity.set(rows[severity], severity=severity.value)
        nodes_with = out.family(
            "stackcheck_fleet_finding_nodes", "Nodes that have a finding of each rule."
        )
        for labels, count in _nodes_per_rule(report).items():
            nodes_with.set(count, **dict(labels))
        drift = out.family(
            "stackcheck_fleet_drift_nodes",
            "Nodes off the most common value of an aspect (a drift rule's odd nodes).",
        )
        for row in report.drift:
            odd = sum(v.count for v in row.values[1:])
            drift.set(odd, **_finding_labels(row), aspect=row.aspect)
        components = out.family(
            "stackcheck_fleet_component_nodes",
            "Nodes with a version of a stack component, by component, version and origin.",
        )
        for stack in report.stacks:
            for labels in {tuple(c.items()) for c in _component_labels(stack.report.snapshot)}:
                components.add(stack.count, **dict(labels))
        return out.render()


def _nodes_per_rule(report: FleetReport) -> Mapping[Labels, int]:
    """Exact node counts per rule from the stacks (a node with two findings of one rule is one
    node), then the fleet rules' own node findings (SC701) that no stack carries."""
    counts: Counter[Labels] = Counter()
    for stack in report.stacks:
        for key in {tuple(_finding_labels(f).items()) for f in stack.report.findings}:
            counts[key] += stack.count
    from_stacks = set(counts)
    for row in report.findings:
        key = tuple(_finding_labels(row).items())
        if key not in from_stacks:
            counts[key] += row.count
    return counts
