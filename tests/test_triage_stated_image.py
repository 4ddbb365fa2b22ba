"""An NGC image a sentence names as the one in use gives the stack the matrix lists for it, as a
Dockerfile's FROM does; one it suggests, or says works, gives nothing. The real sentence is from
a corpus report (NVIDIA/nccl, tests/data/reports/913-*); the others are the same kind's shapes."""

from __future__ import annotations

import pytest

from stackcheck.ingest import read_report
from stackcheck.snapshot.model import ComponentName
from tests.corpus import body


def nccl_of(text: str) -> list[str | None]:
    """The NCCL versions triage reads in ``text``."""
    snapshot = read_report(text, "pasted").snapshot
    return [i.version for i in snapshot.installations(ComponentName.NCCL)]


def test_the_corpus_sentence_gives_the_image_stack() -> None:
    snapshot = read_report(body("913"), "913.txt").snapshot
    assert [i.version for i in snapshot.installations(ComponentName.NCCL)] == ["2.19.3"]
    assert [i.version for i in snapshot.installations(ComponentName.CUDNN)] == ["8.9.5"]


@pytest.mark.parametrize(
    ("said", "nccl"),
    [
        ("Docker image: nvcr.io/nvidia/pytorch:23.11-py3", "2.19.3"),
        ("We run the job in nvcr.io/nvidia/pytorch:24.05-py3 on 2 nodes.", "2.21.5"),
        ("- Container: `nvcr.io/nvidia/pytorch:23.07-py3`", "2.18.3"),
        ("> image `nvcr.io/nvidia/pytorch:25.10-py3`, 16 H100 nodes", "2.27.7"),
        ("我们使用的镜像是nvcr.io/nvidia/pytorch:24.05-py3", "2.21.5"),
    ],
)
def test_an_image_in_use_gives_its_nccl(said: str, nccl: str) -> None:
    assert nccl_of(said + "\n") == [nccl]


@pytest.mark.parametrize(
    "said",
    [
        "Try nvcr.io/nvidia/pytorch:24.05-py3 instead.",
        "It works fine with nvcr.io/nvidia/pytorch:23.07-py3.",
        "Upgrading to nvcr.io/nvidia/pytorch:25.10-py3 fixed it.",
        "If you use nvcr.io/nvidia/pytorch:24.05-py3, set NCCL_IB_DISABLE.",
        "see https://catalog.ngc.nvidia.com/nvcr.io/nvidia/pytorch:24.05-py3 for tags",
        # a tag the matrix does not list: nothing guessed
        "Docker image: nvcr.io/nvidia/pytorch:19.99-py3",
    ],
)
def test_an_image_not_in_use_or_unknown_gives_nothing(said: str) -> None:
    assert nccl_of(said + "\n") == []
