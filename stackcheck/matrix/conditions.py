"""When a known issue of the matrix applies: one decision shared by the known-issue rules (on a
checked stack) and by `recommend` (on a stack it proposes), so the two can never disagree."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from stackcheck import versions
from stackcheck.matrix.models import Gpu, KnownIssue
from stackcheck.snapshot.model import ComponentName, ObservationKind


class HasMatrixGpu(Protocol):
    @property
    def known(self) -> Gpu | None: ...


GpuT = TypeVar("GpuT", bound=HasMatrixGpu)
InstalledT = TypeVar("InstalledT")


def reported_for(issue: KnownIssue, version: str | None, releases: Iterable[str] = ()) -> bool:
    """A bug (documented behaviours are shown, never reported) whose range holds ``version``.
    A version stated without its patch number ("NCCL 2.19") is every release of that series:
    it is held only when the range holds the series' first and last patch alike. The first is
    the oldest of ``releases`` (the table's versions) in that series, where the table has one:
    NCCL's series start at .1 or later (2.19.1), so X.Y.0 would hold no range of them."""
    parsed = versions.parse(version)
    if issue.kind != "bug" or parsed is None:
        return False
    if len(parsed.release) != 2:
        return versions.matches(version, issue.affected) is True
    series = [
        r
        for r in releases
        if (p := versions.parse(r)) is not None and p.release[:2] == parsed.release[:2]
    ]
    first = min(series, key=versions.key) if series else version
    last = ".".join(str(n) for n in (*parsed.release, _LAST_PATCH))
    return all(versions.matches(v, issue.affected) is True for v in (first, last))


_LAST_PATCH = 999


@dataclass(frozen=True)
class Witnesses(Generic[GpuT, InstalledT]):
    """What meets each condition: the GPU named by the issue, one installation per requirement."""

    gpu: GpuT | None
    installations: tuple[InstalledT, ...]
    variables: tuple[str, ...] = ()  # the variables that meet the ``env`` condition
    # Each kind that meets the ``observed`` condition, with the index (in what ``observations``
    # gave for that kind) of its first value the expression finds: the one to cite.
    observed: tuple[tuple[ObservationKind, int], ...] = ()


def conditions_met(
    issue: KnownIssue,
    gpus: Sequence[GpuT],
    cpu_arch: str | None,
    installed: Callable[[ComponentName], Iterable[InstalledT]],
    version_of: Callable[[InstalledT], str | None],
    env: Callable[[str], str | None] | None = None,
    observations: Callable[[ObservationKind], Sequence[str]] | None = None,
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
    variables: tuple[str, ...] = ()
    if issue.env:
        # Any one of the variables named, set to a value its expression finds.
        values = {name: env(name) if env is not None else None for name in issue.env}
        variables = tuple(
            name
            for name, value in values.items()
            if value is not None and re.search(issue.env[name], value)
        )
        if not variables:
            return None
    seen: tuple[tuple[ObservationKind, int], ...] = ()
    if issue.observed:
        # Any one of the observation kinds named, with a value its expression finds.
        seen = tuple(
            (kind, at)
            for kind, pattern in issue.observed.items()
            if observations is not None
            and (at := _first_match(pattern, observations(kind))) is not None
        )
        if not seen:
            return None
    if issue.observed_all:
        # Every observation kind named, each with a value its expression finds.
        every = [
            (kind, _first_match(pattern, observations(kind)) if observations is not None else None)
            for kind, pattern in issue.observed_all.items()
        ]
        if any(at is None for _, at in every):
            return None
        seen += tuple((kind, at) for kind, at in every if at is not None)
    return Witnesses(gpu, tuple(found), variables, seen)


def _first_match(pattern: str, values: Sequence[str]) -> int | None:
    return next((at for at, value in enumerate(values) if re.search(pattern, value)), None)
