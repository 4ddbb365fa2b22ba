"""``lspci -vv`` (``-vvv``, with or without ``-nn`` and ``-D``): one block per PCI function; and
``lspci -mm``, one quoted line per function (class, vendor, device), read for the same devices.

    41:00.0 VGA compatible controller: NVIDIA Corporation AD102GL [RTX 6000 Ada Generation] ...
            NUMA node: 0
            LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <4us
            LnkSta: Speed 2.5GT/s (downgraded), Width x16
    02:08.0 PCI bridge: PLX Technology, Inc. PEX 8725 ...
            Bus: primary=02, secondary=82, subordinate=82, sec-latency=0
            ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-

GPUs (NVIDIA display and 3D controllers), NVSwitches (NVIDIA bridges) and EFA devices (Amazon's
Elastic Fabric Adapter, device efa*) become PCI devices with their link: LnkSta is the link,
LnkCap the device's own maximum. PCI bridges in the same paste place them: a bridge whose
secondary..subordinate bus range holds a device's bus is above it; the nearest one's LnkCap is
the slot's capability, and any whose ACSCtl sets ReqRedir+ or CmpltRedir+ redirects its P2P
traffic. Without root, lspci shows no extended capabilities: then no ACS state is concluded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.hardware import PciDeviceFact
from stackcheck.ingest.lines import Line
from stackcheck.parsers.hardware import lspci_link
from stackcheck.snapshot.hardware import DeviceKind, PciDevice, PcieLink, normalise_bus_id

_HEADER = re.compile(
    r"^\s*((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[01][0-9a-fA-F]\.[0-7])\s+"
    r"(\w[\w /-]{1,60}?)(?: \[[0-9a-fA-F]{4}\])?:\s+(\S.{0,300})$"
)
# ``lspci -mm`` (-D, -nn): one quoted line per function, wherever a log or test framework put it
# (``... stdout 0001:00:00.0 "3D controller" "NVIDIA Corporation" "GA100 [A100 SXM4 40GB]" -ra1``).
_MACHINE = re.compile(
    r"(?<![\w:.])((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[01][0-9a-fA-F]\.[0-7]) "
    r'"(VGA compatible controller|3D controller|Display controller|Bridge|Ethernet controller)'
    r'(?: \[[0-9a-fA-F]{4}\])?" "([^"]{1,80})" "([^"]{1,120})"'
)
_NUMA = re.compile(r"^\s+NUMA node:\s*(\d{1,4})\s*$")
_IOMMU = re.compile(r"^\s+IOMMU group:\s*(\d{1,6})\s*$")
_BUS = re.compile(
    r"^\s+Bus: primary=([0-9a-fA-F]{2}), secondary=([0-9a-fA-F]{2}), "
    r"subordinate=([0-9a-fA-F]{2})"
)
_REDIRECT = re.compile(r"\b(?:ReqRedir|CmpltRedir)\+")
_BRACKETED = re.compile(r"\[([^\[\]]{2,60})\]")
_EFA = re.compile(r"Elastic Fabric Adapter|Device efa\d|\[1d0f:efa\d\]", re.IGNORECASE)
_GPU_CLASSES = ("VGA compatible controller", "3D controller", "Display controller")
_MAX_FUNCTIONS = 4096


@dataclass
class _Function:
    header: Line
    address: str
    kind: DeviceKind
    name: str | None
    numa: int | None = None
    iommu: int | None = None
    link: PcieLink = field(default_factory=PcieLink)
    status: Line | None = None
    buses: tuple[int, int] | None = None
    redirect: Line | None = None


def _kind(cls: str, description: str) -> DeviceKind | None:
    nvidia = "NVIDIA" in description or "[10de:" in description
    if nvidia and cls in _GPU_CLASSES:
        return "gpu"
    if nvidia and cls == "Bridge":
        return "nvswitch"
    if ("Amazon" in description or "[1d0f:" in description) and _EFA.search(description):
        return "efa"
    if cls == "PCI bridge":
        return "bridge"
    return None


def _opened(text: str) -> tuple[str, str, str] | None:
    """A function's address, class and description, where the line opens one (-vv or -mm)."""
    if (header := _HEADER.match(text)) is not None:
        return header.group(1), header.group(2), header.group(3)
    if '" "' in text and (machine := _MACHINE.search(text)) is not None:
        return machine.group(1), machine.group(2), f"{machine.group(3)} {machine.group(4)}"
    return None


