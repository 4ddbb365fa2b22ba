"""Triage readings of builds and libraries that lack the GPU's architecture: tiny-cuda-nn's
extension built for another compute capability, TensorRT 10 refusing an SM it dropped,
TensorFlow's generated kernels failing to load their PTX (an RTX 50 under pip TF 2.20), and a
build's explicit nvcc arch flags (mmcv's MMCV_CUDA_ARGS) beside the GPU a report names. Texts
from the nineteenth split's reports (tests/data/reports, sources cited there) and the other
shapes the same settings take."""

from __future__ import annotations

from stackcheck.archs import flag_archs
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.support.pasted import findings


def test_libraries_saying_they_lack_the_gpus_architecture_are_errors(matrix: Matrix) -> None:
    for said in (
        "OSError: Could not find compatible tinycudann extension for compute capability 87.",
        "[11/01/2024-03:33:08] [TRT] [E] IBuilder::buildSerializedNetwork: Error Code 9: API "
        "Usage Error (Target GPU SM 70 is not supported by this TensorRT release.)",
        "W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] "
        "'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_INVALID_PTX'",
    ):
        assert findings(matrix, said + "\n").get("SC202") is Severity.ERROR, said
    # the handle that fails next says nothing of its own
    handle = (
        "W tensorflow/compiler/mlir/tools/kernel_gen/tf_gpu_runtime_wrappers.cc:40] "
        "'cuModuleGetFunction(&function, module, kernel_name)' failed with "
        "'CUDA_ERROR_INVALID_HANDLE'\n"
    )
    assert "SC202" not in findings(matrix, handle)
    # the raise statement a traceback shows names no capability
    raised = (
        '    raise EnvironmentError(f"Could not find compatible tinycudann extension for '
        'compute capability {system_compute_capability}.")\n'
    )
    assert "SC202" not in findings(matrix, raised)


def test_nvcc_arch_flags_name_what_a_build_carries() -> None:
    assert flag_archs("-gencode=arch=compute_61,code=sm_61") == ["sm_61"]
    assert flag_archs("-gencode arch=compute_70,code=[sm_70,compute_70]") == ["sm_70", "compute_70"]
    assert flag_archs("-O3 -arch=sm_37") == ["sm_37", "compute_37"]
    assert flag_archs("-Xfatbin -compress-all") == []


def test_build_flags_without_the_gpus_architecture(matrix: Matrix) -> None:
    gpu = "GPU version: v100, cuda:11.2, nvidia-driver:460\n"
    docker = 'FROM pytorch/pytorch:1.6.0-cuda10.1-cudnn7-devel\nENV MMCV_CUDA_ARGS="{}"\n'
    missing = "-gencode=arch=compute_61,code=sm_61"
    assert findings(matrix, gpu + docker.format(missing)).get("SC202") is Severity.ERROR
    assert "SC202" not in findings(
        matrix, gpu + docker.format("-gencode=arch=compute_70,code=sm_70")
    )
    # PTX of an older architecture JIT-compiles: slow, not broken
    ptx = "-gencode=arch=compute_61,code=compute_61"
    assert findings(matrix, gpu + docker.format(ptx)).get("SC202") is Severity.WARNING
    # the same flags in a shell or make line
    shell = 'export NVCC_APPEND_FLAGS="-gencode arch=compute_80,code=sm_80"\nGPU: H100 80GB\n'
    assert findings(matrix, shell).get("SC202") is Severity.ERROR
    # flags alone, with no GPU shown, say nothing of the machine
    assert "SC202" not in findings(matrix, docker.format(missing))


def test_a_gpu_version_line_names_the_gpu() -> None:
    triage = read_report("GPU version: v100, cuda:11.2, nvidia-driver:460\n", "pasted")
    assert [g.name for g in triage.snapshot.gpus.devices] == ["v100"]
    # a driver's version on such a line is no GPU
    assert not read_report("GPU version: 535.104.05\n", "pasted").snapshot.gpus.devices


def test_a_newer_driver_said_to_fix_it_is_the_driver_too_old(matrix: Matrix) -> None:
    for said in (
        "Updating to `550.90.07` helped with both trtllm versions.",
        "After upgrading the driver to 535.104.05 it works.",
        "I upgraded the nvidia driver to 550.54 and that solved the issue.",
    ):
        assert findings(matrix, said + "\n").get("SC101") is Severity.WARNING, said
    for said in (
        "Updating to 550.90.07 did not help.",
        "Would updating to 550.90.07 fix it?",
        "Updating torch to 2.1.0 fixed it.",
        # a version that is not a driver's, with no driver named
        "Updating to 100.2 fixed it.",
    ):
        assert not read_report(said + "\n", "pasted").facts, said
    # the driver shown is the one that fixed it: the text shows the stack after the fix
    after = (
        "| NVIDIA-SMI 550.90.07   Driver Version: 550.90.07   CUDA Version: 12.4     |\n"
        "Updating to `550.90.07` helped with both trtllm versions.\n"
    )
    assert "SC101" not in findings(matrix, after)


def test_a_torch_cuda_arch_list_without_the_gpus_architecture(matrix: Matrix) -> None:
    """Extension builds follow TORCH_CUDA_ARCH_LIST unless their own flags name an arch."""
    gpu = "GPU: H100 80GB\n"
    assert findings(matrix, 'TORCH_CUDA_ARCH_LIST="8.0"\n' + gpu).get("SC202") is Severity.WARNING
    assert findings(matrix, 'TORCH_CUDA_ARCH_LIST="8.0+PTX"\n' + gpu).get("SC202") is Severity.INFO
    for covered in ("8.0;9.0", "9.0a", "Hopper"):
        text = f'TORCH_CUDA_ARCH_LIST="{covered}"\n' + gpu
        assert "SC202" not in findings(matrix, text), covered
    # explicit -gencode flags replace the list: they, not the list, are compared
    docker = (
        "FROM pytorch/pytorch:1.6.0-cuda10.1-cudnn7-devel\n"
        'ENV TORCH_CUDA_ARCH_LIST="6.0 6.1"\n'
        'ENV MMCV_CUDA_ARGS="-gencode=arch=compute_70,code=sm_70"\n'
    )
    assert "SC202" not in findings(matrix, "GPU version: v100\n" + docker)
