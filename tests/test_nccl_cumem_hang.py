"""NCCL 2.19.1-2.20.2 with cuMem on by default (NCCL_CUMEM_ENABLE=-2 from 2.19.1, read at the
release tags) can hang at communicator setup in alltoall-like patterns: a report that says its
job hangs on such an NCCL gets SC311's warning; the same words on 2.18.6 or 2.20.3 do not, and
neither does a 2.19.3 stack that states no hang. The real text is NVIDIA/nccl's report of 14 A800
nodes (tests/data/reports/913-*)."""

from __future__ import annotations

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body

HANG = "cuMem on, and the report says the job hangs"


def _cumem_hang(matrix: Matrix, text: str) -> list[Severity]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return [f.severity for f in report.findings if f.id == "SC311" and HANG in f.message]


def test_the_corpus_report_gets_the_warning(matrix: Matrix) -> None:
    assert _cumem_hang(matrix, body("913")) == [Severity.WARNING]


@pytest.mark.parametrize(
    ("text", "warned"),
    [
        ("NCCL version 2.19.3+cuda12.3\nalltoall_perf hangs on all 14 nodes.\n", True),
        ("NCCL version 2.20.5+cuda12.4\nalltoall_perf hangs on all 14 nodes.\n", False),
        ("NCCL version 2.18.6+cuda12.2\nalltoall_perf hangs on all 14 nodes.\n", False),
        ("NCCL version 2.19.3+cuda12.3\nalltoall_perf no longer hangs.\n", False),
        ("NCCL version 2.19.3+cuda12.3\nalltoall_perf reaches 95 GB/s.\n", False),
    ],
)
def test_only_a_stated_hang_on_an_affected_release(matrix: Matrix, text: str, warned: bool) -> None:
    assert bool(_cumem_hang(matrix, text)) is warned
