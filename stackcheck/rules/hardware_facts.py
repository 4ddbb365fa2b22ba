"""What the hardware-path rules share: how a device is named in a message, which GPU or NIC it
serves, and how a PCIe link reads."""

from __future__ import annotations

from stackcheck.parsers.hardware import gen_of
from stackcheck.snapshot.hardware import GpuHealth, Hardware, PciDevice, PcieLink

_KIND = {"gpu": "GPU", "nvswitch": "NVSwitch", "efa": "EFA device", "bridge": "bridge"}
IDLE_SPEED = 2.5  # GT/s: an idle NVIDIA GPU drops its link to Gen1 to save power


def link_text(speed: float | None, width: int | None) -> str:
    parts = []
    if width is not None:
        parts.append(f"x{width}")
    if speed is not None:
        gen = gen_of(speed)
        parts.append(f"{speed:g} GT/s" + (f" (Gen{gen})" if gen else ""))
    return " ".join(parts) or "unknown"


def device_label(device: PciDevice) -> str:
    """``GPU 3 (NVIDIA H100 80GB HBM3, 0000:83:00.0, NUMA node 0)``."""
    head = _KIND[device.kind]
    if device.kind == "gpu" and device.gpu_index is not None:
        head += f" {device.gpu_index}"
    elif device.kind == "efa" and device.name:
        head += f" {device.name}"
    said = [device.name] if device.kind == "gpu" and device.name else []
    said.append(device.address)
    if device.numa_node is not None:
        said.append(f"NUMA node {device.numa_node}")
    return f"{head} ({', '.join(said)})"


def gpu_label(gpu: GpuHealth) -> str:
    head = "GPU" if gpu.index is None else f"GPU {gpu.index}"
    said = [p for p in (gpu.name, gpu.bus_id) if p]
    return f"{head} ({', '.join(said)})" if said else head


def peers(hardware: Hardware, device: PciDevice) -> list[PciDevice]:
    """The GPUs an EFA device serves, or the EFA devices a GPU sends through: those behind the
    same PCIe switch or root port (nvidia-smi topo's PIX/PXB), which GPUDirect RDMA pairs."""
    other = {"gpu": "efa", "efa": "gpu"}.get(device.kind)
    if other is None or not device.upstream:
        return []
    above = set(device.upstream)
    return [d for d in hardware.devices if d.kind == other and above & set(d.upstream)]


def serves(hardware: Hardware, device: PciDevice) -> str:
    found = peers(hardware, device)
    if not found:
        return ""
    names = ", ".join(
        (f"GPU {d.gpu_index}" if d.gpu_index is not None else d.address)
        if d.kind == "gpu"
        else (d.name or d.address)
        for d in found
    )
    return f"; it serves {names}" if device.kind == "efa" else f"; its EFA devices: {names}"


def capability(link: PcieLink) -> tuple[float | None, int | None]:
    """What the link can train at: the lower of the device's and the port's maximum."""
    speeds = [s for s in (link.max_speed_gts, link.port_max_speed_gts) if s is not None]
    widths = [w for w in (link.max_width, link.port_max_width) if w is not None]
    return (min(speeds) if speeds else None), (min(widths) if widths else None)


# Kinds whose PCIe link carries training traffic. An NVSwitch's PCIe link is its management
# path only (GPU traffic crosses NVLink), so its speed costs a job nothing.
DATA_PATH = ("gpu", "efa")


def degraded(link: PcieLink, gpu: bool) -> bool:
    """Whether the link trained below what it can do. A GPU's link at 2.5 GT/s is the driver's
    idle power saving, not a fault: it returns to full speed under load."""
    speed, width = capability(link)
    if link.width is not None and width is not None and link.width < width:
        return True
    if link.speed_gts is None or speed is None or link.speed_gts >= speed:
        return False
    return not (gpu and link.speed_gts <= IDLE_SPEED)
