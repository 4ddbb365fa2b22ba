"""Triage readings of s20 in the driver, GPU mode and health, fabric and CPU-build areas:
ParallelCluster's OpenRM validator, nvidia-smi failing after a reboot, ptxas' gpu-name error cut
by a wrap, nvidia-smi -q's Remapped Rows and Fabric Status sections pasted alone, health checks
that find persistence mode off, and a CPU-only PyTorch's version printed alone or told in Chinese
prose (tests/data/reports, sources cited there)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName
from tests.support.pasted import findings, reads


def test_parallelcluster_openrm_validator_is_the_module_unusable(matrix: Matrix) -> None:
    """1827: the validator's JSON message, and its second sentence alone."""
    said = (
        "1827",
        "The instance type 'p2.xlarge' is not supported by NVIDIA OpenRM drivers.\n",
        "ERROR: OpenRM can only be used on any Turing or later GPU architectures.\n",
    )
    reads(matrix, "SC1327", Severity.ERROR, said)


def test_nvidia_smi_failing_after_a_reboot_is_the_module_not_loaded(matrix: Matrix) -> None:
    """1925; the same message without a reboot stays a process that sees no driver only."""
    rebooted = (
        "After we restarted the node, nvidia-smi says: NVIDIA-SMI has failed because it "
        "couldn't communicate with the NVIDIA driver.\n"
    )
    plain = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
        "that the latest NVIDIA driver is installed and running.\n"
    )
    asked = (
        "If I reboot, NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
        "driver?\n"
    )
    reads(matrix, "SC1327", Severity.ERROR, ("1925", rebooted), (plain, asked))


def test_ptxas_gpu_name_error_cut_by_a_wrap_is_still_read(matrix: Matrix) -> None:
    """1917: the line ends after 'is not', the rest wrapped under a quote bar."""
    cut = "B300 is sm_103a — `ptxas fatal: Value 'sm_103a' is not \n  ▎ defined for option\n"
    # Another ptxas verdict on the value is not this one.
    other = "ptxas fatal   : Value 'sm_90a' is not supported here by this build of the tool\n"
    reads(matrix, "SC202", Severity.ERROR, ("1917", cut), (other,))


def test_remapped_rows_pasted_alone_are_read_as_one_gpus(matrix: Matrix) -> None:
    """1947 (R470-R570 layout); a pending remap warns, a failed one is an error; none is clean."""
    section = (
        "    Remapped Rows\n"
        "        Correctable Error                 : 0\n"
        "        Uncorrectable Error               : 0\n"
        "        Pending                           : {pending}\n"
        "        Remapping Failure Occurred        : {failed}\n"
    )
    reads(matrix, "SC1116", Severity.WARNING, ("1947",))
    failed, clean = (section.format(pending="No", failed=f) for f in ("Yes", "No"))
    reads(matrix, "SC1116", Severity.ERROR, (failed,), (clean,))


def test_fabric_status_other_than_success_is_the_fabric_not_up(matrix: Matrix) -> None:
    """1940: State Completed, Status Insufficient Resources; Success and N/A are healthy."""
    fabric = (
        "    Fabric\n"
        "        State                             : Completed\n"
        "        Status                            : {status}\n"
        "        CliqueId                          : 32766\n"
    )
    failed = fabric.format(status="Unknown Error")
    healthy = tuple(fabric.format(status=status) for status in ("Success", "N/A"))
    reads(matrix, "SC521", Severity.ERROR, ("1940", failed), healthy)


def test_health_checks_finding_persistence_off_warn(matrix: Matrix) -> None:
    """1942 (CycleCloud's healthagent) and DCGM's deployment test in both releases' words."""
    said = (
        "1942",
        "Persistence mode for GPU 3 is disabled.\n",
        "Persistence mode for GPU 0 is currently disabled. The DCGM diagnostic requires "
        "peristence mode to be enabled.\n",
    )
    reads(matrix, "SC1120", Severity.WARNING, said)


