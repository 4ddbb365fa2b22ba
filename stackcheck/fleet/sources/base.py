"""The node-source interface: what each node of a fleet answered, or why it did not."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

Silence = Literal[
    "timeout",  # the probe did not finish in time
    "failed",  # the probe or its launch failed (an exit code, srun's error)
    "garbage",  # it printed something that is not a snapshot
    "missing",  # expected, but nothing came back from it
    "unavailable",  # the scheduler says the node cannot run anything (down, drained)
]


@dataclass(frozen=True)
class Answer:
    """A node's output, still to be read as a snapshot."""

    node: str
    text: str
    origin: str  # where it came from, for messages: a file, "srun task 3"


@dataclass(frozen=True)
class NoAnswer:
    """A node that gave no snapshot, and why."""

    node: str
    reason: Silence
    detail: str


NodeResult = Answer | NoAnswer


class NodeSource(ABC):
    """Yields one result per node, as they arrive; every node it knows of is accounted for."""

    @property
    @abstractmethod
    def description(self) -> str:
        """What was asked, for the report's header: the srun command, the files read."""

    @abstractmethod
    def results(self) -> Iterator[NodeResult]: ...
