"""Triage readings of cuDNN's mixed releases, GPU architectures a framework ignores, CPU-only
PyTorch builds an installer fell back to and Docker's 64 MB /dev/shm said in prose, from the
twelfth split's reports (tests/data/reports, source cited there) and the other shapes the same
kinds of text take: cuDNN 8's and 9's statuses, glibc's LD_DEBUG and /proc/PID/maps, pip's
name-version form."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName
from tests.support.pasted import findings, observed, reads


def test_cudnn_statuses_for_parts_of_two_releases_are_errors(matrix: Matrix) -> None:
    """cuDNN 9's sub-library statuses and 8.x's version check: the loaded cuDNN is not one
    release (pytorch/pytorch#188892, koharu-rs/koharu#694); another status names no stack fault."""
    for said in (
        "Error: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH on all detection engines",
        "RuntimeError: cuDNN error: CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED",
        "RuntimeError: cuDNN error: CUDNN_STATUS_VERSION_MISMATCH",
        "`torch==2.12.1+cu130` ships an internally-incomplete cuDNN 9.20 wheel → "
        "`CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH` when any other system cuDNN is on the path",
    ):
        assert findings(matrix, said + "\n").get("SC301") is Severity.ERROR, said
    for said in (
        "RuntimeError: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a "
        "non-contiguous input.",
        "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR",
    ):
        assert "SC301" not in findings(matrix, said + "\n"), said


_LD_DEBUG_MIXED = """\
$ LD_DEBUG=libs python bug.py 2>&1 | grep -i "calling init:.*cudnn"
5580:     calling init: /home/u/env/site-packages/nvidia/cudnn/lib/libcudnn.so.9
5580:     calling init: /home/u/env/site-packages/nvidia/cudnn/lib/libcudnn_graph.so.9
5580:     calling init: /lib/x86_64-linux-gnu/libcudnn_engines_tensor_ir.so.9
"""


def test_cudnn_loaded_from_two_folders_by_one_process(matrix: Matrix) -> None:
    """LD_DEBUG=libs shows a pip cuDNN 9 whose one sub-library came from the host's copy
    (pytorch/pytorch#185512): parts of two releases in one process."""
    seen = observed(_LD_DEBUG_MIXED)
    assert "two folders" in (seen.get("cudnn-mismatch") or "")
    assert findings(matrix, _LD_DEBUG_MIXED).get("SC301") is Severity.ERROR
    # /proc/PID/maps shows the same.
    maps = (
        "7f2c1a000000-7f2c1b000000 r-xp 00000000 08:01 1234 "
        "/opt/conda/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9\n"
        "7f2c1c000000-7f2c1d000000 r-xp 00000000 08:01 5678 "
        "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9\n"
    )
    assert findings(matrix, maps).get("SC301") is Severity.ERROR


def test_cudnn_loaded_from_one_folder_however_spelt_is_no_mix(matrix: Matrix) -> None:
    """Merged /usr, lib64 and CUDA's versioned folder are one folder; cuDNN 8 and 9 in one
    process (two majors) are no mix of one release's parts either."""
    for text in (
        "  12:     calling init: /lib/x86_64-linux-gnu/libcudnn.so.9\n"
        "  12:     calling init: /usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9\n",
        "  12:     calling init: /usr/local/cuda/lib64/libcudnn.so.8\n"
        "  12:     calling init: "
        "/usr/local/cuda-12.2/targets/x86_64-linux/lib/libcudnn_cnn_infer.so.8\n",
        "  12:     calling init: /usr/lib/x86_64-linux-gnu/libcudnn.so.8\n"
        "  12:     calling init: /opt/env/site-packages/nvidia/cudnn/lib/libcudnn.so.9\n",
    ):
        assert "cudnn-mismatch" not in observed(text), text
        assert "SC301" not in findings(matrix, text), text


def test_tensorflow_ignoring_a_gpu_quoted_without_its_bus_id(matrix: Matrix) -> None:
    """TensorFlow's message with the device description quoted without `pci bus id`
    (tlkh/ai-lab#30): the GPU and its capability are read, and the build lacks it."""
    said = (
        "`Ignoring visible gpu device (device: 0, name: Tesla K80, compute capability: 3.7) with "
        "Cuda compute capability 3.7. The minimum required Cuda capability is 6.0.`\n"
    )
    snapshot = read_report(said, "pasted").snapshot
    assert [g.compute_capability for g in snapshot.gpus.devices] == ["3.7"]
    assert findings(matrix, said).get("SC202") is Severity.ERROR


def test_pip_name_version_of_a_cpu_build(matrix: Matrix) -> None:
    """pip's `torch-2.6.0+cpu` (an install's summary, a wheel's name) and `torch in PATH
    (2.6.0+cpu)` state a CPU-only PyTorch; next to an NVIDIA GPU that is SC201."""
    for said in (
        "Successfully installed torch-2.6.0+cpu torchvision-0.21.0+cpu",
        "Requirement already satisfied: torch in c:\\app\\venv\\lib\\site-packages (2.6.0+cpu)",
        "Downloading torch-2.6.0+cpu-cp311-cp311-win_amd64.whl (204.1 MB)",
        " + torch==2.6.0+cpu",
    ):
        torch = read_report(said + "\n", "pasted").snapshot.installations(ComponentName.TORCH)
        assert [t.properties.get("cpu_only") for t in torch] == ["yes"], said
        gpu = "GPU 0: NVIDIA GeForce RTX 4060 Laptop GPU (UUID: GPU-1)\n"
        assert findings(matrix, gpu + said + "\n").get("SC201") is Severity.ERROR, said


def test_a_setup_that_fell_back_to_the_cpu_build(matrix: Matrix) -> None:
    """An installer that fell back to the CPU wheel named by its version (stemdeckapp/stemdeck#644)
    is PyTorch's own verdict; a fallback to the CPU *device*, a question or a condition is not."""
    reads(
        matrix,
        "SC201",
        Severity.ERROR,
        (
            "As a result, the application purges local environments and falls back to "
            "`torch-2.6.0+cpu`, preventing native utilization of discrete GPUs.",
            "The setup then reverted to torch==2.5.1+cpu.",
            "It restored torch-2.6.0+cpu after the CUDA wheel failed.",
        ),
        (
            "The CUDA path is silently falling back to CPU after a failed torch installation.",
            "Why does it fall back to torch-2.6.0+cpu?",
            "If the download fails, the setup falls back to torch-2.6.0+cpu.",
        ),
        kind="torch-cpu-only",
    )


_WORKER_DIED = "RuntimeError: DataLoader worker (pid(s) 76) exited unexpectedly\n"


def test_dockers_64mb_default_said_after_the_claim_with_a_condition(matrix: Matrix) -> None:
    """'/dev/shm is at only 64M by default' (aws/sagemaker-python-sdk#937): the condition later
    in the line ('but if one is using sagemaker') does not govern it."""
    for said in (
        "This is because /dev/shm is at only 64M by default. The solution to this seems to be "
        "simply passing `--shm-size` with a higher value to `docker run` but if one is using "
        "`sagemaker` that option isn't there.",
        "Docker gives the container 64MB of /dev/shm by default.",
    ):
        assert "shm-default-stated" in observed(said + "\n"), said
        assert findings(matrix, _WORKER_DIED + said + "\n").get("SC502") is Severity.WARNING
    for said in (
        "Is /dev/shm only 64M by default here?",
        "I wonder whether /dev/shm is 64M by default in SageMaker.",
    ):
        assert "shm-default-stated" not in observed(said + "\n"), said


def test_a_cudnn_symbol_undefined_in_a_cudnn_library(matrix: Matrix) -> None:
    """One cuDNN library lacking a symbol another calls: two releases mixed, whether cuDNN 9's
    dispatcher (MahmoudAshraf97/whisper-diarization#343) or cuDNN 8's loader says it; a CUDA
    library's own undefined symbol names no cuDNN mix."""
    for said in (
        "Could not load symbol cudnnGetLibConfig. Error: /lib/x86_64-linux-gnu/libcudnn_graph.so.9:"
        " undefined symbol: cudnnGetLibConfig",
        "Could not load library libcudnn_cnn_train.so.8. Error: /env/lib/libcudnn_ops_train.so.8: "
        "undefined symbol: _Z22cudnnGenericOpTensorNdILi2EE13cudnnStatus_t, version "
        "libcudnn_ops_infer.so.8",
    ):
        assert "parts of two cuDNN releases" in (observed(said + "\n").get("cudnn-mismatch") or "")
        assert findings(matrix, said + "\n").get("SC301") is Severity.ERROR, said
    said = (
        "Could not load library libcudnn_cnn_infer.so.8. Error: /usr/local/cuda/lib64/libnvrtc.so: "
        "undefined symbol: nvrtcGetCUBIN\n"
    )
    assert "cudnn-mismatch" not in observed(said)


def test_a_gpu_too_old_for_torch_compiles_triton(matrix: Matrix) -> None:
    """Inductor's refusal names the GPU and its capability (karpathy/nanoGPT#157), also where
    dynamo logs it as a warning."""
    for said in (
        "RuntimeError: Found NVIDIA GeForce GTX 1080 which is too old to be supported by the "
        "triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA "
        "Capability >= 7.0, but your device is of CUDA capability 6.1",
        "[2024-06-18 19:45:55,713] torch._dynamo.convert_frame: [WARNING] RuntimeError: Found "
        "NVIDIA GeForce GTX 1080 Ti which is too old to be supported by the triton GPU compiler, "
        "which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, "
        "but your device is of CUDA capability 6.1",
    ):
        snapshot = read_report(said + "\n", "pasted").snapshot
        assert [g.compute_capability for g in snapshot.gpus.devices] == ["6.1"]
        assert snapshot.gpus.devices[0].name.startswith("NVIDIA GeForce GTX 1080")
        assert findings(matrix, said + "\n").get("SC202") is Severity.ERROR, said


def test_limited_shared_memory_in_a_container_said(matrix: Matrix) -> None:
    """A maintainer's 'limited shared memory in docker' (bytedance/Protenix#2) is SC501's; a
    question or a denial is not."""
    assert (
        findings(matrix, "It is due to the limited shared memory in docker.\n").get("SC501")
        is Severity.WARNING
    )
    for said in (
        "Is it due to the limited shared memory in docker?",
        "This is not due to limited shared memory in the container.",
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
        "shared memory (shm).",
    ):
        assert "shm-too-small" not in observed(said + "\n"), said


def test_jax_outdated_cudnn(matrix: Matrix) -> None:
    """JAX 0.4.26+'s version check (conda-forge/jax-feedstock#149) names a cuDNN older than it
    supports."""
    said = (
        "CUDA backend failed to initialize: Unable to use CUDA because of the following issues "
        "with CUDA components:\nOutdated cuDNN installation found.\nVersion JAX was built "
        "against: 8907\nMinimum supported: 9100\nInstalled version: 8907\n"
    )
    assert findings(matrix, said).get("SC301") is Severity.ERROR


def test_torchelastic_exit_code_of_sigbus(matrix: Matrix) -> None:
    """torchelastic's `exitcode: -7` is SIGBUS (Megatron-LM#516): a crash in NCCL's frames is
    SC502's; alone it is a crash noted, no finding; another signal (-11, SIGSEGV) is not read."""
    failed = (
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: 0 "
        "(pid: 5275) of binary: /usr/bin/python\n"
    )
    assert observed(failed).get("process-crashed") == "bus error"
    assert observed("  exitcode  : -7 (pid: 100)\n").get("process-crashed") == "bus error"
    assert "process-crashed" not in observed("  exitcode  : -11 (pid: 6421)\n")
    assert findings(matrix, failed) == {}
    frames = " 1 0x000000000008170d ncclGroupEnd()  ???:0\n"
    assert findings(matrix, frames + failed).get("SC502") is Severity.ERROR


def _torch_builds(text: str) -> list[tuple[str | None, str | None]]:
    snapshot = read_report(text, "pasted").snapshot
    return [
        (t.version, t.properties.get("cpu_only"))
        for t in snapshot.installations(ComponentName.TORCH)
    ]


def test_build_attributes_said_of_a_cpu_build(matrix: Matrix) -> None:
    """`torch.__version__` said to be a +cpu version, `torch.version.cuda` said to be None
    (pytorch/pytorch#19128) state a CPU-only build; a condition, a negation or an assert does
    not (neither here nor where a value follows the expression on its line); beside an NVIDIA
    GPU it is SC201."""
    assert _torch_builds("`torch.__version__` returns '2.0.1+cpu'\n") == [("2.0.1+cpu", "yes")]
    said = (
        "Compiling PyTorch from sources (487388d8) ends up with torch.version.cuda = None "
        "leading to errors when trying to import apex: \n"
    )
    assert _torch_builds(said) == [(None, "yes")]
    for said in (
        "If torch.version.cuda is None, install the CUDA wheel.",
        "torch.version.cuda is not None",
        "assert torch.version.cuda is None",
        "if torch.version.cuda is None:",
    ):
        assert all(cpu is None for _, cpu in _torch_builds(said + "\n")), said
    gpu = "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1)\n"
    assert findings(matrix, gpu + "torch.__version__ is 2.1.0+cpu\n").get("SC201") is Severity.ERROR


def test_an_install_that_had_put_the_cpu_build_in_place(matrix: Matrix) -> None:
    """'pip had installed the CPU-only version of torch' is said like 'pip installed ...'."""
    said = "It turned out pip had installed the CPU-only version of torch.\n"
    assert findings(matrix, said).get("SC201") is Severity.ERROR
    assert "torch-cpu-only" not in observed("Has pip installed the CPU-only version of torch?\n")


def test_two_cudnn_installations_said(matrix: Matrix) -> None:
    """A maintainer's 'two conflicting cudnn installations, system-level and venv-level'
    (MahmoudAshraf97/whisper-diarization#343) names cuDNN's mix; a denial or a question not."""
    reads(
        matrix,
        "SC301",
        Severity.ERROR,
        (
            "sometimes this error means that there are two conflicting cudnn installations, "
            "system-level and venv-level",
            "I had two cuDNN installations: one from pip and one system-wide.",
        ),
        (
            "I don't have two cudnn installations.",
            "Do I have two cuDNN versions installed?",
            "There are no conflicting cuDNN installations here.",
        ),
        kind="cudnn-mismatch",
    )


def test_pytorch_said_to_lack_an_sm(matrix: Matrix) -> None:
    """A build said not to support an sm_ (lllyasviel/FramePack#550), actively or passively; a
    question, a condition or a statement that it is supported is not read."""
    reads(
        matrix,
        "SC202",
        Severity.ERROR,
        (
            "As of May 2025, the NVIDIA GeForce RTX 5090 (CUDA compute capability sm_120) is not "
            "officially supported by any released PyTorch builds (including both stable and "
            "nightly wheels).",
            "PyTorch 2.6 does not support the RTX 5090 (sm_120); you need the cu128 build.",
            "The stable torch doesn't support sm_120 yet, please use the nightly build.",
        ),
        (
            "Does torch 2.5 support sm_120?",
            "If torch does not support sm_120, the kernel fails.",
            "RTX 5090 (sm_120) is supported by torch 2.7 cu128.",
            "PyTorch 2.7 supports sm_120, so upgrade.",
        ),
        kind="no-kernel-image",
    )


def test_a_few_megabytes_of_shm_said(matrix: Matrix) -> None:
    """/dev/shm's size said as a few megabytes (RobotLocomotion/spartan#369's '64 megs', Chinese
    '默认shm是64M') is Docker's default named: advice alone, SC502's sign beside a dead worker;
    gigabytes, a question or a denial are not read."""
    for said in (
        "running inside the Docker container, it appears the only available shared memory is "
        "64 megs:",
        "查了我的docker容器默认shm是64M，请问应该改为多少G才不会报这个错",  # noqa: RUF001 (as posted)
        "which is caused by default small shared memory (64M) when docker starts container.",
        "The container only has 64MB of shared memory.",
    ):
        assert "shm-default-stated" in observed(said + "\n"), said
        assert findings(matrix, said + "\n").get("SC501") is Severity.INFO, said
        assert findings(matrix, _WORKER_DIED + said + "\n").get("SC502") is Severity.WARNING
    for said in (
        "My /dev/shm is 64G so that's not the problem.",
        "Is /dev/shm 64M in the container?",
        "The shared memory is not 64MB here.",
    ):
        assert "shm-default-stated" not in observed(said + "\n"), said


def test_a_message_cut_by_a_wrap_is_not_read_up_to_the_cut() -> None:
    """A CUDA error's name read only up to a browser's wrap ('CUDA error: invalid' then 'device
    ordinal Any idea why?') is no error of its own; a tool's deeper-indented next line (ggml's
    '  current device: 0, ...') is no wrap."""
    wrapped = (
        "When I run the job it fails with this message: RuntimeError: CUDA error: invalid\n"
        "device ordinal Any idea why?\n"
    )
    seen = observed(wrapped)
    assert "invalid-device-ordinal" in seen and "cuda-error" not in seen
    ggml = (
        "2025-03-07 10:00:00 ERROR CUDA error: an illegal memory access was encountered\n"
        "  current device: 0, in function ggml_cuda_compute_forward at ggml-cuda.cu:2325\n"
    )
    assert observed(ggml).get("cuda-error") == "an illegal memory access was encountered"