def test_a_cpu_torch_version_printed_alone_is_the_cpu_build() -> None:
    """1914: the REPL's repr; print()'s bare form beside is_available(); not torchvision's 0.x."""
    for printed in ("'2.6.0+cpu'\n", "2.6.0+cpu False\n", '>>> print(x)\n"2.10.0+cpu"\n'):
        snapshot = read_report(">>> torch.__version__\n" + printed, "pasted").snapshot
        torch = snapshot.installations(ComponentName.TORCH)
        assert torch and torch[0].properties.get("cpu_only") == "yes", printed
    snapshot = read_report(">>> torchvision.__version__\n'0.21.0+cpu'\n", "pasted").snapshot
    assert not snapshot.installations(ComponentName.TORCH)


def test_chinese_prose_saying_the_install_is_the_cpu_build(matrix: Matrix) -> None:
    """1914; a question whether it is the CPU build is not read."""
    reads(matrix, "SC201", Severity.ERROR, ("1914", "pip 装的 torch 是 CPU 版本 跑不了 GPU\n"))
    for asked in ("安装的torch是cpu版本吗\uff1f\n", "装的torch是不是cpu版本\n"):
        assert not read_report(asked, "pasted").snapshot.observations("torch-cpu-only"), asked


def test_prose_saying_module_and_libraries_differ_is_the_mismatch(matrix: Matrix) -> None:
    """1929, and the same told either way round; a question is not read."""
    said = (
        "1929",
        "After the upgrade the kernel module does not match the userspace driver libraries.\n",
        "The userspace NVIDIA libraries differ from the loaded kernel module (570 vs 580).\n",
    )
    asked = ("Could the kernel module differ from the userspace libraries here?\n",)
    reads(matrix, "SC103", Severity.ERROR, said, asked)


def test_unsloths_stale_cpu_venv_is_the_cpu_build(matrix: Matrix) -> None:
    """1909; the same check between two GPU builds (1910, healthy) is a rebuild."""
    reads(matrix, "SC201", Severity.ERROR, ("1909",), ("1910",))


def test_nvccs_gpu_architecture_value_error_is_the_toolkit_lacking_it(matrix: Matrix) -> None:
    """nvcc (and cuobjdump) name the -arch value they do not know: too new (sm_120 on CUDA
    12.4) or dropped (compute_35 on CUDA 12), whole or cut by a wrap after 'is not'."""
    said = (
        "nvcc fatal   : Value 'sm_120' is not defined for option 'gpu-architecture'\n",
        "  nvcc fatal   : Value 'compute_35' is not defined for option 'gpu-architecture'\n",
        "cuobjdump fatal: Value 'sm_120' is not defined for option 'gpu-architecture'\n",
        "the build stops: nvcc fatal : Value 'sm_100' is not\n",
    )
    reads(matrix, "SC202", Severity.ERROR, said)
    for text in said:
        snapshot = read_report(text, "pasted").snapshot
        assert "unknown to nvcc" in (
            snapshot.observations("toolkit-arch-unsupported")[0].value or ""
        )


def test_retired_pages_pasted_alone_are_read_as_one_gpus(matrix: Matrix) -> None:
    """Pre-Ampere GPUs retire pages instead (R418-R470 `Pending Page Blacklist`, later
    `Pending Page Retirement`): a page pending is a warning, none pending is clean."""
    section = (
        "    Retired Pages\n"
        "        Single Bit ECC                    : 0\n"
        "        Double Bit ECC                    : 2\n"
        "        Pending {key}            : {pending}\n"
    )
    for key in ("Page Blacklist", "Page Retirement"):
        text = section.format(key=key, pending="Yes")
        assert findings(matrix, text).get("SC1116") is Severity.WARNING, key
        assert "SC1116" not in findings(matrix, section.format(key=key, pending="No")), key


def test_a_version_wrapped_apart_from_its_name_is_still_stated() -> None:
    """A browser's wrap between "CUDA version" and "is 12.4" (XLA's warning quoted in a
    sentence) states the same CUDA as the unwrapped line; the next line's own versions are
    read there, once."""
    wrapped = (
        "When I run the job it fails with this message: The NVIDIA driver's CUDA version\n"
        "is 12.4 which is older than the PTX compiler version, and cuDNN 9.1 is here.\n"
    )
    said = read_report(wrapped, "pasted").snapshot.observations("version-stated")
    assert [o.value for o in said] == ["CUDA 12.4"]
    assert len(read_report(wrapped, "pasted").snapshot.installations(ComponentName.CUDNN)) == 1
