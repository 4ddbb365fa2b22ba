"""Known issues a recommended stack would carry: the matrix's known-issue tables (NCCL,
aws-ofi-nccl, EFA installer) held against the versions a DLAMI or image ships, on the target's
GPUs and CPU. As in the known-issue rules, an issue whose condition cannot be checked is not
counted, and documented behaviours are never counted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from stackcheck import versions
from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.models import KnownIssue, WithKnownIssues
from stackcheck.recommend.target import Target
from stackcheck.snapshot.model import ComponentName

SEVERE = ("warning", "error")


@dataclass(frozen=True)
class StackIssue:
    component: ComponentName
    version: str
    issue: KnownIssue

    @property
    def severe(self) -> bool:
        return self.issue.severity in SEVERE

    def describe(self) -> str:
        fixed = f"; fixed in {self.issue.fixed_in}" if self.issue.fixed_in else ""
        return (
            f"{self.component.display_name} {self.version}: {self.issue.summary} "
            f"({self.issue.severity}{fixed})"
        )


def _tables(index: MatrixIndex) -> dict[ComponentName, Sequence[WithKnownIssues]]:
    matrix = index.matrix
    return {
        ComponentName.NCCL: matrix.nccl,
        ComponentName.OFI_NCCL: matrix.ofi_nccl,
        ComponentName.EFA_INSTALLER: matrix.efa_installer,
    }


def _holds(issue: KnownIssue, stack: Mapping[ComponentName, str], target: Target) -> bool:
    if issue.gpus and not any(g.known and g.known.is_any(issue.gpus) for g in target.gpus):
        return False
    if issue.cpu_arch is not None and target.cpu_arch != issue.cpu_arch:
        return False
    return all(
        versions.matches(stack.get(component), specifier) is True
        for component, specifier in issue.requires.items()
    )


def stack_issues(
    stack: Mapping[ComponentName, str | None], target: Target, index: MatrixIndex
) -> list[StackIssue]:
    """The known bugs of the versions in ``stack`` that apply on ``target``, severe first."""
    known = {name: version for name, version in stack.items() if version}
    found = []
    for component, table in _tables(index).items():
        version = known.get(component)
        if version is None:
            continue
        for issue, _entry in index.known_issues(table):
            if issue.kind == "behaviour" or versions.matches(version, issue.affected) is not True:
                continue
            if _holds(issue, known, target):
                found.append(StackIssue(component, version, issue))
    return sorted(found, key=lambda s: not s.severe)
