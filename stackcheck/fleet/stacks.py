"""Node snapshots grouped by content: each distinct stack is read, validated and checked once.

Nodes of one fleet mostly carry the same stack; their snapshots differ only in who took them and
when (``source.target``, ``taken_at``). Grouping on the rest makes the work and the memory grow
with the number of distinct stacks, not with nodes times fields: a node costs its name and a
reference to its stack.

Two keys do the grouping. The cheap one hashes the text after the snapshot's head (schema,
version, time, source), so a repeat of text already seen is never parsed again. The exact one
hashes the validated snapshot without its identity, so the same content written differently
(compact JSON, another key order) still lands in the same stack.

Stacks that do differ mostly differ in one part (one node's driver, one variable), so the parts
of a new stack (each section, each component, each variable) are shared with the stacks that
already have an equal part: memory follows the distinct values, even when every node differs.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter

from stackcheck.errors import StackcheckError
from stackcheck.fleet.sources.base import Answer, NoAnswer
from stackcheck.snapshot import Snapshot, load_snapshot
from stackcheck.snapshot.io import snapshot_adapter
from stackcheck.snapshot.model import _Model, field_names

_HEAD = re.compile(
    r'\s*\{\s*"schema_version"\s*:\s*(\d+)\s*,\s*"stackcheck_version"\s*:\s*("[^"]*")\s*,'
    r'\s*"taken_at"\s*:\s*"[^"]*"\s*,\s*"source"\s*:\s*\{\s*"kind"\s*:\s*"[^"]*"\s*,'
    r'\s*"target"\s*:\s*"(?:[^"\\]|\\.)*"\s*\}'
)
_IDENTITY: dict[str, Any] = {"taken_at": True, "source": {"target": True}}
_EXCERPT = 60


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def content_digest(snapshot: Snapshot) -> bytes:
    """The snapshot's content without who took it and when."""
    return _digest(snapshot_adapter().dump_json(snapshot, exclude=_IDENTITY).decode())


def _text_key(text: str) -> bytes | None:
    head = _HEAD.match(text)
    if head is None:
        return None
    return _digest(f"{head.group(1)} {head.group(2)} {text[head.end() :]}")


# pydantic's serialiser of each part's model: the part's JSON is its key among equal parts.
_ADAPTERS: dict[type[_Model], TypeAdapter[Any]] = {}


class _Parts:
    """One shared instance of every distinct part seen so far."""

    def __init__(self) -> None:
        self._seen: dict[bytes, _Model] = {}

    def _one(self, part: _Model) -> _Model:
        kind = type(part)
        adapter = _ADAPTERS.get(kind)
        if adapter is None:  # built once per process, not once per fleet
            adapter = _ADAPTERS[kind] = TypeAdapter(kind)
        key = _digest(f"{kind.__qualname__} {adapter.dump_json(part).decode()}")
        return self._seen.setdefault(key, part)

    def share(self, snapshot: Snapshot) -> None:
        """Swap the snapshot's parts for equal ones already held. Snapshots are only read from
        here on; the engine appends to ``notes``, a list, which is never shared."""
        for name in field_names(Snapshot):
            value = getattr(snapshot, name)
            if isinstance(value, _Model):
                setattr(snapshot, name, self._one(value))
            elif isinstance(value, dict) and all(isinstance(v, _Model) for v in value.values()):
                setattr(snapshot, name, {k: self._one(v) for k, v in value.items()})


@dataclass
class Stack:
    """One distinct stack: the first node's snapshot as it came, and every node that has it."""

    id: str
    snapshot: Snapshot
    nodes: list[str] = field(default_factory=list)


class StackIndex:
    def __init__(self) -> None:
        self.stacks: list[Stack] = []
        self._by_content: dict[bytes, Stack] = {}
        self._by_text: dict[bytes, Stack] = {}
        self._parts = _Parts()

    def add(self, answer: Answer) -> NoAnswer | None:
        """File the node under its stack; a NoAnswer when its output is not a snapshot."""
        key = _text_key(answer.text)
        known = self._by_text.get(key) if key is not None else None
        if known is not None:
            known.nodes.append(answer.node)
            return None
        if not answer.text.strip():
            return NoAnswer(answer.node, "garbage", "empty output")
        try:
            snapshot = load_snapshot(answer.text, answer.origin)
        except StackcheckError as exc:
            excerpt = answer.text.strip()[:_EXCERPT]
            return NoAnswer(answer.node, "garbage", f"{exc}; it began {excerpt!r}")
        digest = content_digest(snapshot)
        stack = self._by_content.get(digest)
        if stack is None:
            self._parts.share(snapshot)
            stack = Stack(digest.hex()[:12], snapshot)
            self._by_content[digest] = stack
            self.stacks.append(stack)
        if key is not None:
            self._by_text[key] = stack
        stack.nodes.append(answer.node)
        return None
