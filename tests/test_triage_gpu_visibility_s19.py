"""The nineteenth pass's readings on GPU visibility in HPC container runtimes (enroot/pyxis's GPU
hook, nvidia-container-cli's missing device nodes, nvidia_uvm not loaded), nccl-tests, Ollama
and Open MPI's CUDA-aware notice, on shapes of text beyond the corpus reports they were written
for (1770, 1774, 1776, 1777, 1778, 1782, 1785, 1726)."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
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
    said = (
        "nvidia-container-cli: mount error: stat failed: /dev/nvidia-modeset: no such file or "
        "directory",
        "stderr: nvidia-container-cli: mount error: stat failed: /dev/nvidia-uvm: no such file "
        "or directory: unknown.",
        "nvidia-container-cli: mount error: stat failed: /dev/nvidia-uvm-tools: No such file or "
        "directory",
        "nvidia-container-cli: mount error: stat failed: /dev/nvidia3: no such file or directory",
    )
    _apart(matrix, "SC532", Severity.ERROR, said, ())


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


def test_wsl_1_is_the_cause_where_a_gpu_is_missed_or_shown(matrix: Matrix) -> None:
    """WSL 1's kernel release, Microsoft/WSL's issue forms and `wsl -l -v` (padded or not): the
    cause where nvidia-smi failed; alone, a report about something else run under WSL 1."""
    failed = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
    shapes = (
        "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) )",
        "### Are you using WSL 1 or WSL 2?\n\n- [ ] WSL 2\n- [x] WSL 1",
        "Whether the issue is on WSL 2 and/or WSL 1: WSL 1",
        "wsl -l -v\n  NAME            STATE           VERSION\n* Ubuntu-20.04    Running         1",
        "PS C:\\> wsl -l -v\nNAME STATE VERSION\n* Ubuntu-22.04 Stopped 1",
    )
    for shape in shapes:
        found = findings(matrix, shape + "\n" + failed + "\n")
        assert found.get("SC532") is not None, shape
        assert "WSL 1" in _said(matrix, shape + "\n" + failed), shape
        assert "SC532" not in findings(matrix, shape + "\n"), shape
    # A GPU shown under WSL 1 is enough: no process there can use it.
    told = "I am running ollama on WSL 1 with a GTX 1070 Ti."
    assert findings(matrix, told + "\n").get("SC532") is Severity.ERROR
    for other in (
        "- [x] WSL 2\n- [ ] WSL 1",
        "wsl -l -v\n  NAME    STATE    VERSION\n* Ubuntu  Running  2\n  Legacy  Stopped  1",
        "Linux version 5.15.167.4-microsoft-standard-WSL2",
        "Does this work on WSL 1 or only WSL 2?",
    ):
        assert "WSL 1" not in _said(matrix, other + "\n" + failed), other


def _apart(
    matrix: Matrix, rule: str, level: Severity, said: tuple[str, ...], unsaid: tuple[str, ...]
) -> None:
    """Each text of ``said`` read alone gets ``rule`` at ``level``; none of ``unsaid`` gets it."""
    read = _levels(matrix, rule, *said)
    assert set(read.values()) == {level}, read
    quiet = _levels(matrix, rule, *unsaid)
    assert set(quiet.values()) <= {None}, quiet


def test_a_gpu_in_tcc_mode_under_wsl(matrix: Matrix) -> None:
    said = (
        "When the Tesla works in TCC mode instead of WDDM mode, WSL2 cannot see the card.",
        "Found it: the card was in TCC mode, and WSL only gets WDDM GPUs.",
    )
    unsaid = (
        "Does WSL support a GPU in TCC mode?",
        "I switched the A4000 to TCC mode for the native Windows build (no WSL involved now).",
    )
    _apart(matrix, "SC532", Severity.ERROR, said, unsaid)


def _said(matrix: Matrix, text: str) -> str:
    """What SC532 says of ``text`` (empty when it says nothing)."""
    report = check(read_report(text + "\n", "pasted").snapshot, matrix)
    return " ".join(f.message for f in report.findings if f.id == "SC532")


def test_mpi_without_cuda_ipc(matrix: Matrix) -> None:
    """smcuda without a context at MPI_Init is the application's order (advice, the stack is
    fine); a report saying cuda_ipc is off is a warning; asking about it or turning it off in
    UCX_TLS on purpose is neither."""
    smcuda = (
        "select: initializing btl component smcuda\n"
        "CUDA: cuCtxGetCurrent returned NULL context\n"
        "select: init of component smcuda returned failure"
    )
    assert findings(matrix, smcuda + "\n") == {"SC1414": Severity.INFO}
    said = (
        "CUDA-aware MPI is being used but `cuda_ipc` has been disabled by the OpenMPI runtime.",
        "It turns out UCX's cuda_ipc transport was not used because each rank sees one GPU.",
        "Setting CUDA_VISIBLE_DEVICES per rank silently disables cuda_ipc in UCX.",
    )
    unsaid = (
        "Is cuda_ipc disabled when CUDA_VISIBLE_DEVICES is set?",
        "export UCX_TLS=rc,cuda_copy  # cuda_ipc disabled on purpose for this test",
    )
    _apart(matrix, "SC1414", Severity.WARNING, said, unsaid)


def test_device_nodes_the_host_never_created(matrix: Matrix) -> None:
    """ls's own error and prose retelling it; the host, not a missing GPU request, is the cause
    (SC531 stays silent)."""
    texts = (
        "ls: cannot access '/dev/nvidia-uvm': No such file or directory",
        "ls: cannot access /dev/nvidia*: No such file or directory",
        "Before running nvidia-smi on the host, `ls /dev | grep -i nvidia` returns nothing.",
        "In the container CUDA fails, and on the host /dev/nvidia-uvm does not exist until I run "
        "deviceQuery.",
        "the device files are created dynamically when running programs which require them",
    )
    for text in texts:
        found = findings(matrix, text + "\n")
        assert found.get("SC532") is not None, (text, found)
        assert "SC531" not in found, (text, found)
    quiet = _levels(
        matrix,
        "SC532",
        "Make sure /dev/nvidia-uvm is not missing before you start.",
        "What happens if /dev/nvidia0 does not exist?",
    )
    assert set(quiet.values()) == {None}, quiet


def test_a_runtime_that_finds_no_nvidia_container_cli(matrix: Matrix) -> None:
    """SingularityCE/Apptainer under --nvccli, Go's exec for Docker's hook (quotes escaped as the
    OCI error nests them), the toolkit's own hook."""
    read = _levels(
        matrix,
        "SC532",
        'FATAL:   container creation failed: exec: "/usr/bin/nvidia-container-cli": stat '
        "/usr/bin/nvidia-container-cli: no such file or directory",
        'stderr: exec: \\"nvidia-container-cli\\": executable file not found in $PATH: unknown.',
        "couldn't find binary nvidia-container-cli in /usr/local/sbin:/usr/local/bin:/usr/bin",
    )
    assert all(level is not None for level in read.values()), read


