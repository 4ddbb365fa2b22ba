"""The hardware sections of ``nvidia-smi -q``, per GPU: persistence and MIG mode, clock event
(throttle) reasons, ECC errors, retired pages, remapped rows and the PCIe link.

The output is ``Key : value`` lines nested by indentation (4 spaces a level) under a ``GPU
00000000:53:00.0`` header per GPU; sections are lines without a value (``Remapped Rows``). Older
drivers say ``Clocks Throttle Reasons`` and count ECC errors as ``Double Bit`` / ``Total``; newer
ones ``Clocks Event Reasons`` and ``DRAM Uncorrectable``. ``nvidia_smi_query`` calls this on its
segment.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.hardware import GpuHealthFact
from stackcheck.ingest.lines import Line
from stackcheck.live.nvml_health import THROTTLE_BITS
from stackcheck.parsers.hardware import GEN_SPEED
from stackcheck.snapshot.hardware import GpuHealth, PcieLink, normalise_bus_id

_GPU = re.compile(r"^GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_LINE = re.compile(r"^( *)(\S[^:]{0,80}?)\s*:(?:\s(.{0,300}))?$")
_SECTION = re.compile(r"^( *)([^\s:][^:]{0,80}?)\s*$")  # "    Remapped Rows"
_THROTTLE_SECTIONS = ("Clocks Event Reasons", "Clocks Throttle Reasons")
_COSTLY = set(THROTTLE_BITS.values())
_DEPTH = 8


def _number(text: str) -> int | None:
    match = re.match(r"\s*(\d{1,9})", text)
    return int(match.group(1)) if match else None


def _yes(text: str) -> bool | None:
    word = text.strip().lower()
    if word in ("yes", "enabled", "active"):
        return True
    if word in ("no", "disabled", "not active"):
        return False
    return None


# Sections a report pastes on their own, without the GPU's header (`nvidia-smi -q -d
# ROW_REMAPPER | grep -A 5 Remapped`, a health tool quoting one block): read as one GPU's.
_ALONE = ("Remapped Rows", "Retired Pages", "ECC Errors")


class _Gpu:
    def __init__(self, line: Line, bus_id: str | None, index: int) -> None:
        self.line = line
        self.health = GpuHealth(
            bus_id=normalise_bus_id(bus_id) if bus_id is not None else None, index=index
        )
        self.cited: list[Line] = []
        self.pcie: dict[str, str] = {}
        self.uncorrectable: int | None = None

    def field(self, path: tuple[str, ...], value: str, line: Line) -> None:
        health = self.health
        key = path[-1]
        where = path[:-1]
        if key == "Product Name":
            health.name = value
        elif key == "Persistence Mode":
            health.persistence_mode = _yes(value)
            if health.persistence_mode is False:
                self.cited.append(line)
        elif where[-1:] == ("MIG Mode",) and key == "Current":
            health.mig_mode = _yes(value)
            if health.mig_mode:
                self.cited.append(line)
        elif any(s in where for s in _THROTTLE_SECTIONS) and key in _COSTLY:
            if _yes(value):
                health.throttle_reasons.append(key)
                self.cited.append(line)
        elif "ECC Errors" in where and "Volatile" in where:
            # DRAM/SRAM Uncorrectable (R470 on), or Double Bit / Total (older drivers).
            if ("Uncorrectable" in key and "Threshold" not in key) or (
                "Double Bit" in where and key == "Total"
            ):
                count = _number(value)
                if count is not None:
                    self.uncorrectable = (self.uncorrectable or 0) + count
                    if count:
                        self.cited.append(line)
        elif where[-1:] == ("Retired Pages",) and key.startswith("Pending"):
            health.retired_pages_pending = _yes(value)
            if health.retired_pages_pending:
                self.cited.append(line)
        elif where[-1:] == ("Remapped Rows",) and key == "Pending":
            health.remap_pending = _yes(value)
            if health.remap_pending:
                self.cited.append(line)
        elif where[-1:] == ("Remapped Rows",) and key == "Remapping Failure Occurred":
            health.remap_failure = _yes(value)
            if health.remap_failure:
                self.cited.append(line)
        elif where[-1:] in (("PCIe Generation",), ("Link Width",)) and key in ("Max", "Current"):
            self.pcie[f"{where[-1]} {key}"] = value

    def fact(self) -> GpuHealthFact:
        health = self.health
        health.ecc_uncorrectable_volatile = self.uncorrectable
        if self.pcie:

            def number(label: str) -> int | None:
                return _number(self.pcie.get(label, ""))

            health.pcie = PcieLink(
                speed_gts=GEN_SPEED.get(number("PCIe Generation Current") or 0),
                width=number("Link Width Current"),
                max_speed_gts=GEN_SPEED.get(number("PCIe Generation Max") or 0),
                max_width=number("Link Width Max"),
            )
        return GpuHealthFact(self.line, health, cited=self.cited[:4])


def gpu_health_facts(lines: Sequence[Line]) -> list[GpuHealthFact]:
    """One fact per ``GPU <bus id>`` block of an ``nvidia-smi -q`` segment."""
    gpus: list[_Gpu] = []
    stack: list[tuple[int, str]] = []
    for line in lines:
        header = _GPU.match(line.text.strip())
        if header is not None:
            gpus.append(_Gpu(line, header.group(1), len(gpus)))
            stack.clear()
            continue
        if not line.text.strip():
            continue
        found = _LINE.match(line.text) or _SECTION.match(line.text)
        if found is None:
            continue
        indent, key = len(found.group(1)), found.group(2).strip()
        value = found.group(3) if found.re is _LINE else None
        if not gpus:
            if value is not None or key not in _ALONE:
                continue
            gpus.append(_Gpu(line, None, 0))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if value is None or not value.strip():
            if len(stack) < _DEPTH:
                stack.append((indent, key))
            continue
        gpus[-1].field((*(name for _, name in stack), key), value.strip(), line)
    return [gpu.fact() for gpu in gpus]
