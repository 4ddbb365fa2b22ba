"""Triage readings of the GPU stack's own area (CUDA and driver, PyTorch, containers, GPU modes,
memlock), each on the real text of a corpus report (tests/data/reports, source cited there) and
on the other shapes the same kind of text takes, independent of the corpus's expectations."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body


def findings(matrix: Matrix, text: str) -> dict[str, Severity]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return {f.id: f.severity for f in report.findings}


def loud(matrix: Matrix, text: str) -> dict[str, Severity]:
    return {k: v for k, v in findings(matrix, text).items() if v is not Severity.INFO}


def test_no_driver_on_a_machine_the_reporter_says_has_no_gpu_is_advice(matrix: Matrix) -> None:
    """338: PyTorch's "Found no NVIDIA driver" from someone asking for a CPU fallback."""
    assert findings(matrix, body("338")) == {"SC532": Severity.INFO}
    message = body("338").split('", I think')[0]
    assert findings(matrix, message) == {"SC532": Severity.ERROR}
    for said in (
        "I don't have an NVIDIA GPU on this laptop.",
        "It should fall back to CPU.",
        "There is no GPU on my machine.",
        "I run it on my MacBook.",
    ):
        assert findings(matrix, f"{message}\n{said}") == {"SC532": Severity.INFO}, said
    # A container, or a GPU the text shows, keeps it an error whatever the prose says.
    inside = f"{message}\nIt runs inside the docker container; it should fall back to CPU."
    assert loud(matrix, inside).get("SC532") is Severity.ERROR
    with_gpu = f"{message}\nDriver Version: 535.104.05\nIt should fall back to CPU."
    assert loud(matrix, with_gpu).get("SC532") is Severity.ERROR


def test_ucx_memlock_error_on_a_run_without_rdma_is_advice(matrix: Matrix) -> None:
    """386: UCX prints its memlock hint while probing mlx5_0 on a run whose `mpirun` selected
    `--mca pml ob1 --mca btl sm,self`; the same line without that command is an error."""
    assert loud(matrix, body("386")) == {}
    assert findings(matrix, body("386"))["SC512"] is Severity.INFO
    ucx = next(line for line in body("386").splitlines() if "UCX  ERROR" in line)
    assert findings(matrix, ucx)["SC512"] is Severity.ERROR
    for command in (
        "mpirun -np 4 -x UCX_TLS=sm,self ./a.out",
        "UCX_TLS=tcp,cuda_copy mpirun -np 2 ./a.out",
        "/usr/bin/mpirun --mca pml ob1 --mca btl vader,self,tcp -np 2 ./a.out",
    ):
        assert findings(matrix, f"{command}\n{ucx}")["SC512"] is Severity.INFO, command
    for command in (
        "mpirun -np 4 --mca btl sm,self ./a.out",  # pml left to choose: UCX may take it
        "mpirun -np 4 --mca pml ob1 --mca btl openib,self ./a.out",
        "mpirun -np 4 -x UCX_TLS=rc,sm,self ./a.out",
        "mpirun -np 4 -x UCX_TLS=^sm ./a.out",
    ):
        assert findings(matrix, f"{command}\n{ucx}")["SC512"] is Severity.ERROR, command


def test_a_launcher_at_the_start_of_its_line_is_a_command(matrix: Matrix) -> None:
    """A line that starts with `mpirun` is a command, not a sentence naming one: its `-x`
    settings are read as such (before, only NAME=value shapes of a sentence were)."""
    command = "mpirun -np 2 -x NCCL_DEBUG INFO -x NCCL_P2P_DISABLE=1 ./a"
    snapshot = read_report(command, "p").snapshot
    assert snapshot.env["NCCL_P2P_DISABLE"].value == "1"
    said = read_report("We launch it with mpirun and it hangs.", "p").snapshot
    assert not said.observations("rdma-unselected")
