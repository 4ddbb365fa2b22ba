"""Triage reads the GPUs TensorFlow names in its own log lines (s19): the device it created
(1.x-2.3 and 2.4+ phrasings) and the properties it found (1.0-1.4 over two lines, 1.5-2.0 on
one, 2.1+), each with the compute capability (tests/data/reports, sources cited there)."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body


def gpus(text: str) -> list[tuple[str, str | None]]:
    devices = read_report(text, "pasted").snapshot.gpus.devices
    return [(d.name, d.compute_capability) for d in devices]


def test_the_device_tensorflow_created_is_the_machines_gpu() -> None:
    """1172: TF 2.3's 'Created TensorFlow device ... -> physical GPU (...)'; 2.4+ drops it."""
    assert gpus(body("1172")) == [("GeForce RTX 2080 Ti", "7.5")]
    created = (
        "2023-05-02 10:11:12.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1635] "
        "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 22290 MB memory:  -> "
        "device: 0, name: NVIDIA A10G, pci bus id: 0000:00:1e.0, compute capability: 8.6\n"
    )
    assert gpus(created) == [("NVIDIA A10G", "8.6")]


def test_the_properties_tensorflow_found_name_the_gpu() -> None:
    """1514 (TF 2.0, one line) and 789 (TF 1.0, name and capability on two lines)."""
    assert gpus(body("1514")) == [("Quadro K4200", "3.0")]
    assert gpus(body("789")) == [("GeForce GTX 460", "2.1")]
    found = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1555] Found device 0 with "
        "properties: \npciBusID: 0000:01:00.0 name: GeForce RTX 2070 computeCapability: 7.5\n"
        "coreClock: 1.62GHz coreCount: 36 deviceMemorySize: 7.79GiB\n"
    )
    assert gpus(found) == [("GeForce RTX 2070", "7.5")]


def test_a_healthy_tensorflow_log_raises_nothing(matrix: Matrix) -> None:
    created = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1635] Created device "
        "/job:localhost/replica:0/task:0/device:GPU:0 with 38420 MB memory:  -> device: 0, "
        "name: NVIDIA A100-SXM4-40GB, pci bus id: 0000:10:1c.0, compute capability: 8.0\n"
    )
    report = check(read_report(created, "pasted").snapshot, matrix)
    assert not [f for f in report.findings if f.severity is not Severity.INFO]
