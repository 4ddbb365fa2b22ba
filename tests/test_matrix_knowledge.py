"""The matrix's knowledge that triage needs (the tenth pass): PyTorch 1.0-1.11's wheel arch lists,
CUDA's oldest driver floors, NCCL releases' known issues. Each fact is checked through triage on
short texts of the shapes reports take, independent of the corpus's expectations."""

from __future__ import annotations

import pytest

from stackcheck.check.model import Severity
from stackcheck.matrix import Matrix, MatrixIndex
from tests.test_triage_gpu_stack import findings

RTX_3090 = "I have a RTX 3090 graphics card.\n"
A100 = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1c2d3e4f-0000-1111-2222-333344445555)\n"


@pytest.mark.parametrize(
    ("release", "cuda", "archs"),
    [
        ("1.0.1", "8.0", ["sm_35", "sm_50", "compute_50", "sm_60", "sm_61"]),
        ("1.4.0", "10.1", ["sm_37", "compute_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75"]),
        ("1.6.0", "10.1", ["sm_37", "sm_50", "sm_60", "sm_70"]),
        ("1.7.1", "11.0", ["sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80"]),
        ("1.8.1", "11.1", ["sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"]),
        ("1.10.2", "10.2", ["sm_37", "sm_50", "sm_60", "sm_70"]),
        ("1.11.0", "11.5", ["sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"]),
    ],
)
def test_old_pytorch_wheels_have_their_arch_lists(
    matrix: Matrix, release: str, cuda: str, archs: list[str]
) -> None:
    variant = MatrixIndex(matrix).torch_variant(release, cuda)
    assert variant is not None
    assert variant.archs == archs
    assert (variant.source or "").startswith("pytorch/builder@")


def test_every_pytorch_release_from_1_0_is_in_the_matrix(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    for minor in range(12):
        release = index.torch_release(f"1.{minor}.0")
        assert release is not None and release.variants, f"1.{minor}"


def test_a_cuda_10_or_11_0_wheel_on_an_ampere_card(matrix: Matrix) -> None:
    """946: torch 1.7.1+cu101 on an RTX 3090 (sm_86): CUDA 10.x wheels stop at sm_75, so nothing
    runs; the script at a commit near the release is the source, so a warning. The cu110 wheel's
    sm_80 runs on sm_86, and 1.10's release-branch list is sure: an error on an A100."""
    assert findings(matrix, "torch==1.7.1+cu101\n\n" + RTX_3090)["SC202"] is Severity.WARNING
    assert "SC202" not in findings(matrix, "torch==1.7.1+cu110\n\n" + RTX_3090)
    assert findings(matrix, "torch==1.10.2+cu102\n\n" + A100)["SC202"] is Severity.ERROR
    assert "SC202" not in findings(matrix, "torch==1.10.2+cu113\n\n" + A100)


@pytest.mark.parametrize(
    ("cuda", "driver"), [("5.0", "304.54"), ("5.5", "319.37"), ("6.0", "331.62"), ("6.5", "340.21")]
)
def test_the_driver_table_goes_back_to_cuda_5(matrix: Matrix, cuda: str, driver: str) -> None:
    release = MatrixIndex(matrix).cuda_release(cuda)
    assert release is not None and release.min_driver == driver


NVCC_65 = "Cuda compilation tools, release 6.5, V6.5.12\n"


def test_a_cuda_6_toolkit_is_known(matrix: Matrix) -> None:
    assert "SC901" not in findings(matrix, NVCC_65)


@pytest.mark.parametrize(
    "line",
    [
        # 939 (NVIDIA/nvidia-docker#68): the 1.0 betas print the image's CUDA first.
        "nvidia-docker | 2016/04/09 00:07:59 Error: unsupported CUDA version: 7.5 < 6.5",
        "Error: unsupported CUDA version: 8.0 < 7.5",
        # the later 1.x wording, read by the catalogue's older entry
        "nvidia-docker | 2016/08/22 12:54:02 Error: unsupported CUDA version: driver 7.5 < image 8.0",
    ],
)
def test_nvidia_docker_1_refusing_an_image_newer_than_the_driver(matrix: Matrix, line: str) -> None:
    assert findings(matrix, NVCC_65 + line + "\n")["SC101"] is Severity.ERROR
