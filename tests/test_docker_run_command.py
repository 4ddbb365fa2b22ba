"""A `docker run` line whose command runs a launcher: what the command sets (`mpirun -x NAME=value`)
is read, and the line reads the same wrapped anywhere (its image may land on a line that also
opens the launcher's format). The line is report 703's (kubeflow/mpi-operator, see its header)."""

from __future__ import annotations

import textwrap

import pytest

from stackcheck.ingest import read_report
from tests.corpus import body


def run_line() -> str:
    return next(
        line for line in body("703").splitlines() if "docker run" in line and "mpirun" in line
    )


def described(text: str) -> set[str]:
    return {fact.describe() for fact in read_report(text, "t.txt").facts}


def test_the_commands_settings_are_read() -> None:
    read = described(run_line())
    assert any(d.startswith("docker-run spec: image uber/horovod:0.13.10") for d in read)
    assert {"environment NCCL_SOCKET_IFNAME=ib0", "environment NCCL_IB_HCA=mlx5_0"} <= read


@pytest.mark.parametrize("width", [57, 80, 101])
def test_wrapped_before_the_image_it_reads_the_same(width: int) -> None:
    pieces = textwrap.wrap(run_line(), width, break_long_words=False, break_on_hyphens=False)
    assert described("\n".join(pieces)) == described(run_line())
