"""A sentence that says the program fails with one NCCL and works with another names the failing
one as the stack's (the real sentence of pytorch/pytorch#130414, tests/data/reports/902-*, and the
other shapes the same contrast takes); a sentence that only says a release works, suggests one or
puts the failure in a condition names none."""

from __future__ import annotations

import pytest

from tests.corpus import body
from tests.test_triage_stated_image import nccl_of as _nccl


def test_the_corpus_sentence_names_the_failing_release() -> None:
    assert _nccl(body("902")) == ["2.12.10"]


@pytest.mark.parametrize(
    ("said", "nccl"),
    [
        ("the following code no longer works with nccl 2.12.10 (nccl 2.13 works)", "2.12.10"),
        ("It hangs with NCCL 2.19.3 but works with NCCL 2.18.6.", "2.19.3"),
        ("Training fails with the NCCL 2.19.3, works fine with 2.18.6", "2.19.3"),
        ("It doesn't work with NCCL 2.18.1; 2.18.3 works.", "2.18.1"),
        ("   > allreduce crashes with nccl 2.21.5 while 2.20.5 works", "2.21.5"),
    ],
)
def test_the_failing_release_is_read(said: str, nccl: str) -> None:
    assert _nccl(said + "\n") == [nccl]


@pytest.mark.parametrize(
    "said",
    [
        "It works with NCCL 2.18.3.",
        "Please try NCCL 2.19.3 instead.",
        "If it fails with NCCL 2.19.3, it works with 2.18.6.",
        "When it fails with NCCL 2.19.3 the same job works with 2.18.6.",
    ],
)
def test_no_failing_release_is_read(said: str) -> None:
    assert _nccl(said + "\n") == []
