"""When a known issue of the matrix applies: one decision shared by the known-issue rules (on a
checked stack) and by `recommend` (on a stack it proposes), so the two can never disagree."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from stackcheck import versions
from stackcheck.matrix.models import Gpu, KnownIssue
from stackcheck.snapshot.model import ComponentName


class HasMatrixGpu(Protocol):
    @property
    def known(self) -> Gpu | None: ...


GpuT = TypeVar("GpuT", bound=HasMatrixGpu)
InstalledT = TypeVar("InstalledT")


def reported_for(issue: KnownIssue, version: str | None) -> bool:
    """A bug (documented behaviours are shown, never reported) whose range holds ``version``."""
    return issue.kind == "bug" and versions.matches(version, issue.affected) is True


@dataclass(frozen=True)
class Witnesses(Generic[GpuT, InstalledT]):
    """What meets each condition: the GPU named by the issue, one installation per requirement."""

    gpu: GpuT | None
    installations: tuple[InstalledT, ...]


def conditions_met(
    issue: KnownIssue,
    gpus: Sequence[GpuT],
    cpu_arch: str | None,
    installed: Callable[[ComponentName], Iterable[InstalledT]],
    version_of: Callable[[InstalledT], str | None],
) -> Witnesses[GpuT, InstalledT] | None:
    """The witnesses that every condition of ``issue`` holds, or None when one does not or cannot
    be checked (no matching GPU known, a version unknown): an issue is never reported on a guess."""
    gpu = None
    if issue.gpus:
        gpu = next((g for g in gpus if g.known is not None and g.known.is_any(issue.gpus)), None)
        if gpu is None:
            return None
    if issue.cpu_arch is not None and cpu_arch != issue.cpu_arch:
        return None
    found = []
    for component, specifier in issue.requires.items():
        match = next(
            (i for i in installed(component) if versions.matches(version_of(i), specifier) is True),
            None,
        )
        if match is None:
            return None
        found.append(match)
    return Witnesses(gpu, tuple(found))
