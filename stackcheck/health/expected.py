"""Drift from the stack a cluster is meant to have: this node and an expected snapshot (a
reference node's `stackcheck probe --json`), compared by the fleet's drift rules as a fleet of
two. A finding names both values, so the message says what this node has and what was expected.
"""

from __future__ import annotations

from collections.abc import Iterator

from stackcheck import limits
from stackcheck.check.model import Finding
from stackcheck.fleet.engine import check_fleet
from stackcheck.fleet.sources.base import Answer, NodeResult, NodeSource
from stackcheck.inputs import decode_utf8, read_regular
from stackcheck.matrix.models import Matrix
from stackcheck.snapshot import Snapshot, dump_snapshot, load_snapshot

EXPECTED = "expected"


class _Pair(NodeSource):
    def __init__(self, node: str, snapshot: Snapshot, expected: str, origin: str) -> None:
        self.answers = [
            Answer(node, dump_snapshot(snapshot), "this node"),
            Answer(EXPECTED, expected, origin),
        ]

    @property
    def description(self) -> str:
        return f"{self.answers[0].node} against {self.answers[1].origin}"

    def results(self) -> Iterator[NodeResult]:
        yield from self.answers


def read_expected(path: str) -> str:
    """The expected snapshot's text, checked to be a snapshot (else one clear error)."""
    # A health check must never hang: regular files only (a FIFO would block), bounded.
    data, _ = read_regular(path, "--expected", limits.JSON_FILE_BYTES)
    text = decode_utf8(data, path)
    load_snapshot(text, path)
    return text


def drift_from_expected(
    node: str, snapshot: Snapshot, expected: str, origin: str, matrix: Matrix
) -> list[Finding]:
    """The drift rules' findings between this node and the expected stack, as plain findings."""
    name = node if node != EXPECTED else f"{node} (this node)"
    report = check_fleet(_Pair(name, snapshot, expected, origin), matrix)
    fields = set(Finding.model_fields)
    return [Finding(**row.model_dump(include=fields)) for row in report.drift]
