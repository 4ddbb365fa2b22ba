"""The matrix's knowledge that triage needs (the tenth pass): PyTorch 1.0-1.11's wheel arch lists,
CUDA's oldest driver floors, NCCL releases' known issues. Each fact is checked through triage on
short texts of the shapes reports take, independent of the corpus's expectations."""

from __future__ import annotations

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix, MatrixIndex
from tests.test_triage_gpu_stack import findings


def worst(matrix: Matrix, text: str, rule: str) -> Severity | None:
    """The loudest finding of ``rule`` (a rule may report several known issues at once)."""
    order = [Severity.INFO, Severity.WARNING, Severity.ERROR]
    report = check(read_report(text, "pasted").snapshot, matrix)
    mine = [f.severity for f in report.findings if f.id == rule]
    return max(mine, key=order.index) if mine else None


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
        "nvidia-docker | 2016/08/22 12:54:02 Error: unsupported CUDA version: driver 7.5 < "
        "image 8.0",
    ],
)
def test_nvidia_docker_1_refusing_an_image_newer_than_the_driver(matrix: Matrix, line: str) -> None:
    assert findings(matrix, NVCC_65 + line + "\n")["SC101"] is Severity.ERROR


OLD_NCCL_FAILURE = (
    "host:2532579:2532579 [0] enqueue.cc:336 NCCL WARN Cuda failure 'invalid resource handle'\n"
)


def test_pytorch_23_on_an_nccl_older_than_2_13(matrix: Matrix) -> None:
    """902 (pytorch/pytorch#130414): PyTorch 2.3's single-device communicators fail in NCCL
    2.12's enqueue with 'invalid resource handle' (the numberless CUDACHECK wording of NCCL before
    2.18); the same failure with NCCL 2.13, or under PyTorch 2.2, is not that issue."""
    nccl = "host:1:1 [0] NCCL INFO NCCL version 2.12.10+cuda11.6\n"
    found = findings(matrix, "torch==2.3.1\n\n" + nccl + OLD_NCCL_FAILURE)
    assert found["SC311"] is Severity.WARNING  # the reporter's word, not NCCL's notes: unsure
    newer = "host:1:1 [0] NCCL INFO NCCL version 2.13.4+cuda11.7\n"
    assert "SC311" not in findings(matrix, "torch==2.3.1\n\n" + newer + OLD_NCCL_FAILURE)
    assert "SC311" not in findings(matrix, "torch==2.2.2\n\n" + nccl + OLD_NCCL_FAILURE)
    assert "SC311" not in findings(matrix, "torch==2.3.1\n\n" + nccl)  # no failure shown


SHM_217 = (
    "[2025-09-09 23:51:24] 9b405963aa12:774:854 [0] transport/shm.cc:590 NCCL WARN Cuda failure "
    "217 'peer access is not supported between these two devices'\n"
)


@pytest.mark.parametrize("version", ["2.24.3", "2.27.3", "2.28.9"])
def test_cumem_host_shm_without_peer_access(matrix: Matrix, version: str) -> None:
    """910 (NVIDIA/nccl#1838): cuMem host memory in the SHM transport on GPUs without P2P."""
    stated = f"### NCCL Version\n\n{version}+cu128\n\n"
    assert worst(matrix, stated + SHM_217, "SC311") is Severity.WARNING


def test_the_shm_failure_is_not_blamed_on_older_nccl_or_other_places(matrix: Matrix) -> None:
    older = "### NCCL Version\n\n2.23.4+cu124\n\n" + SHM_217
    assert worst(matrix, older, "SC311") in (None, Severity.INFO)
    p2p = SHM_217.replace("transport/shm.cc", "transport/p2p.cc")
    elsewhere = "### NCCL Version\n\n2.27.3+cu128\n\n" + p2p
    assert worst(matrix, elsewhere, "SC311") in (None, Severity.INFO)


DMABUF = (
    "misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not "
    "supported\n"
)


def test_the_dmabuf_fallback_issue_needs_its_failure(matrix: Matrix) -> None:
    """303 (NVIDIA/nccl#778): NCCL 2.13's DMA-BUF registration refused by an old RDMA stack. A
    healthy NCCL 2.13 log says nothing of it: no warning on the version alone."""
    version = "host:1:1 [0] NCCL INFO NCCL version 2.13.4+cuda11.7\n"
    assert findings(matrix, version + DMABUF)["SC311"] is Severity.WARNING
    assert "SC311" not in findings(matrix, version)
    enomem = DMABUF.replace("Operation not supported", "Cannot allocate memory")
    assert "SC311" not in findings(matrix, version + enomem)


