"""Known issues a recommended stack would carry: the matrix's known-issue tables (NCCL,
aws-ofi-nccl, EFA installer) held against the versions a DLAMI or image ships, on the target's
GPUs and CPU. As in the known-issue rules, an issue whose condition cannot be checked is not
counted, and documented behaviours are never counted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from stackcheck.matrix.conditions import conditions_met, reported_for
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
        """A known bug that demotes a stack below one without: warning or error, and not resting
        on a fact the matrix marks unsure (that one is shown as a caution, not ranked on)."""
        return self.issue.severity in SEVERE and not self.issue.unsure

    def describe(self) -> str:
        fixed = f"; fixed in {self.issue.fixed_in}" if self.issue.fixed_in else ""
        return (
            f"{self.component.display_name} {self.version}: {self.issue.summary} "
            f"({self.issue.severity}{', unsure' if self.issue.unsure else ''}{fixed})"
        )


def _tables(index: MatrixIndex) -> dict[ComponentName, Sequence[WithKnownIssues]]:
    matrix = index.matrix
    return {
        ComponentName.NCCL: matrix.nccl,
        ComponentName.OFI_NCCL: matrix.ofi_nccl,
        ComponentName.EFA_INSTALLER: matrix.efa_installer,
    }


def stack_issues(
    stack: Mapping[ComponentName, str | None], target: Target, index: MatrixIndex
) -> list[StackIssue]:
    """The known bugs of the versions in ``stack`` that apply on ``target``, severe first."""
    known = {name: version for name, version in stack.items() if version}

    def installed(component: ComponentName) -> list[str]:
        return [known[component]] if component in known else []

    found = []
    for component, table in _tables(index).items():
        version = known.get(component)
        if version is None:
            continue
        for issue, _entry in index.known_issues(table):
            if not reported_for(issue, version):
                continue
            if conditions_met(issue, target.gpus, target.cpu_arch, installed, str) is not None:
                found.append(StackIssue(component, version, issue))
    return sorted(found, key=lambda s: not s.severe)
