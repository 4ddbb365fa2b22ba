"""Triage readings of applications that state a GPU their build or release cannot run on
(Ollama's minimum compute capability, ggml's cuBLAS call on a Maxwell card, TensorRT's
'Unsupported SM'), of PyTorch's wheel named in an environment list beside the GPU, and of
programs that refuse a feature the GPU lacks by design (FP8): recognised, no warning or error.
Texts from the seventeenth split's reports (tests/data/reports, sources cited there) and the
other shapes the same messages take in the tools' other releases."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.support.pasted import findings, reads


def test_applications_refusing_or_failing_on_the_gpus_architecture_are_errors(
    matrix: Matrix,
) -> None:
    read = (
        # Ollama 0.1.18-0.1.2x, and 0.1.3x on (the GPU's index before it, no fallback words)
        "2024/01/14 19:50:06 gpu.go:138: CUDA GPU is too old. Falling back to CPU mode. "
        "Compute Capability detected: 5.2",
        'time=2024-05-01T10:00:00.000Z level=INFO source=gpu.go:221 msg="[0] CUDA GPU is too '
        'old. Compute Capability detected: 3.5"',
        "cuBLAS error 15 at ggml-cuda.cu:7956: the requested functionality is not supported",
        "cuBLAS error 15 at /go/src/github.com/jmorganca/ollama/llm/llama.cpp/ggml-cuda.cu:7956",
        # TensorRT 7.x and 8.x
        "INTERNAL_ERROR: Assertion failed: Unsupported SM.",
        "ERROR: ../rtSafe/cuda/caskUtils.cpp (80) - Assertion Error in trtSmToCask: 0 "
        "(Unsupported SM.)",
        "[TRT] [E] 1: [caskUtils.cpp::trtSmToCask::147] Error Code 1: Internal Error "
        "(Unsupported SM: 0x809)",
    )
    # cuBLAS's status outside ggml names no architecture
    reads(
        matrix,
        "SC202",
        Severity.ERROR,
        read,
        ("cuBLAS error 15: the requested functionality is not supported",),
    )


def test_ggml_names_each_gpu_with_its_capability(matrix: Matrix) -> None:
    for said in (
        "  Device 0: Tesla K80, compute capability 3.7",
        "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes",
    ):
        triage = read_report(said + "\n", "pasted")
        assert triage.recognised
        assert [g.compute_capability for g in triage.snapshot.gpus.devices] == [
            said.split("capability ")[1][:3]
        ]
        assert not findings(matrix, said + "\n")


def test_a_pytorch_wheel_listed_beside_a_pascal_card_lacks_its_arch(matrix: Matrix) -> None:
    """PyTorch 2.8's cu128/cu129 wheels start at sm_70; cu126 keeps Pascal."""
    for text in (
        "- NVIDIA GeForce GTX 1080 Ti\n- Windows 10\n- 2.8.0+cu128\n",
        "**Setup:** i7-8750H, GTX 1070, 16 GB RAM.  \n**Versions:** PyTorch 2.8.0 + cu129  \n",
    ):
        assert findings(matrix, text).get("SC202") is Severity.ERROR, text
    assert "SC202" not in findings(
        matrix, "- NVIDIA GeForce GTX 1080 Ti\n- Windows 10\n- 2.8.0+cu126\n"
    )
    # torchvision's version alone is no PyTorch; a GPU in a sentence's middle is not a list item
    assert not read_report("- 0.23.0+cu128\n", "pasted").facts
    assert not read_report(
        "The GTX 1080 Ti of a friend works, mine fails\n", "pasted"
    ).snapshot.gpus.devices


