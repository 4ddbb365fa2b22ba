"""NVML through NVIDIA's ``pynvml`` (package nvidia-ml-py), with a deadline.

NVML is in-process and can block on a sick GPU, so queries run in a daemon thread that the
probe stops waiting for. NVML does not create a CUDA context.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from stackcheck.live.nvml_health import gpu_health
from stackcheck.parsers.nvidia import GpuRecord
from stackcheck.snapshot.hardware import GpuHealth
from stackcheck.versions import cuda_from_int

DEFAULT_TIMEOUT = 3.0


@dataclass
class NvmlReport:
    driver_version: str | None = None
    cuda_version: str | None = None  # the newest CUDA the driver supports
    gpus: list[GpuRecord] = field(default_factory=list)
    health: list[GpuHealth] = field(default_factory=list)  # the hardware path, per GPU
    reason: str | None = None  # why NVML gave no answer


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _query(nvml: Any) -> NvmlReport:
    nvml.nvmlInit()
    try:
        report = NvmlReport(driver_version=_text(nvml.nvmlSystemGetDriverVersion()))
        try:
            report.cuda_version = cuda_from_int(int(nvml.nvmlSystemGetCudaDriverVersion_v2()))
        except nvml.NVMLError:
            report.cuda_version = None
        for index in range(int(nvml.nvmlDeviceGetCount())):
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
            try:
                cc_major, cc_minor = nvml.nvmlDeviceGetCudaComputeCapability(handle)
                cc: str | None = f"{cc_major}.{cc_minor}"
            except nvml.NVMLError:
                cc = None
            record = GpuRecord(
                name=_text(nvml.nvmlDeviceGetName(handle)),
                index=index,
                memory_mib=int(nvml.nvmlDeviceGetMemoryInfo(handle).total) // (1 << 20),
                pci_bus_id=_text(nvml.nvmlDeviceGetPciInfo(handle).busId),
                compute_capability=cc,
            )
            report.gpus.append(record)
            report.health.append(
                gpu_health(nvml, handle, index, record.pci_bus_id or "", record.name)
            )
        return report
    finally:
        nvml.nvmlShutdown()


def query(module: ModuleType | None = None, timeout: float = DEFAULT_TIMEOUT) -> NvmlReport:
    """Driver, CUDA and GPUs from NVML; a report with ``reason`` set when NVML cannot answer."""
    if module is None:
        try:
            import pynvml
        except ImportError:
            return NvmlReport(reason="pynvml (nvidia-ml-py) is not installed")
        module = pynvml
    nvml = module
    outcome: list[NvmlReport] = []

    def work() -> None:
        try:
            outcome.append(_query(nvml))
        except Exception as exc:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...
            outcome.append(NvmlReport(reason=f"NVML: {_describe(exc)}"))

    worker = threading.Thread(target=work, name="stackcheck-nvml", daemon=True)
    worker.start()
    worker.join(timeout)
    if not outcome:
        return NvmlReport(reason=f"NVML did not answer within {timeout:g} s")
    return outcome[0]


def _describe(exc: Exception) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__
