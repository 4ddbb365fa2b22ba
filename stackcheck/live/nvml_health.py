"""The hardware-path questions asked of NVML for one GPU: PCIe link, NVLink states, clock event
reasons, ECC and row remapping, persistence and MIG mode.

Each question stands alone: a GPU or driver that does not support one (NVMLError_NotSupported on
a GeForce, no MIG on an A10G) leaves that field None and the others answered.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from stackcheck.parsers.hardware import GEN_SPEED
from stackcheck.snapshot.hardware import GpuHealth, NvLink, PcieLink, normalise_bus_id
from stackcheck.snapshot.model import Evidence

# nvmlClocksThrottleReason* / nvmlClocksEventReason* bits (nvml.h) that cost speed, named as
# nvidia-smi -q names them. Idle, application clocks, sync boost and the display clock are
# settings, not faults; the software power cap is a GPU at its power limit, normal under load.
THROTTLE_BITS = {
    0x08: "HW Slowdown",
    0x20: "SW Thermal Slowdown",
    0x40: "HW Thermal Slowdown",
    0x80: "HW Power Brake Slowdown",
}
NVLINK_MAX_LINKS = 18  # NVML_NVLINK_MAX_LINKS
_MEMORY_ERROR_UNCORRECTED = 1  # NVML_MEMORY_ERROR_TYPE_UNCORRECTED
_VOLATILE_ECC = 0  # NVML_VOLATILE_ECC

_T = TypeVar("_T")


def _ask(nvml: Any, call: Callable[[], _T]) -> _T | None:
    try:
        return call()
    except (nvml.NVMLError, AttributeError):  # not supported here, or an older pynvml
        return None


def _reasons(nvml: Any, handle: Any) -> list[str] | None:
    getter = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
        nvml, "nvmlDeviceGetCurrentClocksThrottleReasons", None
    )
    if getter is None:
        return None
    mask = _ask(nvml, lambda: int(getter(handle)))
    if mask is None:
        return None
    return [name for bit, name in THROTTLE_BITS.items() if mask & bit]


def _nvlink_state(nvml: Any, handle: Any, link: int) -> int:
    return int(nvml.nvmlDeviceGetNvLinkState(handle, link))


def gpu_health(nvml: Any, handle: Any, index: int, bus_id: str, name: str) -> GpuHealth:
    evidence = Evidence(kind="nvml", source=f"GPU {index} ({bus_id})", detail=name)
    health = GpuHealth(bus_id=normalise_bus_id(bus_id), index=index, name=name, evidence=[evidence])
    persistence = _ask(nvml, lambda: int(nvml.nvmlDeviceGetPersistenceMode(handle)))
    health.persistence_mode = None if persistence is None else persistence == 1
    mig = _ask(nvml, lambda: nvml.nvmlDeviceGetMigMode(handle))
    health.mig_mode = None if mig is None else int(mig[0]) == 1
    health.throttle_reasons = _reasons(nvml, handle) or []
    health.ecc_uncorrectable_volatile = _ask(
        nvml,
        lambda: int(
            nvml.nvmlDeviceGetTotalEccErrors(handle, _MEMORY_ERROR_UNCORRECTED, _VOLATILE_ECC)
        ),
    )
    remapped = _ask(nvml, lambda: nvml.nvmlDeviceGetRemappedRows(handle))
    if remapped is not None:
        health.remap_pending = bool(remapped[2])
        health.remap_failure = bool(remapped[3])
    pending = _ask(nvml, lambda: int(nvml.nvmlDeviceGetRetiredPagesPendingStatus(handle)))
    health.retired_pages_pending = None if pending is None else pending == 1
    gen = _ask(nvml, lambda: int(nvml.nvmlDeviceGetCurrPcieLinkGeneration(handle)))
    max_gen = _ask(nvml, lambda: int(nvml.nvmlDeviceGetMaxPcieLinkGeneration(handle)))
    health.pcie = PcieLink(
        speed_gts=GEN_SPEED.get(gen or 0),
        width=_ask(nvml, lambda: int(nvml.nvmlDeviceGetCurrPcieLinkWidth(handle))),
        max_speed_gts=GEN_SPEED.get(max_gen or 0),
        max_width=_ask(nvml, lambda: int(nvml.nvmlDeviceGetMaxPcieLinkWidth(handle))),
    )
    for link in range(NVLINK_MAX_LINKS):
        state = _ask(nvml, partial(_nvlink_state, nvml, handle, link))
        if state is None:
            continue  # the GPU has no such link (NVMLError_NotSupported / InvalidArgument)
        health.nvlinks.append(
            NvLink(
                link=link,
                active=state == 1,
                evidence=Evidence(
                    kind="nvml", source=f"nvmlDeviceGetNvLinkState(GPU {index}, {link})"
                ),
            )
        )
    return health
