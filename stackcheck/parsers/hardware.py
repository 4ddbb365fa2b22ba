"""Text and bytes of the hardware path: sysfs link files, PCI config space, RDMA port states,
and the driver's Xid lines. Pure functions; the probes and triage's formats share them."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Per-lane rate of each PCIe generation, GT/s.
GEN_SPEED = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}
_SPEED = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,2})?)\s*GT/s")
_LSPCI_WIDTH = re.compile(r"Width\s+x(\d{1,2})")
_LSPCI_SPEED = re.compile(r"Speed\s+(\d{1,2}(?:\.\d{1,2})?)GT/s")
# "NVRM: Xid (PCI:0000:44:00): 79, pid=..., GPU has fallen off the bus." and the older
# "NVRM: Xid (0000:af:00): 48, ..." form.
XID = re.compile(
    r"NVRM: Xid \((?:PCI:)?([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)\):?"
    r"\s*(\d{1,3}),\s?(.{0,200})"
)
_PORT_STATE = re.compile(r"^\s*\d+:\s*(\w+)")
ACS_CAP_ID = 0x000D
# ACS Control register bits that send peer-to-peer requests up to the root complex
# (PCIe Base Specification, ACS Extended Capability: P2P Request and Completion Redirect).
_ACS_REQUEST_REDIRECT = 1 << 2
_ACS_COMPLETION_REDIRECT = 1 << 3
_EXTENDED_START = 0x100
_MAX_CAPABILITIES = 64  # the extended space holds at most (4096 - 256) / 4 headers; a loop guard


def gen_of(speed_gts: float | None) -> int | None:
    """2.5 -> 1 ... 32.0 -> 5."""
    if speed_gts is None:
        return None
    return next((g for g, s in GEN_SPEED.items() if abs(s - speed_gts) < 0.01), None)


def sysfs_speed(text: str | None) -> float | None:
    """``current_link_speed`` as the kernel writes it: ``16.0 GT/s PCIe`` (``8 GT/s`` before
    Linux 5.x); ``Unknown`` or anything else is None."""
    match = _SPEED.match(text or "")
    return float(match.group(1)) if match else None


def sysfs_int(text: str | None) -> int | None:
    """``current_link_width`` (``16``), ``numa_node`` (``-1`` means none: None)."""
    try:
        value = int((text or "").strip())
    except ValueError:
        return None
    return None if value < 0 else value


def lspci_link(text: str) -> tuple[float | None, int | None]:
    """``LnkCap:``/``LnkSta:`` of ``lspci -vv``: ``Speed 32GT/s, Width x16`` (``(downgraded)``
    may follow)."""
    speed = _LSPCI_SPEED.search(text)
    width = _LSPCI_WIDTH.search(text)
    return (
        float(speed.group(1)) if speed else None,
        int(width.group(1)) if width else None,
    )


def port_state(text: str | None) -> str | None:
    """``4: ACTIVE`` -> ``ACTIVE``; ``5: LinkUp`` -> ``LinkUp``."""
    match = _PORT_STATE.match(text or "")
    return match.group(1) if match else None


@dataclass(frozen=True)
class XidLine:
    code: int
    bus_id: str
    text: str


def xid_line(text: str) -> XidLine | None:
    match = XID.search(text)
    if match is None:
        return None
    return XidLine(int(match.group(2)), match.group(1), match.group(3).strip())


def acs_redirects(config: bytes) -> bool | None:
    """Whether a bridge's ACS Control redirects peer-to-peer traffic, from its config space.

    None where the extended space is not readable (the kernel shows non-root readers only the
    first 64 bytes) or the bridge has no ACS capability.
    """
    if len(config) < _EXTENDED_START + 4:
        return None
    offset = _EXTENDED_START
    for _ in range(_MAX_CAPABILITIES):
        if offset < _EXTENDED_START or offset + 8 > len(config):
            return None
        header = int.from_bytes(config[offset : offset + 4], "little")
        if header in (0, 0xFFFFFFFF):
            return None
        if header & 0xFFFF == ACS_CAP_ID:
            control = int.from_bytes(config[offset + 6 : offset + 8], "little")
            return bool(control & (_ACS_REQUEST_REDIRECT | _ACS_COMPLETION_REDIRECT))
        offset = (header >> 20) & 0xFFC
        if offset == 0:
            return None
    return None
