"""Checking a fleet: group the nodes' snapshots into stacks, check each stack once, compare the
stacks with the fleet rules, and fold it all into one report that names nodes in hostlists."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import chain

from stackcheck.check.engine import check, sort_findings
from stackcheck.check.model import Finding, Report, Severity
from stackcheck.fleet.context import FleetContext
from stackcheck.fleet.hostlist import compress
from stackcheck.fleet.model import (
    NO_ANSWER,
    DriftFinding,
    FleetReport,
    FleetSummary,
    NodeFinding,
    Silent,
    StackReport,
)
from stackcheck.fleet.sources.base import NoAnswer, NodeSource
from stackcheck.fleet.stacks import Stack, StackIndex
from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.models import Matrix
from stackcheck.rules import RULES
from stackcheck.rules.fleet_drift import FleetRule

Progress = Callable[[int], None]  # told how many nodes have been heard from so far


def _names(stacks: Iterable[Stack]) -> str:
    return compress(chain.from_iterable(s.nodes for s in stacks))


def _node_findings(stacks: list[Stack], reports: list[Report], answered: int) -> list[NodeFinding]:
    """Each finding once, with every node whose stack has it. Findings that read the same are
    one (stacks may differ in the evidence behind it): their evidence is pooled."""
    groups: dict[str, tuple[Finding, list[Stack]]] = {}
    for stack, report in zip(stacks, reports, strict=True):
        for finding in report.findings:
            key = finding.model_dump_json(exclude={"evidence"})
            first, owners = groups.setdefault(key, (finding, []))
            if owners:
                pooled = list(dict.fromkeys([*first.evidence, *finding.evidence]))
                groups[key] = (first.model_copy(update={"evidence": pooled}), owners)
            owners.append(stack)
    return [
        NodeFinding(
            **dict(finding),
            count=sum(len(s.nodes) for s in owners),
            out_of=answered,
            nodes=_names(owners),
        )
        for finding, owners in groups.values()
    ]


def _silent_groups(silent: list[NoAnswer]) -> list[Silent]:
    groups: dict[tuple[str, str], list[NoAnswer]] = {}
    for item in silent:
        groups.setdefault((item.reason, item.detail), []).append(item)
    return [
        Silent(
            reason=items[0].reason,
            detail=detail,
            count=len(items),
            nodes=compress(n.node for n in items),
        )
        for (_, detail), items in sorted(groups.items())
    ]


def check_fleet(
    source: NodeSource, matrix: Matrix, progress: Progress | None = None
) -> FleetReport:
    index = StackIndex()
    silent: list[NoAnswer] = []
    for heard, result in enumerate(source.results(), start=1):
        problem = result if isinstance(result, NoAnswer) else index.add(result)
        if problem is not None:
            silent.append(problem)
        if progress is not None:
            progress(heard)
    stacks = sorted(index.stacks, key=lambda s: (-len(s.nodes), s.id))
    reports = [check(stack.snapshot, matrix) for stack in stacks]
    fleet = FleetContext(stacks, silent, MatrixIndex(matrix))
    notes: list[str] = []
    fleet_findings: list[Finding] = []
    for rule in RULES:
        if isinstance(rule, FleetRule):
            try:
                fleet_findings.extend(rule.check_fleet(fleet))
            except Exception as exc:  # a rule bug must not hide the other rules' findings
                notes.append(f"rule {rule.id} failed: {exc!r}")
    drift = [f for f in fleet_findings if isinstance(f, DriftFinding)]
    node_findings = _node_findings(stacks, reports, fleet.answered)
    node_findings += [f for f in fleet_findings if isinstance(f, NodeFinding)]
    rows: list[Finding] = [*drift, *node_findings]
    nodes = {node: stack.id for stack in stacks for node in stack.nodes}
    nodes.update((item.node, NO_ANSWER) for item in silent)
    return FleetReport(
        matrix_version=matrix.version,
        source=source.description,
        summary=FleetSummary(
            nodes=len(nodes),
            answered=fleet.answered,
            no_answer=len(silent),
            stacks=len(stacks),
            errors=sum(1 for f in rows if f.severity is Severity.ERROR),
            warnings=sum(1 for f in rows if f.severity is Severity.WARNING),
            infos=sum(1 for f in rows if f.severity is Severity.INFO),
        ),
        drift=sort_findings(drift),
        findings=sort_findings(node_findings),
        no_answer=_silent_groups(silent),
        stacks=[
            StackReport(id=s.id, count=len(s.nodes), nodes=compress(s.nodes), report=r)
            for s, r in zip(stacks, reports, strict=True)
        ],
        nodes=dict(sorted(nodes.items())),
        notes=notes,
    )
