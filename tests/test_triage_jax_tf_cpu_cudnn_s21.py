"""Triage readings of JAX's and TensorFlow's own words about a build without CUDA or a cuDNN it
cannot load, and of PyTorch's CPU builds in Ultralytics' banners, from the nineteenth split's
reports (tests/data/reports, source cited there) and the other shapes the same text takes."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.matrix import Matrix
from tests.corpus import body
from tests.support.pasted import findings


def test_jax_says_a_gpu_is_there_when_it_has_no_cuda_backend(matrix: Matrix) -> None:
    """2001-2003: JAX prints its warning only where it found an NVIDIA device node, so the
    message is a warning by itself; its second half quoted alone reads the same."""
    for key in ("2001", "2002", "2003"):
        assert findings(matrix, body(key)).get("SC1326") is Severity.WARNING, key
    for said in (
        "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
        "installed. Falling back to cpu.\n",
        "> CUDA-enabled jaxlib is not installed\n",
    ):
        assert findings(matrix, said).get("SC1326") is Severity.WARNING, said
    for prose in (
        "If a CUDA-enabled jaxlib is not installed, JAX uses the CPU.\n",
        "Make sure a CUDA-enabled jaxlib is installed.\n",
    ):
        assert "SC1326" not in findings(matrix, prose), prose


def test_jax_could_not_load_cudnn(matrix: Matrix) -> None:
    """2011: JAX's CUDA backend found no cuDNN to load and fell back to the CPU; the same words
    in the later list of CUDA component issues."""
    assert findings(matrix, body("2011")).get("SC301") is Severity.ERROR
    for said in (
        "CUDA backend failed to initialize: Unable to load cuDNN. Is it installed? (Set "
        "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n",
        "Unable to use CUDA because of the following issues with CUDA components:\n"
        "Unable to load cuDNN. Is it installed?\n",
    ):
        assert findings(matrix, said).get("SC301") is Severity.ERROR, said
    assert "SC301" not in findings(matrix, "Unable to load cuFFT. Is it installed?\n")


def test_a_cpu_build_a_banner_shows_running_is_the_jobs(matrix: Matrix) -> None:
    """1968: an older run's banner saw the RTX 3070 with a cu111 build, the newer one ran
    torch 2.0.0+cpu on the CPU; a CPU build merely installed beside a CUDA one stays advice."""
    assert findings(matrix, body("1968")).get("SC201") is Severity.WARNING
    banners = (
        "Ultralytics YOLOv8.0.20 Python-3.10.9 torch-1.13.1+cu117 CUDA:0 (NVIDIA GeForce RTX "
        "4090, 24564MiB)\n"
        "Ultralytics YOLOv8.0.90 Python-3.10.9 torch-2.0.1+cpu CPU\n"
    )
    assert findings(matrix, banners).get("SC201") is Severity.WARNING
    listed = "GPU 0: NVIDIA GeForce RTX 4090\ntorch==1.13.1+cu117\ntorch==2.0.1+cpu\n"
    assert findings(matrix, listed).get("SC201") is not Severity.WARNING


def test_a_program_said_to_use_the_cpu_instead_of_the_gpu(matrix: Matrix) -> None:
    """1967: a +cpu build in YOLOv5's banner, and the reporter says training ran on the CPU
    instead of the GPU; a wish or a question to use the CPU is not that."""
    assert findings(matrix, body("1967")).get("SC201") is Severity.WARNING
    banner = "YOLOv5 🚀 2023-1-5 torch 1.13.1+cpu CPU\n"
    for said in (
        "Training runs on the CPU rather than the GPU.\n",
        "训练时用的是CPU而不是GPU\n",
    ):
        assert findings(matrix, banner + said).get("SC201") is Severity.WARNING, said
    for wish in (
        "I want to use the CPU instead of the GPU.\n",
        "Why is it using the CPU instead of the GPU?\n",
    ):
        assert findings(matrix, banner + wish).get("SC201") is None, wish


def test_the_torch_said_to_be_the_cpu_build(matrix: Matrix) -> None:
    """2037: an official GPU image run with `--gpus all` whose torch the reporter found to be
    the CPU build; the same said in English; a link to Read the Docs is no CPU-only builder."""
    assert findings(matrix, body("2037")).get("SC201") is Severity.ERROR
    run = "docker run --gpus all example/gpu-image:v1 serve\n"
    assert findings(matrix, run + "The torch in the image is the CPU-only version.\n").get(
        "SC201"
    ) in (Severity.ERROR, Severity.WARNING)
    assert "SC201" not in findings(matrix, run + "Is the torch in the image the CPU version?\n")


def test_a_report_saying_cudnn_is_missing_or_installed_wrongly(matrix: Matrix) -> None:
    """2015: an image on nvidia/cuda:10.1-base, which carries no cuDNN; 2013: cuDNN installed
    wrongly for a jaxlib built for cuDNN 8.6. Questions, conditions and advice are not read."""
    for key in ("2013", "2015"):
        assert findings(matrix, body(key)).get("SC301") is Severity.WARNING, key
    for said in (
        "The base image nvidia/cuda:11.8.0-runtime-ubuntu22.04 doesn't ship cuDNN.\n",
        "cuDNN is not installed in the container.\n",
        "It turned out cuDNN was installed incorrectly.\n",
    ):
        assert findings(matrix, said).get("SC301") is Severity.WARNING, said
    for asked in (
        "Does the image not include cuDNN?\n",
        "Make sure cuDNN is not installed twice.\n",
        "If cuDNN was installed incorrectly, TensorFlow fails to start.\n",
    ):
        assert "SC301" not in findings(matrix, asked), asked
