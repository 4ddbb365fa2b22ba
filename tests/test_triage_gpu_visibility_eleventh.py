"""The eleventh pass's readings of GPU visibility in containers and Kubernetes, MIG and PyTorch
builds, on shapes of text beyond the corpus reports they were written for (each cited)."""

from __future__ import annotations

import pytest

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName
from tests.support.pasted import findings


def cpu_only(text: str) -> bool:
    torch = read_report(text, "pasted").snapshot.component(ComponentName.TORCH)
    return any(i.properties.get("cpu_only") == "yes" for i in torch.installations)


def test_torch_version_cuda_none_is_a_cpu_build(matrix: Matrix) -> None:
    """opendatalab/MinerU#240: `print(torch.version.cuda)` answering None in a REPL, or in a
    one-liner beside the version; a CUDA build's answer says nothing of a CPU build."""
    repl = ">>> print(torch.cuda.is_available())\nFalse\n>>> print(torch.version.cuda)\nNone\n"
    assert findings(matrix, repl).get("SC201") is Severity.WARNING
    one_line = "python -c 'import torch; print(torch.__version__, torch.version.cuda)'\n"
    one_line += "2.3.1 None\n"
    assert cpu_only(one_line)
    assert not cpu_only(">>> torch.version.cuda\n'12.1'\n")


# The container toolkit's hook and CUDA's cuInit failing with 'unknown error' (in the wrappers
# Docker, podman and programs put around them), the toolkit's cgroup-v2 device filter failing
# (libnvidia-container#154, and its load-program form), Docker's device request refused for
# capabilities other than gpu, and a stale CDI spec (nvidia-container-toolkit#885, and Docker
# 25's wrapper of the same): each a container or process without its GPU.
_NO_GPU = (
    "Error: OCI runtime error: crun: error executing hook `/usr/bin/nvidia-container-toolkit` "
    "(exit code: 1): nvidia-container-cli: initialization error: nvml error: unknown error\n",
    "stderr: nvidia-container-cli.real: initialization error: cuda error: unknown error: "
    "unknown.\n",
    "time=2025-01-01 level=INFO msg=ggml_cuda_init: failed to initialize CUDA: unknown error\n",
    "pycuda._driver.RuntimeError: cuInit failed: unknown error\n",
    "E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: "
    "CUDA_ERROR_UNKNOWN: unknown error\n",
    "nvidia-container-cli: mount error: failed to add device rules: unable to generate new "
    "device filter program from existing programs: unable to create new device filters "
    "program: load program: invalid argument\n",
    'docker: Error response from daemon: could not select device driver "" with '
    "capabilities: [[compute utility]].\n",
    "Error: setting up CDI devices: failed to inject devices: failed to stat CDI host device "
    '"/dev/nvidia1": no such file or directory\n',
    "docker: Error response from daemon: CDI device injection failed: failed to inject "
    'devices: failed to stat CDI host device "/dev/nvidia-uvm": no such file or directory.\n',
)


@pytest.mark.parametrize("text", _NO_GPU)
def test_container_messages_are_no_gpu(matrix: Matrix, text: str) -> None:
    assert findings(matrix, text).get("SC532") is Severity.ERROR


def test_envvar_refused_unprivileged_is_a_missing_request(matrix: Matrix) -> None:
    """k8s-device-plugin#203's panic and the later toolkit's log line for the same refusal."""
    for text in (
        "error: insufficient privileges to read device list from NVIDIA_VISIBLE_DEVICES envvar\n",
        "I1203 nvidia-container-runtime-hook: Ignoring devices specified in "
        "NVIDIA_VISIBLE_DEVICES (privileged=false, accept-nvidia-visible-devices-envvar-when-"
        "unprivileged=false)\n",
    ):
        assert findings(matrix, text).get("SC531") is Severity.WARNING, text


