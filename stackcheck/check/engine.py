"""Running the rule catalogue over a snapshot."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TypeVar

from stackcheck import clock
from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Notice, Report
from stackcheck.matrix.freshness import stale_warning
from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.models import Matrix
from stackcheck.recommend import recommend
from stackcheck.rules import RULES, Rule
from stackcheck.snapshot.model import ProbeNote, Snapshot

_Finding = TypeVar("_Finding", bound=Finding)


def sort_findings(findings: list[_Finding]) -> list[_Finding]:
    """Most severe first; then by rule ID, so reports diff cleanly between runs."""
    return sorted(findings, key=lambda f: (-f.severity.rank, f.id, f.message))


def matrix_notices(matrix: Matrix, today: date) -> list[Notice]:
    """What the report says about the matrix itself: that it is stale, when it is."""
    stale = stale_warning(matrix, today)
    return [Notice(code="matrix-stale", message=stale)] if stale else []


def run_rules(ctx: CheckContext, rules: Sequence[Rule]) -> list[Finding]:
    findings: list[Finding] = []
    for rule in rules:
        try:
            for finding in rule.check(ctx):
                if finding not in findings:
                    findings.append(finding)
        except Exception as exc:  # a rule bug must not hide the other rules' findings
            ctx.snapshot.notes.append(
                ProbeNote(probe=f"rule {rule.id}", message=f"failed: {exc!r}")
            )
    return sort_findings(findings)


def check(
    snapshot: Snapshot, matrix: Matrix, rules: Sequence[Rule] = RULES, today: date | None = None
) -> Report:
    today = today or clock.today()
    index = MatrixIndex(matrix)
    ctx = CheckContext(snapshot, index)
    return Report(
        matrix_version=index.version,
        matrix_built=matrix.built,
        warnings=matrix_notices(matrix, today),
        snapshot=snapshot,
        findings=run_rules(ctx, rules),
        recommendations=recommend(ctx, today),
    )
