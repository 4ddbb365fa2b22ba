"""Running the rule catalogue over a snapshot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Report
from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.models import Matrix
from stackcheck.recommend import recommend
from stackcheck.rules import RULES, Rule
from stackcheck.snapshot.model import ProbeNote, Snapshot

_Finding = TypeVar("_Finding", bound=Finding)


def sort_findings(findings: list[_Finding]) -> list[_Finding]:
    """Most severe first; then by rule ID, so reports diff cleanly between runs."""
    return sorted(findings, key=lambda f: (-f.severity.rank, f.id, f.message))


def check(snapshot: Snapshot, matrix: Matrix, rules: Sequence[Rule] = RULES) -> Report:
    index = MatrixIndex(matrix)
    ctx = CheckContext(snapshot, index)
    findings: list[Finding] = []
    for rule in rules:
        try:
            for finding in rule.check(ctx):
                if finding not in findings:
                    findings.append(finding)
        except Exception as exc:  # a rule bug must not hide the other rules' findings
            snapshot.notes.append(ProbeNote(probe=f"rule {rule.id}", message=f"failed: {exc!r}"))
    return Report(
        matrix_version=index.version,
        snapshot=snapshot,
        findings=sort_findings(findings),
        recommendations=recommend(ctx),
    )
