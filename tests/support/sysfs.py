"""sysfs trees shaped as the kernel lays them out, for the hardware probe's tests.

Each PCI function is a directory under ``/sys/devices/pci<domain>:<bus>/`` nested below the
bridges above it, with ``vendor``, ``device``, ``class``, ``numa_node`` and the link files
(``current_link_speed`` reads ``32.0 GT/s PCIe``, ``current_link_width`` reads ``16``: the
formats of drivers/pci/pci-sysfs.c, as a public report shows them, ilya-zlobintsev/LACT#334);
``/sys/bus/pci/devices/<address>`` is a relative symlink to it, as is ``iommu_group``. RDMA
devices appear as ``/sys/class/infiniband/<name>`` with ``device`` pointing at their PCI
function and ``ports/1/state`` reading ``4: ACTIVE`` (drivers/infiniband/core/sysfs.c). The
layouts (one PCIe switch per GPU with its EFA devices beside it, the NUMA node per half)
follow the instance types' published topology; the bus numbers are illustrative.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.support.rootfs import Root

GEN = {1: "2.5 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe"}
NVIDIA, AMAZON = "0x10de", "0x1d0f"
PORT_STATES = {"ACTIVE": ("4: ACTIVE", "5: LinkUp"), "DOWN": ("1: DOWN", "3: Disabled")}


@dataclass
class Function:
    address: str
    vendor: str
    device: str
    pci_class: str
    gen: int
    width: int
    max_gen: int | None = None
    max_width: int | None = None

    def files(self, numa: int) -> dict[str, str]:
        return {
            "vendor": self.vendor + "\n",
            "device": self.device + "\n",
            "class": self.pci_class + "\n",
            "numa_node": f"{numa}\n",
            "current_link_speed": GEN[self.gen] + "\n",
            "current_link_width": f"{self.width}\n",
            "max_link_speed": GEN[self.max_gen or self.gen] + "\n",
            "max_link_width": f"{self.max_width or self.width}\n",
        }


@dataclass
class Switch:
    """A PCIe switch below one root port: the GPU and the NICs that share it."""

    numa: int
    gpu: Function | None = None
    efas: list[Function] = field(default_factory=list)
    port_gen: int = 5


def acs_config(redirect: bool) -> bytes:
    """A bridge's config space with an ACS extended capability at 0x100 (ID 0x000D, version 1,
    no next), ACS Control = Source Validation plus, when ``redirect``, Request and Completion
    Redirect."""
    space = bytearray(4096)
    space[0:2] = (0x8086).to_bytes(2, "little")
    space[0x100:0x104] = (0x000D | (1 << 16)).to_bytes(4, "little")
    control = 0x1 | (0xC if redirect else 0)
    space[0x106:0x108] = control.to_bytes(2, "little")
    return bytes(space)


class SysfsHost:
    def __init__(self, root: Root) -> None:
        self.root = root
        self.group = 0

    def _function(self, path: str, function: Function, numa: int, config: bytes | None) -> None:
        for name, text in function.files(numa).items():
            self.root.write(f"{path}/{name}", text)
        if config is not None:
            self.root.write(f"{path}/config", config)
        self.root.link(
            f"sys/bus/pci/devices/{function.address}",
            os.path.relpath(f"/{path}", "/sys/bus/pci/devices"),
        )
        self.group += 1
        group = f"sys/kernel/iommu_groups/{self.group}"
        self.root.write(f"{group}/type", "identity\n")
        self.root.link(f"{path}/iommu_group", os.path.relpath(f"/{group}", f"/{path}"))

    def switch(self, index: int, switch: Switch, *, acs_redirect: bool = False) -> None:
        bus = 0x50 + 0x10 * index
        root_port = Function(f"0000:{bus:02x}:01.0", "0x8086", "0x347a", "0x060400", 5, 16)
        up = Function(f"0000:{bus + 1:02x}:00.0", "0x1000", "0xc030", "0x060400", 5, 16)
        base = f"sys/devices/pci0000:{bus:02x}"
        self._function(f"{base}/{root_port.address}", root_port, switch.numa, None)
        above = f"{base}/{root_port.address}/{up.address}"
        self._function(above, up, switch.numa, acs_config(acs_redirect))
        for slot, endpoint in enumerate([switch.gpu, *switch.efas]):
            if endpoint is None:
                continue
            down = Function(
                f"0000:{bus + 2:02x}:{slot:02x}.0",
                "0x1000",
                "0xc030",
                "0x060400",
                switch.port_gen,
                16,
            )
            port_path = f"{above}/{down.address}"
            self._function(port_path, down, switch.numa, acs_config(acs_redirect))
            path = f"{port_path}/{endpoint.address}"
            self._function(path, endpoint, switch.numa, None)
            if endpoint.vendor == AMAZON:
                self.rdma(path, endpoint.address, "ACTIVE")

    def rdma(self, path: str, address: str, state: str) -> str:
        bus, slot = int(address[5:7], 16), int(address[8:10], 16)
        name = f"rdmap{bus}s{slot}"
        ib = f"{path}/infiniband/{name}"
        self.root.link(f"{ib}/device", "../../../" + address)
        for port_file, text in zip(("state", "phys_state"), PORT_STATES[state], strict=False):
            self.root.write(f"{ib}/ports/1/{port_file}", text + "\n")
        for counter in ("rx_drops", "retrans_timeout_events", "tx_pkts"):
            self.root.write(f"{ib}/ports/1/hw_counters/{counter}", "0\n")
        self.root.link(
            f"sys/class/infiniband/{name}", os.path.relpath(f"/{ib}", "/sys/class/infiniband")
        )
        return name

    def port_down(self, name: str) -> None:
        for port_file, text in zip(("state", "phys_state"), PORT_STATES["DOWN"], strict=False):
            self.root.write(f"sys/class/infiniband/{name}/ports/1/{port_file}", text + "\n")

    def nvswitches(self, count: int, numa: int = 0) -> None:
        for index in range(count):
            switch = Function(f"0000:0{index + 5}:00.0", NVIDIA, "0x22a3", "0x068000", 4, 2)
            self._function(f"sys/devices/pci0000:0{index + 5}/{switch.address}", switch, numa, None)

    def cpuinfo(self, hypervisor: bool = True) -> None:
        flags = "fpu vme de pse tsc msr pae mce cx8 apic sep" + (
            " hypervisor" if hypervisor else ""
        )
        self.root.write(
            "proc/cpuinfo", f"processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: {flags}\n\n"
        )


HARDWARE_RULES = {f"SC{n}" for n in range(1101, 1150)}


def gpu(address: str, gen: int, width: int = 16, max_gen: int = 5) -> Function:
    return Function(address, NVIDIA, "0x2330", "0x030200", gen, width, max_gen, 16)


def efa(address: str, gen: int = 4, device: str = "0xefa1") -> Function:
    return Function(address, AMAZON, device, "0x020000", gen, 16)


def eight_gpus(
    device: str, gen: int, max_gen: int, efas: Callable[[int], int], efa_device: str
) -> list[Switch]:
    """Eight GPUs, one per PCIe switch, GPUs 0-3 on NUMA node 0 and 4-7 on node 1, with
    ``efas(index)`` EFA devices beside GPU ``index``."""
    switches = []
    for index in range(8):
        bus = 0x50 + 0x10 * index
        switches.append(
            Switch(
                numa=index // 4,
                gpu=Function(
                    f"0000:{bus + 3:02x}:00.0", NVIDIA, device, "0x030200", gen, 16, max_gen
                ),
                efas=[
                    efa(f"0000:{bus + 4 + n:02x}:00.0", device=efa_device)
                    for n in range(efas(index))
                ],
                port_gen=max_gen,
            )
        )
    return switches


def p5_switches() -> list[Switch]:
    """p5.48xlarge: 8 H100 (PCIe Gen5 x16), each behind a PCIe switch with 4 of the 32 EFA
    devices. The GPUs idle at 2.5 GT/s, as they do when nothing runs on them."""
    return eight_gpus("0x2330", 1, 5, lambda _: 4, "0xefa2")


def p4d_switches() -> list[Switch]:
    """p4d.24xlarge: 8 A100 (PCIe Gen4 x16, under load), 4 EFA devices, one per pair of GPUs."""
    return eight_gpus("0x20b0", 4, 4, lambda i: 1 - i % 2, "0xefa1")


def g5_switches() -> list[Switch]:
    """g5.48xlarge: 8 A10G (PCIe Gen4 x16, under load), one EFA device."""
    return eight_gpus("0x2237", 4, 4, lambda i: int(i == 0), "0xefa1")


def build(root: Root, instance: str, switches: list[Switch], nvswitches: int = 0) -> SysfsHost:
    host = SysfsHost(root)
    root.dmi("Amazon EC2", instance)
    host.cpuinfo(hypervisor=not instance.endswith(".metal"))
    for index, switch in enumerate(switches):
        host.switch(index, switch)
    host.nvswitches(nvswitches)
    return host
