"""The nineteenth pass's readings on GPU visibility in HPC container runtimes (enroot/pyxis's GPU
hook, nvidia-container-cli's missing device nodes, nvidia_uvm not loaded), nccl-tests, Ollama
and Open MPI's CUDA-aware notice, on shapes of text beyond the corpus reports they were written
for (1770, 1774, 1776, 1777, 1778, 1782, 1785, 1726)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.matrix import Matrix
from tests.test_triage_gpu_stack import findings

# Open MPI 1.7-4.x's notice as a CUDA-built Open MPI prints it on a node without libcuda.
_OMPI_NOTICE = """\
The library attempted to open the following supporting CUDA libraries,
but each of them failed.  CUDA-aware support is disabled.
libcuda.so.1: cannot open shared object file: No such file or directory
libcuda.dylib: cannot open shared object file: No such file or directory
/usr/lib64/libcuda.so.1: cannot open shared object file: No such file or directory
/usr/lib64/libcuda.dylib: cannot open shared object file: No such file or directory
If you are not interested in CUDA-aware support, then run with
--mca mpi_cuda_support 0 to suppress this message.
"""


def _levels(matrix: Matrix, rule: str, *texts: str) -> dict[str, Severity | None]:
    """The level ``rule`` gives each text read alone (None: no finding)."""
    return {t: findings(matrix, t + "\n").get(rule) for t in texts}


def test_enroots_gpu_hook_failing_is_a_container_without_its_gpus(matrix: Matrix) -> None:
    """enroot alone, under pyxis's `slurmstepd: error: pyxis:` prefix, with another install
    prefix: the hook runs only for a container whose environment names GPUs, so its failure is
    not a missing GPU request (SC531)."""
    texts = (
        "[ERROR] Command not found: nvidia-container-cli, see "
        "https://github.com/NVIDIA/libnvidia-container\n"
        "[ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1",
        "pyxis: importing docker image ...\n"
        "slurmstepd: error: pyxis:     [ERROR] Command not found: nvidia-container-cli, see "
        "https://github.com/NVIDIA/libnvidia-container\n"
        "slurmstepd: error: pyxis:     [ERROR] /usr/local/etc/enroot/hooks.d/98-nvidia.sh "
        "exited with return code 1",
        "NVIDIA_DRIVER_CAPABILITIES=compute,utility\n"
        "[ERROR] /opt/enroot/3.4.1/etc/enroot/hooks.d/98-nvidia.sh exited with return code 1",
    )
    for text in texts:
        found = findings(matrix, text + "\n")
        assert found.get("SC532") in (Severity.ERROR, Severity.WARNING), (text, found)
        assert "SC531" not in found, (text, found)
    # A hook that exited 0 failed nothing.
    assert _levels(matrix, "SC532", "[INFO] hooks.d/98-nvidia.sh exited with return code 0") == {
        "[INFO] hooks.d/98-nvidia.sh exited with return code 0": None
    }


def test_a_missing_device_node_under_the_toolkit_is_read_for_each_node(matrix: Matrix) -> None:
    """nvidia-container-cli stats every device node it binds; Docker wraps its message in the OCI
    runtime's, enroot prints it bare."""
    read = _levels(
        matrix,
        "SC532",
        "nvidia-container-cli: mount error: stat failed: /dev/nvidia-modeset: no such file or "
        "directory",
        "stderr: nvidia-container-cli: mount error: stat failed: /dev/nvidia-uvm: no such file "
        "or directory: unknown.",
        "nvidia-container-cli: mount error: stat failed: /dev/nvidia-uvm-tools: No such file or "
        "directory",
        "nvidia-container-cli: mount error: stat failed: /dev/nvidia3: no such file or directory",
    )
    assert set(read.values()) == {Severity.ERROR}, read


def test_nvidia_uvm_not_loaded_as_printed_and_as_told(matrix: Matrix) -> None:
    """enroot's warning, Singularity's definition files' line and prose retelling it; not advice,
    a question or a condition."""
    read = _levels(
        matrix,
        "SC532",
        "[WARN] Kernel module nvidia_uvm is not loaded. Make sure the NVIDIA device driver is "
        "installed and loaded.",
        "Problem detected on the host: the Linux kernel module nvidia_uvm is not loaded",
        "After the reboot the job complained about nvidia-uvm module not being loaded.",
        "It turned out the nvidia_uvm module wasn't loaded on the new nodes.",
    )
    assert all(level is not None for level in read.values()), read
    quiet = _levels(
        matrix,
        "SC532",
        "Make sure the nvidia_uvm kernel module is loaded before starting the container.",
        "Is it possible that the nvidia-uvm module is not loaded on these nodes?",
        "If the nvidia_uvm module is not loaded, CUDA fails with unknown error.",
    )
    assert set(quiet.values()) == {None}, quiet


def test_nccl_tests_and_ollama_that_found_no_gpu(matrix: Matrix) -> None:
    read = _levels(
        matrix,
        "SC532",
        "node-1: Test CUDA failure common.cu:1045 'unknown error'",
        " .. gpu-st-p4d-1 pid 123: Test CUDA failure common.cu:892 'unknown error'",
        "warning: gpu support may not be enabled, check that you have installed GPU drivers: "
        "nvidia-smi command failed",
    )
    assert all(level is not None for level in read.values()), read
    # Another CUDA failure in nccl-tests is not a GPU that was not seen.
    assert _levels(matrix, "SC532", "h: Test CUDA failure common.cu:1045 'out of memory'") == {
        "h: Test CUDA failure common.cu:1045 'out of memory'": None
    }


def test_open_mpis_cuda_aware_notice_is_advice_on_a_node_without_gpus(matrix: Matrix) -> None:
    """The libcuda lines the notice lists are part of it: advice where nothing shows a GPU, a
    warning where the text shows one (GPU buffers then fail in MPI)."""
    assert findings(matrix, _OMPI_NOTICE).get("SC532") == Severity.INFO
    smi = "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    assert findings(matrix, smi + _OMPI_NOTICE).get("SC532") == Severity.WARNING
    # Another process that found no GPU is still read as one.
    far = _OMPI_NOTICE + "RuntimeError: No CUDA GPUs are available\n"
    assert findings(matrix, far).get("SC532") in (Severity.WARNING, Severity.ERROR)