def test_the_toolkit_refused_its_privileges_or_a_mig_capability_node(matrix: Matrix) -> None:
    """SELinux or a rootless runtime refusing the CLI's privileges, a driver root that is not
    there, and MIG's capability device nodes missing: no GPU for the container, and its GPU
    request is not what is missing (SC531 stays silent)."""
    texts = (
        "nvidia-container-cli: permission error: capability change failed: operation not "
        "permitted\n[ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1",
        "stderr: nvidia-container-cli: initialization error: privilege change failed: operation "
        "not permitted: unknown.",
        "nvidia-container-cli: initialization error: open failed: /proc/sys/kernel/overflowuid: "
        "permission denied",
        "nvidia-container-cli.real: initialization error: change root failed: no such file or "
        "directory: unknown",
        "nvidia-container-cli: mount error: stat failed: /dev/nvidia-caps/nvidia-cap21: no such "
        "file or directory",
    )
    for text in texts:
        found = findings(matrix, text + "\n")
        assert found.get("SC532") is not None, (text, found)
        assert "SC531" not in found, (text, found)


def test_wsl_without_its_gpu_device(matrix: Matrix) -> None:
    read = _levels(
        matrix,
        "SC532",
        "ls: cannot access '/dev/dxg': No such file or directory",
        "The /dev/dxg device is not available in my Ubuntu distro after the update.",
        "/dev/dxg does not exist in WSL",
    )
    assert all(level is not None for level in read.values()), read
    assert _levels(matrix, "SC532", "Is /dev/dxg missing on WSL 1?") == {
        "Is /dev/dxg missing on WSL 1?": None
    }


def test_ucx_without_its_cuda_ipc_transport(matrix: Matrix) -> None:
    said = (
        "[1750907562.7] [node:7568:0]  ucp_context.c:1108 UCX  WARN  transport 'cuda_ipc' is not "
        "available, please use one or more of: cma, posix, rc, self, sysv, tcp",
        "UCX WARN transports `cuda_ipc`, `cuda_copy` are not available",
    )
    _apart(matrix, "SC1414", Severity.WARNING, said, ("transport 'tcp' is not available",))
    text = said[1] + "\n"
    assert "libuct_cuda" in " ".join(
        f.message for f in check(read_report(text, "pasted").snapshot, matrix).findings
    )


def test_an_ngc_hpc_image_that_found_no_driver(matrix: Matrix) -> None:
    read = _levels(
        matrix,
        "SC532",
        "ERROR Failed to verify GPU driver: GPU driver verification failed: Failed to parse host "
        "GPU driver version Malformed version:",
        "FATAL Please double check that GPU passthrough is enabled: `--nv` (Singularity), "
        "`--gpus all` (Docker)",
    )
    assert all(level is not None for level in read.values()), read
