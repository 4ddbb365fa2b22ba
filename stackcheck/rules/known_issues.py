"""Known issues from the matrix: an installed version the matrix lists as affected, reported only
where the issue's conditions (GPU, CPU, other components' versions) hold on this stack."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Sequence
from typing import ClassVar

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.matrix.conditions import conditions_met, reported_for
from stackcheck.matrix.models import KnownIssue, WithKnownIssues
from stackcheck.rules.base import Rule
from stackcheck.snapshot.model import ComponentName, Evidence, Installation


def conditions_hold(ctx: CheckContext, issue: KnownIssue) -> list[Evidence] | None:
    """The evidence that every condition of ``issue`` holds here, or None when one does not or
    cannot be checked."""
    env = ctx.snapshot.env
    met = conditions_met(
        issue,
        ctx.gpus,
        ctx.cpu_arch,
        ctx.installations,
        lambda i: i.version,
        lambda name: env[name].value if name in env else None,
        lambda kind: [o.value or "" for o in ctx.snapshot.observations(kind)],
    )
    if met is None:
        return None
    gpu = list(met.gpu.evidence[:1]) if met.gpu else []
    settings = [env[name].evidence for name in met.variables]
    seen = [ctx.snapshot.observations(kind)[at].evidence for kind, at in met.observed]
    return gpu + [e for i in met.installations for e in i.evidence[:1]] + settings + seen


def _fix(label: str, issue: KnownIssue, default: str) -> str:
    parts = []
    if issue.fixed_in:
        parts.append(f"Upgrade {label} to {issue.fixed_in} or later")
    if issue.workaround:
        parts.append(("or: " if parts else "Workaround: ") + issue.workaround)
    return "; ".join(parts) + "." if parts else default


class KnownIssueRule(Rule):
    """Reports each installation of ``component`` whose version a matrix table lists as affected
    by a known issue. Severity is the issue's, capped at warning when the fact is unsure."""

    component: ClassVar[ComponentName]
    lowest = Severity.INFO  # each issue carries its own severity

    @abstractmethod
    def table(self, ctx: CheckContext) -> Sequence[WithKnownIssues]: ...

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        table = self.table(ctx)
        issues = ctx.matrix.known_issues(table)
        releases = [entry.version for entry in table]
        installations = ctx.installations(self.component)
        for installation in installations:
            for issue, entry in issues:
                if not reported_for(issue, installation.version, releases):
                    continue
                evidence = conditions_hold(ctx, issue)
                if evidence is not None:
                    yield self._report(installation, issue, entry.unsure, evidence)
        if any(i.version for i in installations):
            return
        # No version stated: a message only the affected releases print names the release.
        for issue, entry in issues:
            evidence = conditions_hold(ctx, issue) if issue.observed_names_release else None
            if evidence is not None:
                label = self.component.display_name
                fixed = f" Fixed in {issue.fixed_in}." if issue.fixed_in else ""
                yield self.finding(
                    f"{label} (its version not stated; only {issue.affected} print this): "
                    f"{issue.summary}.{fixed} (Source: {issue.source}.)",
                    evidence,
                    fix=_fix(label, issue, self.doc.fix),
                    severity=self.capped(issue.unsure or entry.unsure, Severity(issue.severity)),
                )

    def _report(
        self, installation: Installation, issue: KnownIssue, unsure: bool, evidence: list[Evidence]
    ) -> Finding:
        label = self.component.display_name
        where = f" at {installation.path}" if installation.path else ""
        fixed = f" Fixed in {issue.fixed_in}." if issue.fixed_in else ""
        return self.finding(
            f"{label} {installation.version}{where}: {issue.summary}.{fixed} (Source: "
            f"{issue.source}.)",
            [*installation.evidence, *evidence],
            fix=_fix(label, issue, self.doc.fix),
            severity=self.capped(issue.unsure or unsure, Severity(issue.severity)),
        )
