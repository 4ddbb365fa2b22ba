"""NVIDIA driver text: /proc/driver/nvidia/*, and nvidia-smi's CSV query output."""

from __future__ import annotations

import re
from dataclasses import dataclass

_NVRM = re.compile(r"NVRM version:[^\n]*?Module[^\n]*?\s(\d{3,4}\.\d{1,3}(?:\.\d{1,3})?)\s")


def proc_driver_version(text: str) -> str | None:
    """The kernel module's version from /proc/driver/nvidia/version."""
    match = _NVRM.search(text)
    return match.group(1) if match else None


@dataclass(frozen=True)
class GpuRecord:
    name: str
    index: int | None = None
    memory_mib: int | None = None
    pci_bus_id: str | None = None
    compute_capability: str | None = None
    driver_version: str | None = None


def proc_gpu_information(text: str) -> GpuRecord | None:
    """One GPU from /proc/driver/nvidia/gpus/<bus>/information."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    name = fields.get("Model")
    if not name:
        return None
    minor = fields.get("Device Minor", "")
    return GpuRecord(
        name=name,
        index=int(minor) if minor.isdigit() else None,
        pci_bus_id=fields.get("Bus Location") or None,
    )


QUERY_FIELDS = ("index", "name", "memory.total", "pci.bus_id", "driver_version", "compute_cap")


def smi_query_csv(text: str, fields: tuple[str, ...] = QUERY_FIELDS) -> list[GpuRecord]:
    """Rows of ``nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits``."""
    records = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(fields):
            continue
        row = dict(zip(fields, cells, strict=True))
        if not row.get("name"):
            continue
        records.append(
            GpuRecord(
                name=row["name"],
                index=_int(row.get("index")),
                memory_mib=_int(row.get("memory.total")),
                pci_bus_id=row.get("pci.bus_id") or None,
                compute_capability=_cc(row.get("compute_cap")),
                driver_version=row.get("driver_version") or None,
            )
        )
    return records


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    match = re.match(r"\s*(\d+)", text)
    return int(match.group(1)) if match else None


def _cc(text: str | None) -> str | None:
    if text and re.fullmatch(r"\d+\.\d+", text):
        return text
    return None


_VERSION_LINE = re.compile(r"^\s*(\d{3,4}\.\d{1,3}(?:\.\d{1,3})?)\s*$", re.M)


def smi_driver_version(text: str) -> str | None:
    """``nvidia-smi --query-gpu=driver_version --format=csv,noheader``: the first version line."""
    match = _VERSION_LINE.search(text)
    return match.group(1) if match else None
