"""The fourteenth pass's readings on GPU visibility in Kubernetes, on shapes of text beyond the
corpus reports they were written for (each cited)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body
from tests.test_triage_gpu_stack import findings


def _pod(image: str, extra: str = "") -> str:
    return (
        "```yaml\n"
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata:\n"
        "  name: train\n"
        "spec:\n"
        "  containers:\n"
        "    - name: train\n"
        f"      image: {image}\n"
        "      command: ['python3', 'train.py']\n"
        f"{extra}"
        "```\n"
    )


def test_a_framework_example_pod_without_a_gpu_request_is_advice(matrix: Matrix) -> None:
    """kubeflow/trainer#1637 (1447): Kubeflow's simple PyTorchJob runs `pytorch-mnist` with no
    GPU limit and also runs on CPUs; the image's name alone (a framework, no CUDA or GPU tag)
    does not show the fault, so SC531 is info, not a warning."""
    assert "SC531" not in {
        k for k, v in findings(matrix, body("1447")).items() if v != Severity.INFO
    }
    for image in (
        "docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727",
        "tensorflow/tensorflow:2.15.0",
    ):
        assert findings(matrix, _pod(image)).get("SC531") is Severity.INFO, image


def test_a_gpu_build_image_or_a_missing_gpu_keeps_the_warning(matrix: Matrix) -> None:
    """A pod whose image names a CUDA or GPU build still warns; one whose process then found no
    GPU is an error, whatever the image is called."""
    for image in (
        "pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime",
        "tensorflow/tensorflow:2.15.0-gpu",
        "nvcr.io/nvidia/pytorch:24.01-py3",
    ):
        assert findings(matrix, _pod(image)).get("SC531") is Severity.WARNING, image
    missing = _pod("kubeflowkatib/pytorch-mnist:v1") + "RuntimeError: No CUDA GPUs are available\n"
    assert findings(matrix, missing).get("SC531") is Severity.ERROR


def _levels(matrix: Matrix, rule: str, *sentences: str) -> dict[str, Severity | None]:
    """The level ``rule`` gives each sentence read alone (None: no finding)."""
    return {s: findings(matrix, s + "\n").get(rule) for s in sentences}


def test_dataloader_out_of_shared_memory_in_prose_is_read(matrix: Matrix) -> None:
    """kubeflow/pipelines#11136 (1446): a reporter says in their own words that the DataLoader
    ran out of shared memory (typos and all); other phrasings of the same kind read the same, a
    GPU kernel's on-chip shared memory and a question do not."""
    assert findings(matrix, body("1446")).get("SC502") is Severity.ERROR
    read = _levels(
        matrix,
        "SC502",
        "i  faced problem that share memory out ouf bound error when use kfp v2 with pytorch "
        "dataLoder",
        "Training in the pod fails because the DataLoader ran out of shared memory.",
        "We hit /dev/shm exhausted errors as soon as the PyTorch data loader started 8 workers.",
    )
    assert set(read.values()) == {Severity.ERROR}, read
    ignored = _levels(
        matrix,
        "SC502",
        "The kernel's shared memory ran out of space per block before the DataLoader started.",
        "Could /dev/shm run out when the DataLoader starts its workers?",
    )
    assert set(ignored.values()) == {None}, ignored


def test_nvml_load_failure_in_prose_is_read(matrix: Matrix) -> None:
    """NVIDIA/k8s-device-plugin#314 (1432): the device plugin's NVML load failure restated in
    prose ('or else you get "failed to load NVML" errors') says a process saw no driver."""
    assert "SC532" in findings(matrix, body("1432"))
    read = _levels(
        matrix,
        "SC532",
        'The device plugin pod keeps crashing and you get "failed to load NVML" errors.',
        "The nvidia-device-plugin daemonset is unable to load NVML on the new nodes.",
        "The plugin could not load NVML after we switched the nodes to containerd.",
    )
    assert None not in read.values(), read
    assert "SC532" not in findings(matrix, "Why does the plugin fail to load NVML?\n")


def test_gpus_left_in_mig_mode_in_prose_are_read(matrix: Matrix) -> None:
    """NVIDIA/mig-parted#129 (1449): GPUs a partial mig-parted config did not list keep their
    MIG mode, as the reporter says ('GPUs 0-3 were enabled for MIG'); a negation does not."""
    assert findings(matrix, body("1449")).get("SC1121") is Severity.WARNING
    read = _levels(
        matrix,
        "SC1121",
        "That cause GPUs 0-3 were enabled for MIG, which was not my intention.",
        "After applying the config, GPUs 0-3 stayed in MIG mode.",
        "The unlisted devices remained MIG-enabled after nvidia-mig-parted apply.",
    )
    assert set(read.values()) == {Severity.WARNING}, read
    assert "SC1121" not in findings(matrix, "GPUs 0-3 were not enabled for MIG.\n")


def _observed(text: str) -> dict[str, str | None]:
    return {o.kind: o.value for o in read_report(text, "report.txt").snapshot.observed}


def test_an_image_missing_from_its_registry_is_read_and_blames_nothing(matrix: Matrix) -> None:
    """NVIDIA/k8s-device-plugin#216 and #230 (1451, 1452): a device plugin release named in the
    manifests before its image was published. Kubelet's, Docker's and the registry's words for
    an image that is not there are read, and no rule blames the GPU stack for them."""
    for text in (
        body("1451"),
        body("1452"),
        '  Warning  Failed  8s  kubelet Failed to pull image "nvcr.io/nvidia/gpu-operator:v99.1.0":'
        " rpc error: code = NotFound desc = failed to pull and unpack image\n",
        "Error response from daemon: pull access denied for nvidia/k8s-device-plugin, repository "
        "does not exist or may require 'docker login'\n",
    ):
        assert "image-not-found" in _observed(text), text
        assert findings(matrix, text) == {}, text


def test_the_gpu_operator_release_is_read_from_its_template_and_prose() -> None:
    """NVIDIA/gpu-operator#629 (1443): the operator's bug template names its release; so do a
    Helm chart's name and prose."""
    assert _observed(body("1443")).get("gpu-operator-version") == "23.6.1"
    for text, version in (
        ("* GPU Operator Version: v24.3.0\n", "24.3.0"),
        ("We installed gpu-operator-v23.9.1 with Helm on EKS.\n", "23.9.1"),
        ("The cluster runs GPU Operator 1.11.1 and containerd.\n", "1.11.1"),
    ):
        assert _observed(text).get("gpu-operator-version") == version, text