def test_mig_memory_info_denied_is_mig(matrix: Matrix) -> None:
    """k8s-device-plugin#399 (with its typo) and the plain spelling, from the GPU feature
    discovery too."""
    for text in (
        "error visiting device: error getting device memory info: Insufficient Pemmissions\n",
        "F0418 main.go:81] error getting device memory info: Insufficient Permissions\n",
    ):
        assert findings(matrix, text).get("SC1121") is Severity.WARNING, text


def test_visible_devices_beyond_the_gpus_hide_them(matrix: Matrix) -> None:
    """thuml/Autoformer#25: `export CUDA_VISIBLE_DEVICES=1` on a one-GPU machine and PyTorch
    sees none; a first index the machine has, or no sign that a process saw none, says nothing."""
    said = "On my machine with a single GPU, the script runs on the CPU.\n"
    unseen = ">>> torch.cuda.is_available()\nFalse\n"
    assert (
        findings(matrix, said + "export CUDA_VISIBLE_DEVICES=1\n" + unseen).get("SC1325")
        is Severity.WARNING
    )
    assert "SC1325" not in findings(matrix, said + "export CUDA_VISIBLE_DEVICES=0,1\n" + unseen)
    assert "SC1325" not in findings(matrix, said + "export CUDA_VISIBLE_DEVICES=1\n")
    two = "My server has 2 80G-A100.\nexport CUDA_VISIBLE_DEVICES=1\n" + unseen
    assert "SC1325" not in findings(matrix, two)


def test_a_value_told_before_the_expression(matrix: Matrix) -> None:
    """thuml/Autoformer#25: "the following returns false" and then the expression alone."""
    told = "On one GPU the following returns false\n`torch.cuda.is_available()`\n"
    assert read_report(told, "pasted").snapshot.observations("cuda-unavailable")
    asked = "Which of these returns false?\n`torch.cuda.is_available()`\n"
    assert not read_report(asked, "pasted").snapshot.observations("cuda-unavailable")


def test_nv_gpu_is_nvidia_dockers_request_and_privileged_sees_all(matrix: Matrix) -> None:
    """NVIDIA/nvidia-docker#764: `NV_GPU=1 nvidia-docker run --privileged=true` and the report
    that the container shows all the devices; `--privileged=false` is no privileged run."""
    run = "NV_GPU=1 nvidia-docker run -it --rm --privileged=true nvidia/cuda\n"
    spec = read_report(run, "pasted").snapshot.run_specs[0]
    assert spec.privileged and spec.gpus == "NV_GPU=1 (nvidia-docker)"
    assert spec.env["NVIDIA_VISIBLE_DEVICES"] == "1"
    assert findings(matrix, run).get("SC1324") is Severity.INFO
    seen = run + "it shows all the devices in the container\n"
    assert findings(matrix, seen).get("SC1324") is Severity.WARNING
    unprivileged = "docker run --privileged=false --gpus device=1 nvidia/cuda\n"
    assert not read_report(unprivileged, "pasted").snapshot.run_specs[0].privileged


def test_nvcc_release_after_a_label_is_read() -> None:
    """MadryLab/trak#68: `cuda version: Cuda compilation tools, release 11.8, V11.8.89`."""
    for text in (
        "cuda version: Cuda compilation tools, release 11.8, V11.8.89\n",
        "nvcc: Cuda compilation tools, release 11.8, V11.8.89\n",
    ):
        toolkit = read_report(text, "pasted").snapshot.component(ComponentName.CUDA_TOOLKIT)
        assert [i.version for i in toolkit.installations] == ["11.8.89"], text


def test_a_device_request_without_gpu_is_a_missing_request(matrix: Matrix) -> None:
    """torchx#825's `capabilities=[["compute"]]` and the same with utility; a request that names
    gpu says nothing."""
    for text in (
        "client.containers.run(image, device_requests=[DeviceRequest(count=1, "
        'capabilities=[["compute"]])])\n',
        "capabilities=[['compute', 'utility']]\n",
    ):
        assert findings(matrix, text).get("SC531") is Severity.WARNING, text
    assert "SC531" not in findings(matrix, 'capabilities=[["gpu"], ["nvidia", "compute"]]\n')
