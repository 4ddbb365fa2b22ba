"""Triage readings of the driver from s19: a driver older than the toolkit that compiled the PTX
(XLA's own warning in both its phrasings, its serial-compilation workaround said to help, a
toolkit brought to the driver's CUDA said to fix it), and a GPU that only NVIDIA's open kernel
module drives under the proprietary one (tests/data/reports, sources cited there)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body
from tests.support.pasted import findings

SMI_470 = (
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
    "|-------------------------------+----------------------+----------------------+\n"
)
NVCC_117 = (
    "Cuda compilation tools, release 11.7, V11.7.64\nBuild cuda_11.7.r11.7/compiler.31294372_0\n"
)


def test_xlas_warning_in_both_phrasings_is_the_limit_met(matrix: Matrix) -> None:
    """1526: XLA's 'older than the PTX compiler version'; older XLA said 'ptxas CUDA version'."""
    assert findings(matrix, body("1526")).get("SC102") is Severity.WARNING
    for said in (
        "2024-03-06 18:29:27.612422: W external/xla/xla/service/gpu/nvptx_compiler.cc:742] The "
        "NVIDIA driver's CUDA version is 12.2 which is older than the ptxas CUDA version "
        "(12.3.107). Because the driver is older than the ptxas version, XLA is disabling "
        "parallel compilation, which may slow down compilation.\n",
        "W0000 nvptx_compiler.cc:930] The NVIDIA driver's CUDA version is 12.4 which is older "
        "than the PTX compiler version (12.6.85). Because the driver is older than the PTX "
        "compiler version, XLA is disabling parallel compilation, which may slow down "
        "compilation.\n",
    ):
        assert findings(matrix, said).get("SC102") is Severity.WARNING, said
        snapshot = read_report(said, "pasted").snapshot
        assert snapshot.observations("ptx-jit-limit"), said
        # XLA's own words ("the driver is older than the ptxas version") are not the reporter
        # calling the driver too old (SC101): minor-version compatibility runs it, with the limit.
        assert not snapshot.observations("driver-too-old-stated"), said
        assert "SC101" not in findings(matrix, said), said


def test_xlas_serial_compilation_said_to_help_is_the_limit_met(matrix: Matrix) -> None:
    """1524 (no versions read) and the same workaround beside the versions."""
    assert findings(matrix, body("1524")).get("SC102") is Severity.WARNING
    for said in (
        "Setting the `xla_gpu_force_compilation_parallelism=1` works but has a performance hit.\n",
        "XLA_FLAGS=--xla_gpu_force_compilation_parallelism=1 fixed it for me.\n",
        "The only thing that helped was --xla_gpu_force_compilation_parallelism=1 in XLA_FLAGS.\n",
    ):
        assert findings(matrix, said).get("SC102") is Severity.WARNING, said
        assert findings(matrix, NVCC_117 + SMI_470 + said).get("SC102") is Severity.WARNING


def test_the_workaround_asked_about_or_denied_is_not_read(matrix: Matrix) -> None:
    for said in (
        "Does --xla_gpu_force_compilation_parallelism=1 help here?\n",
        "Setting xla_gpu_force_compilation_parallelism=1 did not help.\n",
        "We pass --xla_gpu_force_compilation_parallelism=1 to get deterministic compile logs.\n",
    ):
        assert "SC102" not in findings(matrix, said), said


def test_a_driver_of_the_toolkits_release_silences_the_workaround(matrix: Matrix) -> None:
    smi_535 = (
        "+-----------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 535.161.07   Driver Version: 535.161.07   CUDA Version: 12.2     |\n"
        "|-------------------------------+----------------------+----------------------+\n"
        "Cuda compilation tools, release 12.2, V12.2.140\n"
    )
    said = "Setting xla_gpu_force_compilation_parallelism=1 works.\n"
    assert "SC102" not in findings(matrix, smi_535 + said)
    # A driver alone, with no toolkit shown, is not one at the toolkit's release: the limit stands.
    driver_only = smi_535.rsplit("Cuda compilation", 1)[0]
    assert findings(matrix, driver_only + said).get("SC102") is Severity.WARNING


def test_a_toolkit_matched_to_the_driver_that_fixed_it_is_the_limit_met(matrix: Matrix) -> None:
    """1508: nvcc 11.7 on a CUDA 11.4 driver; matching them fixed JAX's failure."""
    assert findings(matrix, body("1508")).get("SC102") is Severity.WARNING
    said = (
        "Matching the CUDA toolkit to the driver's version (nvcc 11.4 like nvidia-smi) solved it.\n"
    )
    assert findings(matrix, NVCC_117 + SMI_470 + said).get("SC102") is Severity.WARNING
    # Without it, minor-version compatibility is advice.
    assert findings(matrix, NVCC_117 + SMI_470).get("SC102") is Severity.INFO
    asked = "Should nvcc and nvidia-smi be at the same version, or is that what fixed it?\n"
    assert findings(matrix, NVCC_117 + SMI_470 + asked).get("SC102") is Severity.INFO


def test_no_kernel_image_beside_the_limit_is_not_a_missing_architecture(matrix: Matrix) -> None:
    kernel = "RuntimeError: Unknown: no kernel image is available for execution on the device\n"
    assert findings(matrix, kernel).get("SC202") is Severity.ERROR
    said = "Setting the `xla_gpu_force_compilation_parallelism=1` works.\n"
    assert findings(matrix, kernel + said).get("SC202") is Severity.INFO


def test_the_proprietary_module_on_a_gpu_that_needs_the_open_one(matrix: Matrix) -> None:
    """1537: EKS's AL2023 AMI loading the proprietary module on a g7's Blackwell GPU."""
    assert findings(matrix, body("1537")).get("SC1327") is Severity.ERROR
    for said in (
        # the proprietary module's own lines (R560+), as dmesg prints them
        "[    5.559842] NVRM: The NVIDIA GPU 0000:02:00.0 (PCI ID: 10de:2c58)\n"
        "               NVRM: installed in this system requires use of the NVIDIA open kernel "
        "modules.\n",
        "The closed driver got installed, but the RTX 5090 needs the open kernel modules.\n",
        "nvidia-smi fails: Blackwell requires the NVIDIA open-source kernel modules.\n",
    ):
        assert findings(matrix, said).get("SC1327") is Severity.ERROR, said


def test_advice_a_question_or_the_open_module_in_use_is_not_read(matrix: Matrix) -> None:
    for said in (
        "Does the B200 require the open kernel modules?\n",
        "Blackwell requires the open kernel modules, so we install nvidia-driver-570-open.\n",
        "If the proprietary module is loaded, note that Blackwell needs the open kernel modules.\n",
        "The H100 works with the open kernel modules instead of the proprietary one.\n",
    ):
        assert "SC1327" not in findings(matrix, said), said
