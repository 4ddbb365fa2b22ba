"""The twenty-first pass's readings (i7) on older development misses: what nvidia-smi working in
a container says about its GPU request, on shapes of text beyond the corpus reports they were
written for."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName
from tests.support.pasted import findings, observed


def test_a_quoted_list_of_commands_that_worked_says_nvidia_smi_works() -> None:
    """'In the container, "nvidia-smi,nvcc -V" worked.' (NVIDIA/nvidia-docker#1085): nvidia-smi
    named first in a quoted list of commands said to work; a question or the host is not."""
    for said in (
        'In the container, "nvidia-smi,nvcc -V" worked.',
        'Inside the image "nvidia-smi and nvcc --version" both work',
        "'nvidia-smi' works, but torch cannot see the GPU",
    ):
        assert "smi-works-stated" in observed(said), said
    for said in (
        '"nvidia-smi" works on the host only',
        'Why has "nvidia-smi, nvcc" worked?',
        '"nvidia-smi" does not work',
    ):
        assert "smi-works-stated" not in observed(said), said


def test_a_mig_uuid_a_program_could_not_parse_means_mig_is_meant_to_be_on(matrix: Matrix) -> None:
    """vllm-project/vllm#46132: a program's int() on `CUDA_VISIBLE_DEVICES=MIG-<UUID>` fails; the
    UUID was handed to the process as its device, so MIG on is advice, not a warning. A GPU UUID
    says nothing of MIG."""
    said = "The server runs on one MIG instance of an A100.\n"
    crash = (
        "ValueError: invalid literal for int() with base 10: "
        "'{}-4c60d78c-506f-5593-938d-a136eaa1fa52'\n"
    )
    assert findings(matrix, said).get("SC1121") is Severity.WARNING
    assert findings(matrix, said + crash.format("MIG")).get("SC1121") is Severity.INFO
    assert findings(matrix, said + crash.format("GPU")).get("SC1121") is Severity.WARNING


def test_a_job_said_to_span_several_mig_instances_keeps_mig_a_warning(matrix: Matrix) -> None:
    """vllm-project/vllm#7211: 'run a model with vllm across 2 GPU MIG partitions' with the same
    parse failure: one job over several instances is at odds with MIG, so SC1121 stays a
    warning; a question about it is not read."""
    crash = (
        "ValueError: invalid literal for int() with base 10: "
        "'MIG-2e782cfd-36f2-55ff-a7d5-c6734444be2b'\n"
    )
    for said in (
        "I found a bug when trying to run a model with vllm across 2 GPU MIG partitions.",
        "Tensor parallelism spanning two MIG slices fails at start.",
    ):
        assert "mig-spanned-stated" in observed(said), said
        assert findings(matrix, said + "\n" + crash).get("SC1121") is Severity.WARNING, said
    assert "mig-spanned-stated" not in observed("Can vLLM run across MIG instances?")


_CONTAINERD = """\
version = 2

[plugins."io.containerd.grpc.v1.cri".containerd]
  snapshotter = "overlayfs"
{default}
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes."nvidia"]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes."nvidia".options]
  BinaryName = "/usr/bin/nvidia-container-runtime"
"""

_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: cuda-vectoradd
spec:
  runtimeClassName: nvidia
  containers:
  - name: cuda-vectoradd
    image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda11.7.1
    resources:
      limits:
        nvidia.com/gpu: 1
"""


def test_containerd_with_the_nvidia_runtime_not_the_default_is_a_missing_request(
    matrix: Matrix,
) -> None:
    """A k3s-generated config (NVIDIA/gpu-operator#1017's setup): the nvidia runtime is defined,
    the CRI default stays runc, so pods without `runtimeClassName: nvidia` get no GPU. Not where
    the default is nvidia, not where a pod names the class, not where the paste stops before the
    section that holds the default."""
    assert findings(matrix, _CONTAINERD.format(default="")).get("SC531") is Severity.WARNING
    runc = _CONTAINERD.format(default='  default_runtime_name = "runc"')
    assert findings(matrix, runc).get("SC531") is Severity.WARNING
    unavailable = (
        runc + "\nFailed to allocate device vector A (error code CUDA driver version is "
        "insufficient for CUDA runtime version)!\n"
    )
    assert findings(matrix, unavailable).get("SC531") in (Severity.ERROR, Severity.WARNING)
    nvidia = _CONTAINERD.format(default='  default_runtime_name = "nvidia"')
    assert "SC531" not in findings(matrix, nvidia)
    assert "SC531" not in findings(matrix, _CONTAINERD.format(default="") + "\n" + _POD)
    cut = _CONTAINERD.split('[plugins."io.containerd.grpc.v1.cri".containerd]')[0]
    assert "SC531" not in findings(
        matrix, cut + '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes."nvidia"]\n'
    )


def test_a_cudnn_major_named_alone_is_the_installed_cudnn(matrix: Matrix) -> None:
    """microsoft/onnxruntime#20223: 'with cuda12.4 cudnn9 onnxruntime-win-x64-cuda12-1.17.1' (a
    package built for cuDNN 8): cuDNN's majors are how people name it. Not a package's
    `libcudnn9`, a wildcard (`cuDNN 8.x`), a requirement or another number."""
    read = (
        "apply yolov8n.onnx with cuda12.4 cudnn9 onnxruntime-win-x64-cuda12-1.17.1",
        "I use CUDA 12.4 and cuDNN 9 with onnxruntime-win-x64-cuda12-1.17.1",
    )
    for said in read:
        assert findings(matrix, said + "\n").get("SC301") is Severity.WARNING, said
    for said in (
        "apt install libcudnn9-cuda-12",
        "I have cuDNN 8.x installed",
        "cuDNN 10 beta",
        "cudnn 4",
        "cuDNN 9 is required for this build",
    ):
        assert not _stated(said), said
    assert _stated("I have cuDNN 8, I can find it by searching my directorys.") == ["cuDNN 8"]


def _stated(said: str) -> list[str]:
    """The cuDNN versions a line states, as --show-parsed names them."""
    snapshot = read_report(said + "\n", "pasted").snapshot
    return [f"cuDNN {i.version}" for i in snapshot.installations(ComponentName.CUDNN)]


def test_a_geforce_rtx_card_named_with_its_count_is_the_machines_gpu(matrix: Matrix) -> None:
    """deepspeedai/DeepSpeedExamples#845: 'a single node (2xNVIDIA 3090)' beside
    NCCL_P2P_DISABLE=1: the cards have no P2P over PCIe, so turning it off is advice. The count
    makes it the machine's GPU; a comparison or a card the reporter lacks is not."""
    p2p_off = "\nexport NCCL_P2P_DISABLE=1\n"
    for said in (
        "I ran the example on a single node (2xNVIDIA 3090).",
        "Machine is a server on Ubuntu 24 with 4*4090",
        "- GPU: 8x RTX 5090 (32GB each, PCIe, no NVLink)",
        "2 x GeForce RTX 3090 Ti",
    ):
        assert findings(matrix, said + p2p_off).get("SC601") is Severity.INFO, said
    for said in (
        "Performance shows little difference compared to 8\u00d7RTX 4090 GPUs.",
        "I don't have 2x 4090 to test",
        "Loss went from 3090 to 2x3 steps",
    ):
        assert findings(matrix, said + p2p_off).get("SC601") is Severity.WARNING, said
