"""Triage readings of the driver from s21: a Linux NVIDIA driver package installed inside WSL 2,
whose libcuda.so shadows the one WSL maps in from the Windows driver, with the WSL 2 statements
and `dpkg --get-selections` rows that show it; and a PyTorch release said beside an older CUDA
before 11 that it has no build for (tests/data/reports 1513, 860, sources cited there)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.matrix import Matrix
from tests.corpus import body
from tests.support.pasted import findings, observed, reads

SELECTIONS = (
    "$ dpkg --get-selections | grep nvidia\n"
    "`libnvidia-compute-510:amd64                     install`\n"
)


def test_a_driver_package_selected_inside_wsl2_is_a_warning(matrix: Matrix) -> None:
    """1513 (numba/numba#9032): `dpkg --get-selections` shows libnvidia-compute-510 in a WSL2
    image; Numba's CUDA failed until the package was removed."""
    reads(matrix, "SC1417", Severity.WARNING, ("1513",))
    # WSL 2's kernel release shows it as well as the report's words.
    kernel = (
        "Linux version 5.4.91-microsoft-standard-WSL2 (oe-user@oe-host) (gcc version 9.3.0 "
        "(GCC)) #1 SMP Mon Jan 25 18:39:31 UTC 2021\n"
    )
    assert findings(matrix, kernel + SELECTIONS).get("SC1417") is Severity.WARNING


def test_the_wsl2_statement_and_kernel_are_read() -> None:
    for said in (
        "I've had this WSL2 image for a while so it's hard for me to say when/how this got "
        "installed.",
        # 1711 (microsoft/WSL#6772): /proc/version; 944 (vllm-project/vllm#12386): collect_env
        "Linux version 5.4.91-microsoft-standard-WSL2 (oe-user@oe-host) (gcc version 9.3.0 "
        "(GCC)) #1 SMP Mon Jan 25 18:39:31 UTC 2021",
        "Python platform: Linux-5.15.167.4-microsoft-standard-WSL2-x86_64-with-glibc2.39",
    ):
        assert "wsl-version-2" in observed(said), said
    for said in (
        "Does CUDA work on WSL2?",
        "If you run WSL2, install the toolkit only.",
        "Are you using WSL 1 or WSL 2?",
        "This is not WSL2 but native Ubuntu.",
    ):
        assert "wsl-version-2" not in observed(said), said


def test_get_selections_reads_installed_driver_packages_only() -> None:
    assert observed(SELECTIONS).get("linux-driver-package") == "libnvidia-compute-510"
    for row in (
        "libnvidia-compute-510:amd64\t\t\t\t\tdeinstall",
        "nvidia-container-toolkit\t\t\t\t\tinstall",
        "cuda-toolkit-12-2\t\t\t\t\tinstall",
    ):
        text = "$ dpkg --get-selections | grep nvidia\n" + row + "\n"
        assert "linux-driver-package" not in observed(text), row


def test_no_warning_without_both_wsl2_and_a_driver_package(matrix: Matrix) -> None:
    """WSL 2 reports with no Linux driver package (944, 1711), and driver packages listed on
    native Linux hosts (668, 952), get no SC1417; nor does a listing alone."""
    for key in ("944", "1711", "668", "952"):
        assert "SC1417" not in findings(matrix, body(key)), key
    assert "SC1417" not in findings(matrix, SELECTIONS)


def test_a_stated_release_without_a_build_for_the_stated_old_cuda(matrix: Matrix) -> None:
    """860 (huggingface/sentence-transformers#339): torch 1.5.0 (builds for CUDA 9.2, 10.1,
    10.2) beside CUDA 10.0, `torch.cuda.is_available()` False: before CUDA 11 a build for a
    newer CUDA does not run on that CUDA's driver."""
    reads(
        matrix,
        "SC101",
        Severity.WARNING,
        (
            "860",
            "I have CUDA 10.0 and torch 1.4.0, but torch.cuda.is_available() returns False.",
        ),
        (
            # a build for that CUDA exists; no build is newer; minor-version compatibility
            "I have CUDA 10.1 and torch 1.5.0, but torch.cuda.is_available() returns False.",
            "I have CUDA 10.2 and torch 1.3.0, but torch.cuda.is_available() returns False.",
            "I have CUDA 11.2 and torch 1.8.0, but torch.cuda.is_available() returns False.",
            # nothing failed
            "I am using CUDA version 10.0 and torch version 1.5.0.",
        ),
    )
