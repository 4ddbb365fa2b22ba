"""Fleet drift of the hardware path: one node whose GPU link trained low, whose EFA port is
down or whose GPU is throttled, among nodes where the same device is fine."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from stackcheck.check.model import Severity
from stackcheck.fleet.context import Aspect, FleetContext
from stackcheck.rules.base import RuleDoc
from stackcheck.rules.fleet_drift import DriftRule, Reading
from stackcheck.rules.gpu_health import _memory_problems
from stackcheck.rules.hardware_facts import (
    DATA_PATH,
    capability,
    degraded,
    device_label,
    link_text,
)
from stackcheck.snapshot.model import Snapshot


def _link(address: str) -> Callable[[Snapshot], Reading | None]:
    def read(snapshot: Snapshot) -> Reading | None:
        hardware = snapshot.hardware
        if hardware.unknown or not hardware.devices:
            return None
        device = hardware.device(address)
        if device is None:
            return "absent", hardware.evidence[:1]
        if not degraded(device.link, device.kind == "gpu"):
            return "at its capability", ()
        speed, width = capability(device.link)
        value = (
            f"{link_text(device.link.speed_gts, device.link.width)}, capable of "
            f"{link_text(speed, width)}"
        )
        return value, device.evidence[:1]

    return read


def _port(device: str, number: int) -> Callable[[Snapshot], Reading | None]:
    def read(snapshot: Snapshot) -> Reading | None:
        ports = snapshot.hardware.ports
        if not ports:
            return None
        port = next((p for p in ports if p.device == device and p.port == number), None)
        if port is None:
            return "absent", ()
        return (port.state or "unknown"), port.evidence[:1]

    return read


def _gpu_state(bus_id: str) -> Callable[[Snapshot], Reading | None]:
    def read(snapshot: Snapshot) -> Reading | None:
        gpu = next((g for g in snapshot.hardware.gpus if g.bus_id == bus_id), None)
        if gpu is None:
            return None
        said, _ = _memory_problems(gpu)
        said = [*gpu.throttle_reasons, *said]
        return ("; ".join(said) or "healthy"), gpu.evidence[:1]

    return read


class HardwarePathDrift(DriftRule):
    id = "SC1140"
    name = "hardware-path-drift"
    family = "fleet-drift"
    severity = Severity.WARNING
    title = "A PCIe link, EFA port or GPU state differs between nodes"
    doc = RuleDoc(
        what="Compares, device by device across the nodes, whether each GPU's and EFA "
        "device's PCIe link runs at its capability, each RDMA port's state, and each GPU's "
        "throttle and memory-error state.",
        why="A multi-node job runs at the pace of its slowest node: one node with a GPU at x8, "
        "an EFA port down or a GPU in HW Slowdown makes every step of the job slower, and on "
        "its own that node looks merely a little slow.",
        example="63 nodes whose GPU 3 link runs at its capability and one (p5-017) where it "
        "trained at x8 16 GT/s.",
        fix="Drain the odd nodes (`scontrol update nodename=NODES state=drain "
        "reason=hardware-path-drift`) and have them reset or serviced; see the node's own "
        "pcie-link, efa-link and gpu-health findings.",
    )

    def aspects(self, fleet: FleetContext) -> Iterable[tuple[str, str, Aspect]]:
        devices: dict[str, str] = {}
        ports: dict[tuple[str, int], None] = {}
        gpus: dict[str, str] = {}
        for stack in fleet.stacks:
            hardware = stack.snapshot.hardware
            for device in hardware.devices:
                if device.kind in DATA_PATH:
                    devices.setdefault(device.address, device_label(device))
            for port in hardware.ports:
                ports.setdefault((port.device, port.port), None)
            for gpu in hardware.gpus:
                if gpu.bus_id is not None:
                    gpus.setdefault(gpu.bus_id, gpu.name or "GPU")
        for address, label in sorted(devices.items()):
            yield f"pcie-link {address}", f"The PCIe link of {label}", _link(address)
        for rdma, number in sorted(ports):
            yield f"rdma-port {rdma}/{number}", f"Port {number} of {rdma}", _port(rdma, number)
        for bus_id, name in sorted(gpus.items()):
            yield f"gpu-state {bus_id}", f"The state of GPU {bus_id} ({name})", _gpu_state(bus_id)