@pytest.mark.parametrize(
    "said",
    [
        "The job hangs at the first all-reduce.",
        "Training is stuck after step 347.",
        "wedged 7/7 trials between step 0 and 347",
        "It hung indefinitely on NCCL broadcast during multinode training.",
        "There is a deadlock during all-to-all connection establishment.",
    ],
)
def test_a_known_hang_needs_a_hang(matrix: Matrix, said: str) -> None:
    """NCCL 2.28.3-2.28.8's proxy-ordering hang and aws-ofi-nccl 1.18.0's broadcast hang are
    reported where the report says the job hangs (or a watchdog timed out), not on the version."""
    nccl = "host:1:1 [0] NCCL INFO NCCL version 2.28.7+cuda12.9\n"
    assert worst(matrix, nccl + said + "\n", "SC311") is Severity.WARNING
    assert worst(matrix, nccl, "SC311") in (None, Severity.INFO)
    ofi = "host:1:1 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.18.0\n"
    assert worst(matrix, ofi + said + "\n", "SC452") is Severity.WARNING
    assert worst(matrix, ofi, "SC452") in (None, Severity.INFO)


@pytest.mark.parametrize(
    "said",
    [
        "The job no longer hangs with 2.29.2.",
        "It does not hang anymore.",
        "It didn't hang after the upgrade.",
        "Please hang on, I will post the log.",
    ],
)
def test_a_hang_denied_is_no_hang(matrix: Matrix, said: str) -> None:
    nccl = "host:1:1 [0] NCCL INFO NCCL version 2.28.7+cuda12.9\n"
    assert worst(matrix, nccl + said + "\n", "SC311") in (None, Severity.INFO)


def test_a_series_is_checked_from_its_first_release(matrix: Matrix) -> None:
    """`NCCL 2.19` (the NGC 23.11 image's, as 913 states it) is every 2.19 release, the first of
    which is 2.19.1: the cuMem all-to-all hang of >=2.19.1,<2.20.3 holds all of them, so a stack
    that sets NCCL_CUMEM_ENABLE=1 has it. The DMA-BUF issue of >=2.13,<2.14.3 does not hold all
    of 2.14, so `NCCL 2.14` is not reported for it."""
    setting = "export NCCL_CUMEM_ENABLE=1\n"
    assert worst(matrix, "NCCL version: 2.19\n" + setting, "SC311") is Severity.WARNING
    assert worst(matrix, "NCCL version: 2.20\n" + setting, "SC311") in (None, Severity.INFO)
    assert worst(matrix, "NCCL version: 2.14\n" + DMABUF, "SC311") in (None, Severity.INFO)


@pytest.mark.parametrize(
    ("name", "known", "cc"),
    [
        ("NVIDIA GeForce RTX 3090", "GeForce RTX 3090", "8.6"),
        ("NVIDIA GeForce RTX 2080 Ti", "GeForce RTX 2080 Ti", "7.5"),
        ("NVIDIA GeForce RTX 2080 SUPER", "GeForce RTX 2080", "7.5"),
        ("NVIDIA GeForce GTX 1080 Ti", "GeForce GTX 1080 Ti", "6.1"),
        ("Tesla P100-PCIE-16GB", "Tesla P100", "6.0"),
        ("Tesla K80", "Tesla K80", "3.7"),
        ("NVIDIA A800-SXM4-80GB", "A800", "8.0"),
        ("NVIDIA A100-SXM4-80GB", "A100 80GB", "8.0"),
        ("NVIDIA RTX A6000", "RTX A6000", "8.6"),
    ],
)
def test_gpus_that_reports_name(matrix: Matrix, name: str, known: str, cc: str) -> None:
    gpu = MatrixIndex(matrix).gpu(name)
    assert gpu is not None and gpu.name == known and gpu.compute_capability == cc


def test_a_cuda_13_build_on_pascal(matrix: Matrix) -> None:
    """CUDA 13 dropped Pascal: a build for it has nothing for a GTX 1080 (here a source build
    whose arch list the matrix does not know: the CUDA release and the GPU table decide)."""
    gpu = "GPU 0: NVIDIA GeForce GTX 1080 (UUID: GPU-1c2d3e4f-0000-1111-2222-333344445555)\n"
    found = worst(
        matrix,
        "PyTorch version: 1.13.0a0+git1234\nIs debug build: False\nCUDA used "
        "to build PyTorch: 13.0\n" + gpu,
        "SC202",
    )
    assert found in (Severity.WARNING, Severity.ERROR)


