"""Triage readings from s21: stable texts in reports that triage read nothing from (Azure's VM
size and hypervisor generation refusal, gpud's NVML persistence check, accelerate's CPU choice,
the k8s device plugin's release, GNU ld's unreadable input, an empty loader cache for libcuda,
vLLM's failed engine call) and the WSL 2 fix of linking libcuda beside a pip cuDNN
(tests/data/reports, sources cited there)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body
from tests.support.pasted import findings, observed, reads


def test_healthy_reports_are_read_without_a_finding(matrix: Matrix) -> None:
    for key, kind in (
        ("366", "persistence-on-reported"),
        ("880", "device-plugin-version"),
        ("1120", "vm-generation-mismatch"),
        ("1152", "cpu-intended"),
        ("1153", "cpu-intended"),
        ("1718", "libcuda-not-in-ld-cache"),
        ("1851", "engine-call-failed"),
        ("1862", "link-input-unreadable"),
    ):
        assert kind in observed(body(key)), key
        loud = {r: s for r, s in findings(matrix, body(key)).items() if s is not Severity.INFO}
        assert not loud, (key, loud)


def test_values_read() -> None:
    assert observed(body("880"))["device-plugin-version"] == "0.18.2"
    assert observed(body("1120"))["vm-generation-mismatch"] == "Standard_NC6_Promo 2"
    assert observed(body("1851"))["engine-call-failed"] == "collective_rpc"
    assert observed("nvidia-device-plugin v0.14.1 on all nodes")["device-plugin-version"] == (
        "0.14.1"
    )


def test_near_misses_are_not_read() -> None:
    for said, kind in (
        # gpud's other verdict is a monitor's, not read as persistence on
        (
            "⚠ NVML persistence mode is disabled (nvidia-persistenced running false)",
            "persistence-on-reported",
        ),
        # another machine type chosen: the answer is not the multi-CPU option's number
        (
            "Which type of machine are you using? ([0] No distributed training, [1] multi-CPU, "
            "[2] multi-GPU, [3] TPU): 2",
            "cpu-intended",
        ),
        ("accelerator = Accelerator(cpu=False)", "cpu-intended"),
        (
            "`ldconfig -p | grep libcuda.so` => libcuda.so.1 (libc6,x86-64)",
            "libcuda-not-in-ld-cache",
        ),
        (
            "Should I link /usr/lib/wsl/lib/libcuda.so.1 into site-packages/nvidia/cudnn/lib where "
            "libcudnn_cnn_infer.so.8 is?",
            "cudnn-libcuda-unfound",
        ),
    ):
        assert kind not in observed(said), said


def test_wsl_libcuda_linked_beside_cudnn_is_cudnn(matrix: Matrix) -> None:
    """868: cuDNN 8's sub-library could not load the driver's libcuda, only in /usr/lib/wsl/lib."""
    reads(
        matrix,
        "SC301",
        Severity.ERROR,
        ("868",),
        (
            "If libcudnn_cnn_infer.so.8 fails, link /usr/lib/wsl/lib/libcuda.so.1 into the cudnn "
            "lib folder",
        ),
        kind="cudnn-libcuda-unfound",
    )


def test_azslurm_buckets_counts_per_vm_size() -> None:
    """1943: CycleCloud counted no GPUs for the H100 size (its bug); a row without a placement
    group and one with it read alike."""
    text = body("1943")
    snapshot = read_report(text, "pasted").snapshot
    assert [o.value for o in snapshot.observations("scheduler-gpu-count")] == [
        "Standard_F2s_v2 0",
        "Standard_ND96isr_H100_v5 0",
    ]
    assert any(s.segment.format.name == "azslurm_buckets" for s in read_report(text, "p").segments)


def test_dstack_gpu_resource_is_what_it_schedules() -> None:
    """1933: dstack detected the AMD iGPU, not the RTX 5090 beside it (its bug)."""
    values = [v for k, v in _all_observed(body("1933")) if k == "scheduler-gpu-count"]
    assert values == ["AMD Ryzen 9 9950X3D 16-Core Processor 1", "RTX5090 1"]
    assert "scheduler-gpu-count" not in observed("resources: nvidia.com/gpu=1")


def _all_observed(text: str) -> list[tuple[str, str | None]]:
    return [(o.kind, o.value) for o in read_report(text, "pasted").snapshot.observed]


def test_other_vendors_device_plugins_are_not_nvidias() -> None:
    for said in (
        "image: 602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/aws-efa-k8s-device-plugin:v0.5.6",
        "we run the AMD device plugin v1.25.2 on the MI300 nodes",
    ):
        assert "device-plugin-version" not in observed(said), said
    assert observed("image: nvcr.io/nvidia/k8s-device-plugin:v0.17.1")["device-plugin-version"] == (
        "0.17.1"
    )
