"""Triage readings of builds without CUDA beyond PyTorch (TensorFlow 2.11+ on native Windows,
tf.test.is_built_with_cuda() False), of ColossalAI's extension build check, and of a compiler
refusing an architecture that no GPU of the machine has (the build's flags, not the stack), from
the thirteenth split's reports (tests/data/reports, source cited there) and the other shapes the
same kinds of text take."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body
from tests.support.pasted import findings, reads

_NVCC = "nvcc fatal   : Unsupported gpu architecture 'compute_90'\n"


def test_a_compiler_refusing_an_architecture_no_gpu_here_has_is_advice(matrix: Matrix) -> None:
    """1307: a build script asks CUDA 11.7's nvcc for compute_90 on a p4d (A100) host."""
    assert findings(matrix, body("1307")).get("SC202") is Severity.INFO
    for host in (
        "environment AWS EC2 P4d.24xlarge instances, with CUDA 11.7\n",
        "GPU: 8x A100 80GB\n",
        "We run on a DGX A100.\n",
    ):
        assert findings(matrix, host + _NVCC).get("SC202") is Severity.INFO, host


def test_a_compiler_refusing_the_gpus_own_architecture_stays_an_error(matrix: Matrix) -> None:
    """The GPU present needs the architecture the toolkit lacks, or no GPU is shown."""
    assert findings(matrix, _NVCC).get("SC202") is Severity.ERROR
    for host in ("GPU: 8x H100 80GB\n", "environment AWS EC2 p5.48xlarge, CUDA 11.7\n"):
        assert findings(matrix, host + _NVCC).get("SC202") is Severity.ERROR, host
    ampere = (
        "GPU: NVIDIA GeForce RTX 3090\nnvcc fatal : Unsupported gpu architecture 'compute_86'\n"
    )
    assert findings(matrix, ampere).get("SC202") is Severity.ERROR


def test_a_gpu_the_reporter_lacks_is_not_the_machines(matrix: Matrix) -> None:
    for said in (
        "works on A100 instances, but I don't have a H100 machine to test.",
        "We do not have access to an H100 cluster.",
        "without a DGX H100 we cannot check it",
    ):
        snapshot = read_report(said + "\n", "pasted").snapshot
        assert not snapshot.gpus.devices, said
    assert read_report("We train on a H100 cluster.\n", "pasted").snapshot.gpus.devices


_COLOSSAL = (
    "Exception: [extension] Failed to build PyTorch extension because the detected CUDA version "
    "({0}) mismatches the version that was used to compile PyTorch ({1}).Please make sure you "
    "have set the \n"
)


def test_colossalai_extension_check_states_the_cuda_pair(matrix: Matrix) -> None:
    """1311, 1312: ColossalAI's op builder names the toolkit's CUDA and PyTorch's."""
    for key in ("1311", "1312"):
        assert findings(matrix, body(key)).get("SC203") is Severity.ERROR, key
    assert findings(matrix, _COLOSSAL.format("12.1", "11.8")).get("SC203") is Severity.ERROR


def test_tensorflow_issue_form_on_native_windows(matrix: Matrix) -> None:
    """1346, 1348: TensorFlow's issue form with a release after 2.10 on Windows and a CUDA."""
    for key in ("1346", "1347", "1348", "1349"):
        assert findings(matrix, body(key)).get("SC1326") is Severity.WARNING, key
    form = "### TensorFlow version\n\n{0}\n\n### OS platform and distribution\n\n{1}\n\n{2}"
    cuda = "### CUDA/cuDNN version\n\n12.3\n"
    assert findings(matrix, form.format("2.15.0", "Windows 11 Pro", cuda))["SC1326"] is (
        Severity.WARNING
    )
    # No CUDA and no GPU named: advice only; 2.10 (the last with GPU there) or WSL: nothing.
    assert findings(matrix, form.format("2.15.0", "Windows 10", "")).get("SC1326") is (
        Severity.INFO
    )
    assert "SC1326" not in findings(matrix, form.format("2.10.1", "Windows 10", cuda))
    assert "SC1326" not in findings(matrix, form.format("2.15.0", "Windows 11 WSL2", cuda))
    assert "SC1326" not in findings(matrix, form.format("2.15.0", "Ubuntu 22.04", cuda))