def test_fp8_refused_on_an_older_gpu_is_recognised_and_healthy(matrix: Matrix) -> None:
    for said in (
        "[09/11/2024-21:49:27] [E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: "
        "API Usage Error (Networks with FP8 Q/DQ layers require hardware with FP8 support.)",
        "[04/09/2024-16:26:41] [TRT] [E] 9: [standardEngineBuilder.cpp::buildEngine::2266] "
        "Error Code 9: Internal Error (Networks with FP8 precision require hardware with FP8 "
        "support.)",
        "ValueError: The quantization method fp8 is not supported for the current GPU. Minimum "
        "capability: 90. Current capability: 86.",
        "ValueError: The quantization method gptq_marlin is not supported for the current GPU. "
        "Minimum capability: 80. Current capability: 75.",
        "AssertionError: Device compute capability 8.9 or higher required for FP8 execution.",
        "AssertionError: Device compute capability 9.x required for FP8 execution.",
        "torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or "
        "8.9, or ROCm MI300+",
        "RuntimeError: torch._scaled_mm is only supported on devices with compute capability "
        ">= 9.0)",
        "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
        "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to "
        "float16.",
        "AssertionError: fp8e4nv data type is not supported on CUDA arch < 89",
        'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes '
        "are ('fp8e4b15', 'fp8e5')\")",
    ):
        triage = read_report(said + "\n", "pasted")
        assert triage.recognised, said
        assert "gpu-feature-unsupported" in {o.kind for o in triage.snapshot.observed}
        found = {f.id: f.severity for f in check(triage.snapshot, matrix).findings}
        assert found == {"SC202": Severity.INFO}, said


def test_tensorflow_names_a_gpu_below_its_binaries_minimum(matrix: Matrix) -> None:
    """TensorFlow's released binaries start at compute capability 3.5 (tensorflow#27840)."""
    reads(
        matrix,
        "SC202",
        Severity.ERROR,
        (
            "name: Quadro K4200 major: 3 minor: 0 memoryClockRate(GHz): 0.784",
            "pciBusID: 0000:01:00.0 name: GeForce GTX 680 computeCapability: 3.0",
        ),
        (
            "name: Tesla K80 major: 3 minor: 7 memoryClockRate(GHz): 0.8235",
            "pciBusID: 0000:01:00.0 name: GeForce RTX 2070 computeCapability: 7.5",
        ),
    )


def test_an_install_said_to_put_the_cpu_build_in_place(matrix: Matrix) -> None:
    """Comfy-Org/ComfyUI#8484: an update script that reinstalls the CPU build of torch."""
    reads(
        matrix,
        "SC201",
        Severity.ERROR,
        (
            "by default, the original torch dependencies will be uninstalled and only the CPU "
            "version will be reinstalled.",
            "The update script reinstalls the CPU version of torch.",
        ),
        (
            "Is the CPU version installed?",
            "If the CPU version is installed, reinstall the CUDA one.",
        ),
    )


def test_xformers_finding_a_cpu_pytorch_is_a_cpu_build(matrix: Matrix) -> None:
    """open-mmlab/PIA#30: xFormers built for cu121 found 2.1.2+cpu; a Mac's untagged wheel or
    another CUDA build is no CPU build."""
    text = (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)\n"
    )
    assert findings(matrix, text).get("SC201") is Severity.ERROR
    reads(
        matrix,
        "SC201",
        Severity.ERROR,
        (),
        (
            "    PyTorch 2.0.1 with CUDA 1106 (you have 2.0.1)",
            "    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cu118)",
        ),
    )


def test_an_arch_list_quoted_for_pytorch_is_its_builds(matrix: Matrix) -> None:
    """pytorch/pytorch#95648: a list without sm_89 still runs on an sm_89 GPU (sm_86 code)."""
    said = 'pytorch says it supports "sm_37 sm_50 sm_60 sm_70 sm_80 sm_86 sm_90"'
    assert read_report(said + "\n", "pasted").recognised
    assert not findings(matrix, said + "\n")
    assert "SC202" not in findings(matrix, said + "\nI have a GeForce RTX 4090.\n")
    # another library's list is not PyTorch's
    assert not read_report('xformers supports "sm_80 sm_86 sm_89 sm_90"\n', "pasted").recognised


def test_pytorch_28s_warning_naming_another_cuda_variant(matrix: Matrix) -> None:
    """PyTorch 2.8-2.10's _check_capability names the variants that cover the GPU; the range
    warning alone is printed for a GB10 (sm_121) that sm_120 code runs on: no verdict."""
    text = (
        "UserWarning: \n"
        "    Found GPU0 Tesla P100-PCIE-16GB which is of cuda capability 6.0.\n"
        "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
        "    (7.0) - (12.0)\n"
        "UserWarning: \n"
        "    Please install PyTorch with a following CUDA\n"
        "    configurations:  12.6 following instructions at\n"
    )
    assert findings(matrix, text).get("SC202") is Severity.ERROR
    harmless = (
        "UserWarning:\n"
        "    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
        "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
        "    (8.0) - (12.0)\n"
    )
    assert "SC202" not in findings(matrix, harmless)
