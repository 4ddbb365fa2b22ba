"""The fifteenth pass's readings on GPUs missing from machines that have none (gpu-visibility,
driver-cuda), on shapes of text beyond the corpus reports they were written for (each cited)."""

from __future__ import annotations

import pytest

from stackcheck.check.model import Severity
from stackcheck.matrix import Matrix
from tests.test_triage_gpu_stack import findings, loud

# nvidia-container-cli's refusal where the host has no driver (dstackai/dstack#1080, 1538).
_HOOK = (
    "error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected "
    "mode as 'legacy'\n"
    "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown\n"
)


@pytest.mark.parametrize(
    "said",
    [
        "1. Submit a run to Cudo without GPU.",
        "The job was scheduled on our CPU-only instances.",
        "This machine has no GPU; the scheduler still used the GPU image.",
    ],
)
def test_a_container_on_a_machine_said_to_have_no_gpu_is_advice(matrix: Matrix, said: str) -> None:
    """dstackai/dstack#1080 (1538): a scheduler started a GPU image with the NVIDIA hook on a
    CPU instance; the container shown does not put a GPU in the machine, so neither SC532 nor
    SC531 is loud."""
    text = f"{said}\n\n```\n{_HOOK}```\n"
    got = findings(matrix, text)
    assert got.get("SC532") is Severity.INFO
    assert "SC531" not in loud(matrix, text)


def test_a_gpu_shown_still_makes_the_container_refusal_an_error(matrix: Matrix) -> None:
    """The same words beside a GPU and driver shown (nvidia-smi's header) stay an error: only
    hardware shown contradicts the reporter."""
    smi = (
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
        "|   0  NVIDIA A10G                    On  | 00000000:00:1E.0 Off |    0 |\n"
    )
    text = f"1. Submit a run to Cudo without GPU.\n\n```\n{smi}{_HOOK}```\n"
    assert findings(matrix, text).get("SC532") is Severity.ERROR
