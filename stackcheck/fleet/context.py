"""What fleet rules see: the distinct stacks with their nodes, and the nodes that gave nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from stackcheck.fleet.sources.base import NoAnswer
from stackcheck.fleet.stacks import Stack
from stackcheck.matrix.index import MatrixIndex
from stackcheck.snapshot.model import Evidence, Snapshot

# What one aspect of a stack reads as: a comparable value and the evidence that said so, or
# None where the stack does not say (those nodes are left out of that comparison).
Aspect = Callable[[Snapshot], "tuple[str, Sequence[Evidence]] | None"]


@dataclass
class Share:
    """The stacks, and so the nodes, that agree on one value of an aspect."""

    value: str
    evidence: tuple[Evidence, ...]
    stacks: list[Stack] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(len(s.nodes) for s in self.stacks)

    def nodes(self) -> Iterator[str]:
        for stack in self.stacks:
            yield from stack.nodes


@dataclass
class FleetContext:
    stacks: list[Stack]
    silent: list[NoAnswer]
    matrix: MatrixIndex

    @property
    def answered(self) -> int:
        return sum(len(s.nodes) for s in self.stacks)

    @property
    def total(self) -> int:
        return self.answered + len(self.silent)

    def spread(self, aspect: Aspect) -> list[Share]:
        """Each value the aspect takes across the fleet, the most common first."""
        shares: dict[str, Share] = {}
        for stack in self.stacks:
            read = aspect(stack.snapshot)
            if read is None:
                continue
            value, evidence = read
            share = shares.setdefault(value, Share(value, tuple(evidence)))
            share.stacks.append(stack)
        return sorted(shares.values(), key=lambda s: (-s.count, s.value))
