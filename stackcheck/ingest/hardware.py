"""Facts of the hardware path stated by pasted text: a GPU's health, an NVLink link's state, an
RDMA port's state, an Xid line. Each fact knows how to lay itself into the snapshot's
``hardware`` section, so ``assemble`` needs one line for all of them."""

from __future__ import annotations

from abc import abstractmethod
from copy import deepcopy
from dataclasses import dataclass, field, replace
from typing import Any

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.lines import Line
from stackcheck.parsers.hardware import gen_of
from stackcheck.snapshot.hardware import (
    GpuHealth,
    GpuNicPath,
    Hardware,
    NvLink,
    PciDevice,
    RdmaPort,
    XidEvent,
    normalise_bus_id,
)
from stackcheck.snapshot.model import Evidence, field_names

_MAX_EVIDENCE = 6


@dataclass
class HardwareFact(Fact):
    @abstractmethod
    def apply(self, hardware: Hardware, evidence: Evidence) -> None: ...


def _at(evidence: Evidence, line: Line) -> Evidence:
    """Evidence like ``evidence`` (same text, same kind) for another of its lines."""
    return replace(evidence, line=line.number, detail=line.raw.strip()[:200])


def _stated(health: GpuHealth) -> dict[str, Any]:
    """The fields ``health`` states: those neither None nor empty."""
    return {
        name: getattr(health, name)
        for name in field_names(GpuHealth)
        if getattr(health, name) not in (None, [], {})
    }


def _gpu(hardware: Hardware, bus_id: str | None, index: int | None) -> GpuHealth:
    """The GPU a fact speaks of: by bus ID, else by index; a new one if none is known."""
    for gpu in hardware.gpus:
        if bus_id is not None and gpu.bus_id == bus_id:
            return gpu
        if bus_id is None and index is not None and gpu.index == index:
            return gpu
    gpu = GpuHealth(bus_id=bus_id, index=index)
    hardware.gpus.append(gpu)
    return gpu


@dataclass
class GpuHealthFact(HardwareFact):
    """What ``nvidia-smi -q`` says of one GPU; ``cited`` are its lines worth citing (the ones
    that state a fault), after the GPU's own header line."""

    health: GpuHealth
    cited: list[Line] = field(default_factory=list)

    def describe(self) -> str:
        gpu = self.health
        said = [f"GPU {gpu.bus_id or gpu.index}"]
        for label, value in (
            ("persistence", gpu.persistence_mode),
            ("MIG", gpu.mig_mode),
            ("remap pending", gpu.remap_pending),
            ("remap failure", gpu.remap_failure),
            ("uncorrectable ECC", gpu.ecc_uncorrectable_volatile),
        ):
            if value is not None:
                said.append(f"{label} {value}")
        if gpu.throttle_reasons:
            said.append("throttled: " + ", ".join(gpu.throttle_reasons))
        if gpu.pcie is not None and gpu.pcie.width is not None:
            said.append(f"PCIe x{gpu.pcie.width} Gen{gen_of(gpu.pcie.speed_gts)}")
        return ", ".join(said)

    def apply(self, hardware: Hardware, evidence: Evidence) -> None:
        known = _gpu(hardware, self.health.bus_id, self.health.index)
        updated = GpuHealth(**{**_stated(known), **_stated(self.health)})
        said = [evidence, *(_at(evidence, line) for line in self.cited)]
        updated.evidence = [*known.evidence, *said][:_MAX_EVIDENCE]
        hardware.gpus[hardware.gpus.index(known)] = updated


@dataclass
class NvLinkFact(HardwareFact):
    gpu_index: int | None
    link: int
    active: bool

    def describe(self) -> str:
        state = "active" if self.active else "inactive"
        gpu = "?" if self.gpu_index is None else self.gpu_index
        return f"GPU {gpu} NVLink {self.link} {state}"

    def apply(self, hardware: Hardware, evidence: Evidence) -> None:
        gpu = _gpu(hardware, None, self.gpu_index)
        gpu.nvlinks.append(NvLink(link=self.link, active=self.active, evidence=evidence))


@dataclass
class RdmaPortFact(HardwareFact):
    port: RdmaPort

    def describe(self) -> str:
        return f"RDMA {self.port.device} port {self.port.port}: {self.port.state}"

    def apply(self, hardware: Hardware, evidence: Evidence) -> None:
        port = deepcopy(self.port)
        port.evidence = [evidence]
        hardware.ports.append(port)


@dataclass
class XidFact(HardwareFact):
    code: int
    bus_id: str
    text: str

    def describe(self) -> str:
        return f"Xid {self.code} on {self.bus_id or 'a GPU'}"

    def apply(self, hardware: Hardware, evidence: Evidence) -> None:
        hardware.xids.append(
            XidEvent(
                code=self.code,
                # a message that names no GPU (prose, a wrapped NVRM line) leaves it unknown
                bus_id=normalise_bus_id(self.bus_id) if self.bus_id else None,
                text=self.text,
                evidence=evidence,
            )
        )


@dataclass
class GpuNicPathsFact(HardwareFact):
    """One GPU row of ``nvidia-smi topo -m``: its path to each NIC."""

    paths: list[GpuNicPath]

    def describe(self) -> str:
        said = ", ".join(f"{p.nic} {p.path}" for p in self.paths)
        numa = self.paths[0].gpu_numa_node if self.paths else None
        return f"GPU {self.paths[0].gpu_index if self.paths else '?'} (NUMA {numa}): {said}"

    def apply(self, hardware: Hardware, evidence: Evidence) -> None:
        for path in self.paths:
            hardware.paths.append(replace(path, evidence=evidence))


@dataclass
class PciDeviceFact(HardwareFact):
    """A GPU, NVSwitch or EFA device as ``lspci -vv`` shows it; ``cited`` are its lines worth
    citing after the header (LnkSta, ACSCtl of a bridge above)."""

    device: PciDevice
    cited: list[Line] = field(default_factory=list)

    def describe(self) -> str:
        link = self.device.link
        said = [f"{self.device.kind} {self.device.address}"]
        if link.width is not None:
            said.append(f"x{link.width} Gen{gen_of(link.speed_gts)}")
        if link.max_width is not None:
            said.append(f"capable of x{link.max_width} Gen{gen_of(link.max_speed_gts)}")
        if self.device.acs_redirect:
            said.append("ACS redirect at " + ", ".join(self.device.acs_redirect))
        return ", ".join(said)

    def apply(self, hardware: Hardware, evidence: Evidence) -> None:
        device = deepcopy(self.device)
        device.evidence = [evidence, *(_at(evidence, line) for line in self.cited)]
        known = hardware.device(device.address)
        if known is None:
            hardware.devices.append(device)
        else:  # the same device pasted twice: the later listing stands
            hardware.devices[hardware.devices.index(known)] = device