def _gpu_name(description: str) -> str | None:
    """``NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330] (rev a1)`` -> ``H100 SXM5 80GB``."""
    names = [n for n in _BRACKETED.findall(description) if not re.fullmatch(r"[0-9a-f:]+", n)]
    return names[0] if names else None


class Lspci(Format):
    name = "lspci"
    title = "lspci -vv or -mm"
    anchor = _HEADER

    def opens(self, line: Line) -> bool:
        text = line.text
        return super().opens(line) or ('" "' in text and _MACHINE.search(text) is not None)

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        # The block's lines are indented (a tab, or spaces where re-pasted); the next device's
        # header opens the next block of the same segment.
        return self.opens(line) or (line.text[:1] in (" ", "\t") and bool(line.text.strip()))

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        functions: list[_Function] = []
        current: _Function | None = None
        for line in lines:
            text = line.text
            if (opened := _opened(text)) is not None:
                current = None
                address, cls, description = opened
                kind = _kind(cls, description)
                if kind is not None and len(functions) < _MAX_FUNCTIONS:
                    name = _gpu_name(description) if kind == "gpu" else None
                    current = _Function(line, normalise_bus_id(address), kind, name)
                    functions.append(current)
            elif current is not None:
                self._field(current, line)
        bridges = [f for f in functions if f.kind == "bridge" and f.buses is not None]
        facts: list[Fact] = []
        for function in functions:
            if function.kind != "bridge":
                facts.append(_fact(function, bridges))
        return facts

    @staticmethod
    def _field(function: _Function, line: Line) -> None:
        text = line.text
        stripped = text.strip()
        if (found := _NUMA.match(text)) is not None:
            function.numa = int(found.group(1))
        elif (found := _IOMMU.match(text)) is not None:
            function.iommu = int(found.group(1))
        elif stripped.startswith("LnkCap:"):
            function.link.max_speed_gts, function.link.max_width = lspci_link(stripped)
        elif stripped.startswith("LnkSta:"):
            function.link.speed_gts, function.link.width = lspci_link(stripped)
            function.status = line
        elif (found := _BUS.match(text)) is not None:
            function.buses = (int(found.group(2), 16), int(found.group(3), 16))
        elif stripped.startswith("ACSCtl:") and _REDIRECT.search(stripped):
            function.redirect = line


def _fact(function: _Function, bridges: list[_Function]) -> PciDeviceFact:
    domain, bus = function.address[:4], int(function.address[5:7], 16)
    above = sorted(
        (
            b
            for b in bridges
            if b.buses is not None
            and b.address[:4] == domain
            and b.buses[0] <= bus <= b.buses[1]
            and b.address != function.address
        ),
        key=lambda b: b.buses[1] - b.buses[0] if b.buses is not None else 0,
    )
    link = replace(function.link)
    if above:
        link.port_max_speed_gts = above[0].link.max_speed_gts
        link.port_max_width = above[0].link.max_width
    device = PciDevice(
        address=function.address,
        kind=function.kind,
        name=function.name,
        numa_node=function.numa,
        link=link,
        upstream=[b.address for b in above],
        acs_redirect=[b.address for b in above if b.redirect is not None],
        iommu_group=function.iommu,
    )
    cited = [line for line in (function.status,) if line is not None]
    cited += [b.redirect for b in above if b.redirect is not None]
    return PciDeviceFact(function.header, device, cited)
