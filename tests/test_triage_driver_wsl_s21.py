"""Triage readings from s21: a Linux NVIDIA driver package installed inside WSL 2, whose
libcuda.so shadows the one WSL maps in from the Windows driver (tests/data/reports 1513, sources
cited there), and the WSL 2 statements and `dpkg --get-selections` rows that show it."""

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
