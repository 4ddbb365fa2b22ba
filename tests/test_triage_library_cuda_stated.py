"""A report's words that a CUDA library is built for another CUDA than the system has (SC203):
the real sentence of a corpus report (NVIDIA/nccl-tests#6, tests/data/reports/857-*) and the
other shapes the same kind of sentence takes; silent where compatibility covers the pair."""

from __future__ import annotations

import pytest

from stackcheck.check.model import Severity
from stackcheck.matrix import Matrix
from tests.corpus import body
from tests.test_triage_gpu_stack import findings


def test_the_corpus_sentence_is_read(matrix: Matrix) -> None:
    text = body("857")
    assert findings(matrix, text).get("SC203") is Severity.WARNING


@pytest.mark.parametrize(
    "said",
    [
        "my nccl depends on a different CUDA version (11.0) than I have on my system(10.2).",
        "libnccl was built for CUDA 11.0 but the machine has CUDA 10.2.",
        "It seems NCCL is compiled against CUDA 11.3 while the installed CUDA is 10.1.",
        "cuDNN was built for CUDA 12.1 and my driver only supports CUDA 11.4.",
        "My torch was built with CUDA 10.2, but the system has CUDA 10.0.",
        "    > tensorflow was compiled with CUDA 11.2 but my node has CUDA 10.1",
    ],
)
def test_a_library_built_for_a_newer_cuda_is_a_warning(matrix: Matrix, said: str) -> None:
    assert findings(matrix, said + "\n").get("SC203") is Severity.WARNING


@pytest.mark.parametrize(
    "said",
    [
        # older than the system's: a newer driver runs it
        "my nccl depends on a different CUDA version (10.2) than I have on my system (11.0).",
        # one major from CUDA 11 on: minor-version compatibility covers it
        "torch was built for CUDA 11.8 and the system has CUDA 11.4.",
        # a question or a condition, not a statement about this machine
        "Check whether nccl is built for CUDA 11.0 while the system has CUDA 10.2.",
        "If NCCL was built for CUDA 12.4 and the driver has CUDA 11.8, does it fail?",
        # the same release
        "NCCL is built for CUDA 12.2 and my system has CUDA 12.2.",
    ],
)
def test_no_finding_where_compatibility_or_doubt_covers_it(matrix: Matrix, said: str) -> None:
    assert "SC203" not in findings(matrix, said + "\n")
