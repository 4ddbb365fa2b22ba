"""The hardware path under the stack, from sysfs and NVML: PCIe links of the GPUs, NVSwitches and
EFA devices (with their NUMA node, the bridges above them and the ACS control of those bridges),
RDMA port states and error counters, IOMMU groups, and Xid lines of the kernel log.

Only small sysfs and proc files are read, and the tail of the kernel log: nothing is run, so the
probe costs milliseconds on a live host and works the same on a ``--root`` tree.
"""

from __future__ import annotations

import posixpath
import re

from stackcheck.parsers.hardware import (
    acs_redirects,
    port_state,
    sysfs_int,
    sysfs_speed,
    xid_line,
)
from stackcheck.probes.base import Probe
from stackcheck.probes.context import ProbeContext
from stackcheck.probes.driver import nvml_present
from stackcheck.probes.fabric_manager import NVSWITCH_PCI_IDS
from stackcheck.probes.sysfs import DMI_PRODUCT, PCI_DEVICES, SYS_INFINIBAND
from stackcheck.snapshot.hardware import (
    DeviceKind,
    Hardware,
    PciDevice,
    PcieLink,
    RdmaPort,
    XidEvent,
    normalise_bus_id,
)
from stackcheck.snapshot.model import Snapshot
from stackcheck.views.needs import Needs

IOMMU_GROUPS = "/sys/kernel/iommu_groups"
CPUINFO = "/proc/cpuinfo"
KERNEL_LOGS = ("/var/log/kern.log", "/var/log/messages")
_KERNEL_LOG_TAIL = 256 << 10  # the recent part: Xids of this boot are what matter
_MAX_XIDS = 64
_CONFIG_SPACE = 4096
_SMALL = 64
_NVIDIA = "0x10de"
_AMAZON = "0x1d0f"
# EFA device IDs (efa_pci_tbl in the Linux EFA driver: efa0, efa1, efa2, efa3).
_EFA_IDS = {"0xefa0", "0xefa1", "0xefa2", "0xefa3"}
# Counters of an EFA port that count failures, not traffic.
_ERROR_COUNTERS = (
    "rx_drops",
    "retrans_timeout_events",
    "rdma_read_wr_err",
    "rdma_write_wr_err",
    "impaired_remote_conn_events",
    "unresponsive_remote_events",
)
_PCI_ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
_LINK_FILES = ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width")


def _kind(vendor: str, device: str, pci_class: str) -> DeviceKind | None:
    if vendor == _NVIDIA and pci_class.startswith(("0x0302", "0x0300")):
        return "gpu"
    if vendor == _NVIDIA and device in NVSWITCH_PCI_IDS:
        return "nvswitch"
    if vendor == _AMAZON and device in _EFA_IDS:
        return "efa"
    return None