def test_tensorflow_stated_in_prose_on_native_windows(matrix: Matrix) -> None:
    gpu = " My GPU is an NVIDIA GeForce RTX 3060. My CUDA version is 12.1."
    for said in (
        "My system is Windows 11. My tensorflow version is 2.12.0.",
        "I am running on Windows 10 with tensorflow==2.13.1.",
        "OS: Windows 10, TensorFlow 2.16",
        "OS: Windows 11\ntensorflow-intel          2.13.0",
    ):
        assert findings(matrix, said + gpu + "\n").get("SC1326") is Severity.WARNING, said
    for said in (
        "My system is Windows 11 with WSL2. My tensorflow version is 2.12.0.",
        "I run on Windows 10 with tensorflow 2.10.0.",
        "My system is Ubuntu 22.04. My tensorflow version is 2.12.0.",
    ):
        assert "SC1326" not in findings(matrix, said + gpu + "\n"), said


def test_tensorflow_says_its_build_has_no_cuda(matrix: Matrix) -> None:
    for said in (
        "print(tf.test.is_built_with_cuda()) # False",
        "tf.test.is_built_with_cuda() returns False",
    ):
        text = said + "\nMy CUDA version is 12.1.\n"
        assert findings(matrix, text).get("SC1326") is Severity.WARNING, said
    assert "SC1326" not in findings(matrix, "tf.test.is_built_with_cuda() returns True\n")


def test_a_stated_cuda_the_stated_driver_cannot_run(matrix: Matrix) -> None:
    """1339: Ubuntu 18.04's default driver 390.87 under CUDA 9.2 (which needs 396.26). Within
    the driver's reach (minor-version compatibility from CUDA 11 on): nothing."""
    assert findings(matrix, body("1339")).get("SC101") is Severity.WARNING
    reads(
        matrix,
        "SC101",
        Severity.WARNING,
        (
            "The driver is 470.82.01. Install CUDA 12.1.",
            "My NVIDIA driver is 418.87 and I use CUDA 10.2.",
        ),
        ("The driver is 535.104.05. Install CUDA 12.4.", "The driver is 396.26. Install CUDA 9.2."),
    )


def test_a_driver_said_too_old_for_the_gpu(matrix: Matrix) -> None:
    """1373: an AMI's driver 450 on the A10 GPUs of G5 instances."""
    assert findings(matrix, body("1373")).get("SC101") is Severity.WARNING
    reads(
        matrix,
        "SC101",
        Severity.WARNING,
        ("The driver 470.57 does not support the H100.", "Our driver is too old for the RTX 4090."),
        ("Is the driver too old for the A10?", "Check whether the driver is too old for the H100."),
    )


def test_other_frameworks_say_their_build_has_no_cuda(matrix: Matrix) -> None:
    """JAX, PaddlePaddle and ONNX Runtime name their CPU builds; a warning where the report
    shows an NVIDIA GPU or a driver, advice where it shows none (a CPU-only box asked for CUDA).
    JAX's own warning is printed only where it found an NVIDIA device node: a warning alone."""
    smi = "NVIDIA-SMI 550.144.03             Driver Version: 550.144.03     CUDA Version: 12.4\n"
    jax = (
        "WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a "
        "CUDA-enabled jaxlib is not installed. Falling back to cpu.\n"
    )
    assert findings(matrix, jax).get("SC1326") is Severity.WARNING
    for said in (
        "E0224 15:37:10.817626 18616 place.cc:359] Cannot use GPU because you have installed "
        "CPU version PaddlePaddle.",
        "2020-09-08 09:14:59 ERROR: You are using paddlepaddle cpu version! Please try to "
        "install paddlepaddle-gpu to run model on GPU.",
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider "
        "names.Available providers: 'CPUExecutionProvider'",
    ):
        assert findings(matrix, smi + said + "\n").get("SC1326") is Severity.WARNING, said
        assert findings(matrix, said + "\n").get("SC1326") is Severity.INFO, said
    # The CUDA provider is in the list (it failed for another reason): not a CPU build.
    present = (
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider "
        "names.Available providers: 'TensorrtExecutionProvider, CUDAExecutionProvider'\n"
    )
    assert "SC1326" not in findings(matrix, smi + present)


def test_a_gpu_newer_than_the_drivers_branch(matrix: Matrix) -> None:
    """The matrix's first CUDA per GPU: an H100 (CUDA 11.8, driver 520.61.05) on R470."""
    old = "GPU: 8x H100 80GB\nNvidia driver version: 470.82.01\n"
    assert findings(matrix, old).get("SC101") is Severity.WARNING
    for fits in (
        "GPU: 8x H100 80GB\nNvidia driver version: 535.104.05\n",
        "GPU: 8x A100 80GB\nNvidia driver version: 450.80.02\n",
    ):
        assert "SC101" not in findings(matrix, fits), fits
