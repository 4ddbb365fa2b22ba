"""Triage readings of JAX's and TensorFlow's own words about a build without CUDA or a cuDNN it
cannot load, and of PyTorch's CPU builds in Ultralytics' banners, from the nineteenth split's
reports (tests/data/reports, source cited there) and the other shapes the same text takes."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body


def findings(matrix: Matrix, text: str) -> dict[str, Severity]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return {f.id: f.severity for f in report.findings}


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
