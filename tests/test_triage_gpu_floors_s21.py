"""Triage readings of s21 in the gpu-arch area: a GPU named on an issue template's `NVIDIA GPU`
field or in a list written with dashes, and the only CUDA a report shows predating that GPU
(tests/data/reports, sources cited there: NVIDIA/TensorRT's issue template and two of its
threads, 1746 and 1755)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.matrix.index import MatrixIndex
from tests.support.pasted import reads


def _gpus(text: str) -> list[str]:
    return [g.name for g in read_report(text, "pasted").snapshot.gpus.devices]


def test_gpu_on_a_template_field_or_a_dashed_list_is_read() -> None:
    """NVIDIA/TensorRT's template (`**NVIDIA GPU**: RTX 4080`, 1746; `GT 730`, 1747) and a
    reporter's own dashed list (`GPU type - Tesla T4`, 1755)."""
    assert _gpus("**NVIDIA GPU**: RTX 4080\n") == ["RTX 4080"]
    assert _gpus("**NVIDIA GPU**: GT 730\n") == ["GT 730"]
    assert _gpus("GPU type - Tesla T4\n") == ["Tesla T4"]
    assert _gpus("- GPU: Tesla V100, 4 of them\n") == ["Tesla V100"]
    # A word joined by a dash, or a dash before no GPU name, names none.
    for said in ("GPU-accelerated builds\n", "GPU - not sure which one\n"):
        assert _gpus(said) == [], said


def test_cuda_older_than_the_gpu_is_a_missing_architecture(matrix: Matrix) -> None:
    """1746 (CUDA 11.7 beside an RTX 4080, whose sm_89 came with 11.8: TensorRT 8.4 had no
    kernels for it) and 1755 (CUDA 9.0 beside a Tesla T4, a Turing of CUDA 10.0): a warning,
    the text not saying what was built with that CUDA."""
    t4 = "GPU type - Tesla T4\nCUDA version -9.0, V9.0.176\nCUDNN version - 7.5.0\n"
    # A CUDA that knows the GPU, or a newer CUDA shown beside the old one, or a PyTorch build
    # (SC202 judges its own arch list), is not this case.
    newer = "GPU type - Tesla T4\nCUDA version - 10.1\n"
    both = (
        "**NVIDIA GPU**: RTX 4080\n**CUDA Version**: 11.7\n"
        "Cuda compilation tools, release 12.1, V12.1.105\n"
    )
    torch = "GPU: Tesla T4\nCUDA version: 9.0\nPyTorch: 2.3.1+cu121\n"
    reads(matrix, "SC202", Severity.WARNING, ("1746", "1755", t4), (newer, both, torch))


def test_ollama_offloading_to_a_gpu_below_its_builds_floor(matrix: Matrix) -> None:
    """1713: Ollama's runner offloads layers while ggml lists a Tesla K80 (3.7); Ollama's CUDA
    builds start at compute capability 5.0 (https://docs.ollama.com/gpu). The same log on a
    GPU of 5.0 or newer, or without a GPU, is not this case."""
    offload = (
        "Jan  1 20:22:43 thinkstation-s30 ollama[911]: 2024/01/01 20:22:43 llama.go:300: "
        "24762 MB VRAM available, loading up to 162 GPU layers\n"
    )
    device = "ggml_init_cublas: found 1 CUDA devices:\n  Device 0: {}, compute capability {}\n"
    k80 = offload + device.format("Tesla K80", "3.7")
    t4 = offload + device.format("Tesla T4", "7.5")
    reads(matrix, "SC202", Severity.WARNING, ("1713", k80), (t4, offload))


def test_tensorrt_release_named_on_a_gpu_below_its_floor(matrix: Matrix) -> None:
    """1747: TensorRT 8.6.1.6 on a GT 730 (Kepler, 3.5); TensorRT 8.5 was the last release for
    Kepler (8.5.2 release notes). The same GPU with TensorRT 8.5.3, or 8.6 on a Maxwell card
    (5.0), is not this case; TensorRT-LLM's version is not TensorRT's."""
    template = "**TensorRT Version**: {}\n\n**NVIDIA GPU**: {}\n"
    kepler = template.format("8.6.1.6", "GT 730")
    dashed = "GPU type - Tesla K80\nTRT version - 8.6.1\n"
    older = template.format("8.5.3.1", "GT 730")
    maxwell = template.format("8.6.1.6", "GeForce GTX 750 Ti")
    llm = "TensorRT-LLM version: 9.0\nGPU: Tesla K80\n"
    reads(matrix, "SC202", Severity.WARNING, ("1747", kepler, dashed), (older, maxwell, llm))
    index = MatrixIndex(matrix)
    assert index.tensorrt_floor("8.5.3") is None
    floor = index.tensorrt_floor("10.1.0")
    assert floor is not None and floor.min_compute_capability == "6.0" and floor.unsure
