"""NVML's hardware-path answers through the recorded-output seam: a module with pynvml's
interface answering what a recorded ``nvidia-smi -q`` of the same GPU shows."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from stackcheck.check.engine import check
from stackcheck.live import nvml
from stackcheck.matrix import Matrix
from stackcheck.snapshot import Snapshot, SnapshotSource

NOT_SUPPORTED = "Not Supported"


class RecordedA10:
    """The A10 of leptonai/gpud@8ddf848ef5b37d52f66fe71a20a6449ea0e10551:e2e/mock/nvidia-smi/
    test_data.go (tests/data/hardware/nvidia-smi-q-a10-*.txt) as NVML answers it: persistence
    Enabled, MIG N/A, PCIe Gen1 of 4 at x16, no uncorrectable ECC, no pending remaps, retired
    pages N/A, no NVLink; clock event reasons Idle, plus HW Slowdown and HW Power Brake
    Slowdown in the slowdown recording (nvml.h bits 0x1, 0x8, 0x80)."""

    class NVMLError(Exception):
        pass

    def __init__(self, slowdown: bool) -> None:
        self.reasons = 0x1 | (0x88 if slowdown else 0)

    def _unsupported(self, *_: Any) -> Any:
        raise self.NVMLError(NOT_SUPPORTED)

    nvmlDeviceGetMigMode = _unsupported
    nvmlDeviceGetRetiredPagesPendingStatus = _unsupported
    nvmlDeviceGetNvLinkState = _unsupported

    def nvmlInit(self) -> None: ...
    def nvmlShutdown(self) -> None: ...
    def nvmlSystemGetDriverVersion(self) -> str:
        return "550.127.05"

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        return 12040

    def nvmlDeviceGetCount(self) -> int:
        return 1

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        return index

    def nvmlDeviceGetName(self, handle: int) -> str:
        return "NVIDIA A10"

    def nvmlDeviceGetMemoryInfo(self, handle: int) -> Any:
        return SimpleNamespace(total=23028 * 1024 * 1024)

    def nvmlDeviceGetPciInfo(self, handle: int) -> Any:
        return SimpleNamespace(busId="00000000:06:00.0")

    def nvmlDeviceGetCudaComputeCapability(self, handle: int) -> tuple[int, int]:
        return (8, 6)

    def nvmlDeviceGetPersistenceMode(self, handle: int) -> int:
        return 1

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: int) -> int:
        return self.reasons

    def nvmlDeviceGetTotalEccErrors(self, handle: int, kind: int, counter: int) -> int:
        return 0

    def nvmlDeviceGetRemappedRows(self, handle: int) -> tuple[int, int, int, int]:
        return (0, 0, 0, 0)

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: int) -> int:
        return 1

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: int) -> int:
        return 4

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: int) -> int:
        return 16

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: int) -> int:
        return 16


def hardware_ids(report: nvml.NvmlReport, matrix: Matrix) -> list[str]:
    snapshot = Snapshot(source=SnapshotSource(kind="host", target="a10"))
    snapshot.hardware.gpus = report.health
    return [f.id for f in check(snapshot, matrix).findings if f.id.startswith("SC11")]


def test_nvml_health_of_the_recorded_a10(matrix: Matrix) -> None:
    report = nvml.query(RecordedA10(slowdown=False))  # type: ignore[arg-type]
    [health] = report.health
    assert health.bus_id == "0000:06:00.0" and health.persistence_mode is True
    assert health.mig_mode is None and health.retired_pages_pending is None
    assert (health.remap_pending, health.ecc_uncorrectable_volatile) == (False, 0)
    assert health.pcie is not None and (health.pcie.speed_gts, health.pcie.max_speed_gts) == (
        2.5,
        16.0,
    )
    assert health.throttle_reasons == [] and health.nvlinks == []
    assert hardware_ids(report, matrix) == []  # idle at Gen1 is not a degraded link


def test_nvml_hw_slowdown(matrix: Matrix) -> None:
    report = nvml.query(RecordedA10(slowdown=True))  # type: ignore[arg-type]
    assert report.health[0].throttle_reasons == ["HW Slowdown", "HW Power Brake Slowdown"]
    assert hardware_ids(report, matrix) == ["SC1115"]