H100 = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1c2d3e4f-0000-1111-2222-333344445555)\n"


def test_nccl_before_hopper_support_on_an_h100(matrix: Matrix) -> None:
    """NCCL 2.15.1 added H100 (sm90): 2.14.3 (PyTorch 2.0's pin) on an H100 predates it."""
    old = "host:1:1 [0] NCCL INFO NCCL version 2.14.3+cuda11.7\n"
    assert worst(matrix, old + H100, "SC312") is Severity.WARNING
    new = "host:1:1 [0] NCCL INFO NCCL version 2.15.5+cuda11.8\n"
    assert worst(matrix, new + H100, "SC312") is None
    ampere = "host:1:1 [0] NCCL INFO NCCL version 2.7.8+cuda11.0\n"
    assert worst(matrix, ampere + A100, "SC312") is None


@pytest.mark.parametrize(("version", "api"), [("2.7.8", 3), ("2.10.3", 4), ("2.12.12", 5)])
def test_old_nccl_releases_know_their_net_api(matrix: Matrix, version: str, api: int) -> None:
    release = MatrixIndex(matrix).nccl_release(version)
    assert release is not None and release.net_api == api


def test_dgx_spark_needs_nccl_2_27_3(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    gb10 = index.gpu("NVIDIA GB10")
    assert gb10 is not None and gb10.compute_capability == "12.1"
    first = index.nccl_first_for(gb10)
    assert first is not None and first.version == "2.27.3"
    assert index.gpu("NVIDIA GB200") is not None and index.gpu("NVIDIA GB200").name == "GB200"  # type: ignore[union-attr]


def test_the_1_12_pypi_wheel_is_cu102(matrix: Matrix) -> None:
    """torch 1.12's PyPI wheel is the CUDA 10.2 build: no Ampere code."""
    assert findings(matrix, "torch==1.12.1+cu102\n\n" + A100)["SC202"] is Severity.ERROR


def test_a_series_the_table_has_is_not_unknown(matrix: Matrix) -> None:
    """`NCCL 2.19` is checked as its series (above), so SC901 does not say it was not."""
    assert "SC901" not in findings(matrix, "NCCL version: 2.19\n")
    assert "SC901" in findings(matrix, "NCCL version: 2.6\n")  # no 2.6 release in the table


def smi(driver: str, gpu: str) -> str:
    return (
        f"| NVIDIA-SMI {driver}              Driver Version: {driver}      "
        "CUDA Version: 12.2     |\n"
        f"GPU 0: {gpu} (UUID: GPU-1c2d3e4f-0000-1111-2222-333344445555)\n"
    )


@pytest.mark.parametrize(
    ("driver", "gpu", "expected"),
    [
        ("590.44.01", "Tesla V100-SXM2-16GB", Severity.ERROR),  # R580 is Volta's last
        ("580.95.05", "Tesla V100-SXM2-16GB", None),
        ("535.129.03", "Tesla K80", Severity.ERROR),  # R470 is Kepler's last
        ("470.256.02", "Tesla K80", None),
        ("590.44.01", "NVIDIA GeForce GTX 1080 Ti", Severity.ERROR),
        ("590.44.01", "NVIDIA H100 80GB HBM3", None),  # no last branch: still supported
    ],
)
def test_a_driver_branch_past_the_gpus_last(
    matrix: Matrix, driver: str, gpu: str, expected: Severity | None
) -> None:
    assert worst(matrix, smi(driver, gpu), "SC1406") is expected


def test_the_kernel_module_ignoring_a_legacy_gpu(matrix: Matrix) -> None:
    """charmed-kubernetes/kubernetes-docs#647: driver 510 on a p2's Tesla K80, as NVRM says it."""
    nvrm = (
        "> NVRM: The NVIDIA Tesla K80 GPU installed in this system is\n"
        "> NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please\n"
        "> NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
        "> NVRM:  information.  The 510.47.03 NVIDIA driver will ignore\n"
        "> NVRM:  this GPU.  Continuing probe...\n"
        "> NVRM: No NVIDIA GPU found.\n"
    )
    assert worst(matrix, nvrm, "SC1406") is Severity.ERROR
