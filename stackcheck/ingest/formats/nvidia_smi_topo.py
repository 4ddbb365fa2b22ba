"""``nvidia-smi topo -m`` (and ``-mp``): the matrix of how GPUs and NICs reach each other.

            GPU0    GPU1    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID
    GPU0     X      NV18    PIX     SYS     0-23,96-119     0               N/A
    NIC0    PIX     SYS      X      SYS

    Legend: ...
    NIC Legend:
      NIC0: mlx5_0

Each GPU row gives its path to every NIC (PIX, PXB, PHB, NODE, SYS) and its NUMA Affinity. A
row cut short (a paste that stops mid-line) gives the NICs it reaches, or nothing; the NIC
Legend, where pasted, names each NIC by its RDMA device.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.hardware import GpuNicPathsFact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.hardware import GpuNicPath

_HEADER = re.compile(r"^\s*GPU0(?:\s+(?:GPU|NIC|mlx5_|CPU)\w{0,12}){1,200}")
_ROW = re.compile(r"^\s*(GPU|NIC)(\d{1,3})\s+(?:X|NV\d{1,2}|PIX|PXB|PHB|NODE|SYS|SOC)\s")
_LEGEND = re.compile(
    r"^\s*(?:NIC Legend:|Legend:|X\s+= Self|NV#\s+=|[A-Z]{2,4}\s+= Connection|NIC\d{1,3}:\s*\S)"
)
_NIC_NAME = re.compile(r"^\s*NIC(\d{1,3}):\s*([\w.:-]{1,64})\s*$")
_PATHS = frozenset({"PIX", "PXB", "PHB", "NODE", "SYS", "SOC"})
_MAX_COLUMNS = 512


class NvidiaSmiTopo(Format):
    name = "nvidia_smi_topo"
    title = "nvidia-smi topo -m"
    anchor = _HEADER
    member = re.compile(f"{_ROW.pattern}|{_LEGEND.pattern}")
    blank_ok = True  # the legend is set off by blank lines

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        columns: list[str] = []
        names: dict[str, str] = {}
        rows: list[tuple[Line, int, list[str]]] = []
        for line in lines:
            text = line.text
            if not columns and _HEADER.match(text):
                # "CPU Affinity", "NUMA Affinity", "GPU NUMA ID" are columns of two or three words
                columns = re.findall(r"\b(?:GPU|NIC)\d{1,3}\b", text)[:_MAX_COLUMNS]
            elif (found := _NIC_NAME.match(text)) is not None:
                names[f"NIC{found.group(1)}"] = found.group(2)
            elif (found := _ROW.match(text)) is not None and found.group(1) == "GPU" and columns:
                rows.append((line, int(found.group(2)), text.split()[1:]))
        facts: list[Fact] = []
        for line, gpu, cells in rows:
            numa = _numa(cells, len(columns))
            paths = [
                GpuNicPath(gpu_index=gpu, nic=names.get(col, col), path=cell, gpu_numa_node=numa)
                for col, cell in zip(columns, cells, strict=False)
                if col.startswith("NIC") and cell in _PATHS
            ]
            if paths:
                facts.append(GpuNicPathsFact(line, paths))
        return facts


def _numa(cells: list[str], columns: int) -> int | None:
    """The NUMA Affinity after the matrix cells and the CPU Affinity (``N/A`` or absent: None)."""
    after = cells[columns:]
    if len(after) < 2:
        return None
    try:
        return int(after[1])
    except ValueError:
        return None
