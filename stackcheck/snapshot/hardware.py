"""The hardware path under the stack: PCIe links, RDMA ports, GPU health, Xid events, IOMMU.

These are the snapshot's ``hardware`` section. Probes fill it from sysfs and NVML, triage from
``nvidia-smi -q``, ``nvidia-smi topo -m``, ``lspci -vv``, ``ibv_devinfo``, ``fi_info -v`` and
kernel log lines; the rules read only this.
Every field is ``None`` (or empty) where the source did not say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from stackcheck.snapshot.model import Evidence, _Model

DeviceKind = Literal["gpu", "nvswitch", "efa", "bridge"]


@dataclass(kw_only=True)
class PcieLink(_Model):
    """A PCIe link as the kernel (``current_link_speed``...) or a tool shows it.

    Speeds are GT/s per lane (2.5, 5, 8, 16, 32, 64: generations 1 to 6).
    """

    speed_gts: float | None = None
    width: int | None = None
    max_speed_gts: float | None = None
    max_width: int | None = None
    port_max_speed_gts: float | None = field(
        default=None,
        metadata={"description": "The upstream port's own maximum: the slot's capability."},
    )
    port_max_width: int | None = None


@dataclass(kw_only=True)
class PciDevice(_Model):
    """A GPU, NVSwitch or EFA device on the PCIe bus, and what sits above it."""

    address: str = field(
        metadata={"description": "Domain:bus:device.function, lower case: 0000:53:00.0"}
    )
    kind: DeviceKind
    name: str | None = field(
        default=None, metadata={"description": "GPU model or RDMA device name"}
    )
    gpu_index: int | None = None
    numa_node: int | None = None
    link: PcieLink = field(default_factory=PcieLink)
    upstream: list[str] = field(
        default_factory=list, metadata={"description": "The bridges above it, nearest first."}
    )
    acs_redirect: list[str] = field(
        default_factory=list,
        metadata={
            "description": "Bridges above it whose ACS control redirects peer-to-peer requests "
            "(Request or Completion Redirect set): traffic goes up through the root"
            " complex."
        },
    )
    iommu_group: int | None = None
    evidence: list[Evidence] = field(default_factory=list)


@dataclass(kw_only=True)
class RdmaPort(_Model):
    """One port of an RDMA device (EFA's rdmap*, mlx5_*)."""

    device: str
    port: int
    state: str | None = field(default=None, metadata={"description": "ACTIVE, DOWN, INIT, ARMED"})
    phys_state: str | None = field(
        default=None, metadata={"description": "LinkUp, Disabled, Polling"}
    )
    address: str | None = field(default=None, metadata={"description": "PCI address of the device"})
    counters: dict[str, int] = field(
        default_factory=dict,
        metadata={"description": "Error counters of the port, where the driver has them"},
    )
    evidence: list[Evidence] = field(default_factory=list)

    @property
    def up(self) -> bool | None:
        if self.state is None:
            return None
        return self.state.upper() == "ACTIVE"


@dataclass(kw_only=True)
class NvLink(_Model):
    link: int
    active: bool
    evidence: Evidence | None = None


@dataclass(kw_only=True)
class GpuHealth(_Model):
    """What NVML or ``nvidia-smi -q`` says of one GPU's state (not its identity: ``gpus``)."""

    bus_id: str | None = field(
        default=None,
        metadata={"description": "Normalised: 0000:53:00.0; None where the source names none"},
    )
    index: int | None = None
    name: str | None = None
    persistence_mode: bool | None = None
    mig_mode: bool | None = None
    throttle_reasons: list[str] = field(
        default_factory=list,
        metadata={
            "description": "Active clock event reasons that cost speed: HW Slowdown, HW Thermal "
            "Slowdown, HW Power Brake Slowdown, SW Thermal Slowdown, SW Power Cap."
        },
    )
    ecc_uncorrectable_volatile: int | None = None
    remap_pending: bool | None = None
    remap_failure: bool | None = None
    retired_pages_pending: bool | None = None
    pcie: PcieLink | None = None
    nvlinks: list[NvLink] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)


@dataclass(kw_only=True)
class XidEvent(_Model):
    """An ``NVRM: Xid`` line of the kernel log."""

    code: int
    bus_id: str | None = None
    text: str | None = None
    evidence: Evidence


@dataclass(kw_only=True)
class GpuNicPath(_Model):
    """One GPU-NIC cell of ``nvidia-smi topo -m``: how traffic between them travels."""

    gpu_index: int
    nic: str = field(
        metadata={"description": "The NIC Legend's name (mlx5_0, rdmap16s27), else NIC3"}
    )
    path: str = field(metadata={"description": "PIX, PXB, PHB, NODE or SYS (across NUMA nodes)"})
    gpu_numa_node: int | None = field(
        default=None, metadata={"description": "The row's NUMA Affinity"}
    )
    evidence: Evidence | None = None


@dataclass(kw_only=True)
class Hardware(_Model):
    devices: list[PciDevice] = field(default_factory=list)
    ports: list[RdmaPort] = field(default_factory=list)
    gpus: list[GpuHealth] = field(default_factory=list)
    xids: list[XidEvent] = field(default_factory=list)
    paths: list[GpuNicPath] = field(
        default_factory=list, metadata={"description": "GPU-NIC paths from nvidia-smi topo -m"}
    )
    iommu: Literal["translated", "passthrough", "off"] | None = field(
        default=None,
        metadata={
            "description": "translated: DMA goes through the IOMMU's tables (GPUDirect traffic is "
            "remapped); passthrough: identity mapping; off: no IOMMU groups."
        },
    )
    bare_metal: bool | None = field(
        default=None, metadata={"description": "The OS runs on the machine itself, not in a VM."}
    )
    evidence: list[Evidence] = field(default_factory=list)
    unknown: str | None = field(default=None, metadata={"description": "Why nothing was read."})

    def device(self, address: str) -> PciDevice | None:
        wanted = normalise_bus_id(address)
        return next((d for d in self.devices if d.address == wanted), None)


def normalise_bus_id(bus_id: str) -> str:
    """``00000000:53:00.0`` (NVML, nvidia-smi), ``0000:53:00.0`` (sysfs), ``53:00.0`` (lspci),
    ``PCI:0000:53:00`` (Xid lines) -> ``0000:53:00.0``."""
    text = bus_id.strip().lower().removeprefix("pci:")
    parts = text.split(":")
    if len(parts) == 2:
        parts.insert(0, "0000")
    domain = parts[0][-4:].rjust(4, "0")
    rest = ":".join(parts[1:])
    if "." not in rest:
        rest += ".0"
    return f"{domain}:{rest}"