class HardwareProbe(Probe):
    name = "hardware"
    # Images carry no /sys; nothing to keep from their layers.
    needs = Needs()

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        hardware = snapshot.hardware
        view = ctx.view
        if not view.is_dir(PCI_DEVICES):
            hardware.unknown = f"{PCI_DEVICES} absent"
        else:
            self._pci(ctx, snapshot)
        self._ports(ctx, hardware)
        self._iommu(ctx, hardware)
        self._bare_metal(ctx, hardware)
        self._kernel_log(ctx, hardware)
        if ctx.live is not None and nvml_present(ctx):
            hardware.gpus = list(ctx.live.nvml().health)

    @staticmethod
    def _in(ctx: ProbeContext, directory: str, name: str) -> str:
        """A small file of a resolved sysfs directory."""
        data = ctx.view.read_child(directory, name, _SMALL) or b""
        return data.decode("utf-8", "replace").strip()

    def _pci(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        hardware = snapshot.hardware
        gpus = {normalise_bus_id(g.pci_bus_id): g for g in snapshot.gpus.devices if g.pci_bus_id}
        acs: dict[str, bool | None] = {}
        for address in ctx.view.listdir(PCI_DEVICES):
            base = posixpath.join(PCI_DEVICES, address)
            real = ctx.view.resolve(base)
            if real is None:
                continue
            kind = _kind(
                self._in(ctx, real, "vendor"),
                self._in(ctx, real, "device"),
                self._in(ctx, real, "class"),
            )
            if kind is None:
                continue
            speed, width, max_speed, max_width = (self._in(ctx, real, name) for name in _LINK_FILES)
            shown = f"{speed or '?'} x{width or '?'} (max {max_speed or '?'} x{max_width or '?'})"
            device = PciDevice(
                address=normalise_bus_id(address),
                kind=kind,
                numa_node=sysfs_int(self._in(ctx, real, "numa_node")),
                link=PcieLink(
                    speed_gts=sysfs_speed(speed),
                    width=sysfs_int(width),
                    max_speed_gts=sysfs_speed(max_speed),
                    max_width=sysfs_int(max_width),
                ),
                evidence=[ctx.file_evidence(f"{base}/current_link_speed", shown)],
            )
            gpu = gpus.get(device.address)
            if gpu is not None:
                device.name, device.gpu_index = gpu.name, gpu.index
            group = ctx.view.resolve(f"{base}/iommu_group")
            if group is not None and posixpath.basename(group).isdigit():
                device.iommu_group = int(posixpath.basename(group))
            self._upstream(ctx, real, device, acs)
            hardware.devices.append(device)
        hardware.devices.sort(key=lambda d: (d.kind, d.address))
        hardware.evidence.append(
            ctx.file_evidence(
                PCI_DEVICES,
                ", ".join(
                    f"{sum(d.kind == k for d in hardware.devices)} {k}"
                    for k in ("gpu", "nvswitch", "efa")
                ),
            )
        )

    def _upstream(
        self, ctx: ProbeContext, real: str, device: PciDevice, acs: dict[str, bool | None]
    ) -> None:
        """The bridges above the device (its real path names them: each is the directory
        above), the slot's own maximum, and which of them redirect peer-to-peer traffic."""
        parts = real.split("/")
        above = [
            "/".join(parts[: i + 1]) for i, p in enumerate(parts[:-1]) if _PCI_ADDRESS.match(p)
        ]
        device.upstream = [posixpath.basename(p) for p in reversed(above)]
        if not above:
            return
        port = above[-1]
        device.link.port_max_speed_gts = sysfs_speed(self._in(ctx, port, "max_link_speed"))
        device.link.port_max_width = sysfs_int(self._in(ctx, port, "max_link_width"))
        for bridge, path in zip(device.upstream, reversed(above), strict=True):
            if bridge not in acs:
                config = ctx.view.read_child(path, "config", _CONFIG_SPACE)
                acs[bridge] = acs_redirects(config or b"")
            if acs[bridge]:
                device.acs_redirect.append(bridge)

    def _ports(self, ctx: ProbeContext, hardware: Hardware) -> None:
        view = ctx.view
        for name in view.listdir(SYS_INFINIBAND):
            base = posixpath.join(SYS_INFINIBAND, name)
            pci = view.resolve(f"{base}/device")
            address = posixpath.basename(pci) if pci else None
            for port in view.listdir(f"{base}/ports"):
                where = f"{base}/ports/{port}"
                real = view.resolve(where)
                if not port.isdigit() or real is None:
                    continue
                state = self._in(ctx, real, "state")
                physical = self._in(ctx, real, "phys_state")
                counters: dict[str, int] = {}
                hw_counters = view.resolve(f"{real}/hw_counters")
                for counter in _ERROR_COUNTERS if hw_counters else ():
                    value = sysfs_int(self._in(ctx, hw_counters or "", counter))
                    if value is not None:
                        counters[counter] = value
                hardware.ports.append(
                    RdmaPort(
                        device=name,
                        port=int(port),
                        state=port_state(state),
                        phys_state=port_state(physical),
                        address=normalise_bus_id(address)
                        if address and _PCI_ADDRESS.match(address)
                        else None,
                        counters=counters,
                        evidence=[
                            ctx.file_evidence(f"{where}/state", state),
                            ctx.file_evidence(f"{where}/phys_state", physical),
                        ],
                    )
                )
                device = hardware.device(address) if address else None
                if device is not None and device.name is None:
                    device.name = name

    @staticmethod
    def _iommu(ctx: ProbeContext, hardware: Hardware) -> None:
        if not ctx.view.is_dir("/sys/kernel"):
            return  # a tree without /sys says nothing about the IOMMU
        groups = ctx.view.listdir(IOMMU_GROUPS)
        if not groups:
            hardware.iommu = "off"
            hardware.evidence.append(ctx.file_evidence(IOMMU_GROUPS, "no IOMMU groups"))
            return
        # The GPU's group tells how its DMA is mapped: "identity" (passthrough) or "DMA"/"DMA-FQ".
        group = next(
            (
                d.iommu_group
                for d in hardware.devices
                if d.kind == "gpu" and d.iommu_group is not None
            ),
            None,
        )
        if group is None:
            return
        path = f"{IOMMU_GROUPS}/{group}/type"
        kind = (ctx.view.read_text(path, _SMALL) or "").strip()
        if kind:
            hardware.iommu = "passthrough" if kind == "identity" else "translated"
            hardware.evidence.append(ctx.file_evidence(path, kind))

    @staticmethod
    def _bare_metal(ctx: ProbeContext, hardware: Hardware) -> None:
        product = ctx.dmi.product
        if product.endswith(".metal"):
            hardware.bare_metal = True
            hardware.evidence.append(ctx.file_evidence(DMI_PRODUCT, product))
            return
        # The first processor's flags: a guest's CPUs carry "hypervisor".
        head = ctx.view.read_text(CPUINFO, 16384)
        if head:
            flags = next((ln for ln in head.splitlines() if ln.startswith("flags")), None)
            if flags is not None:
                hardware.bare_metal = " hypervisor" not in flags
                hardware.evidence.append(
                    ctx.file_evidence(
                        CPUINFO,
                        "flags without hypervisor"
                        if hardware.bare_metal
                        else "flags: hypervisor (a virtual machine)",
                    )
                )

    @staticmethod
    def _kernel_log(ctx: ProbeContext, hardware: Hardware) -> None:
        for path in KERNEL_LOGS:
            entry = ctx.view.stat(path)
            if entry is None or entry.kind != "file":
                continue
            start = max(0, entry.size - _KERNEL_LOG_TAIL)
            text = ctx.view.read_at(path, start, _KERNEL_LOG_TAIL).decode("utf-8", "replace")
            # Newest first, so that a log full of one Xid still shows the latest others.
            for line in reversed(text.splitlines()):
                found = xid_line(line) if "Xid" in line else None
                if found is None:
                    continue
                hardware.xids.append(
                    XidEvent(
                        code=found.code,
                        bus_id=normalise_bus_id(found.bus_id),
                        text=found.text,
                        evidence=ctx.file_evidence(path, line.strip()[:200]),
                    )
                )
                if len(hardware.xids) >= _MAX_XIDS:
                    break
            hardware.xids.reverse()
            return
