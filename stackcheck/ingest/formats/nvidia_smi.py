"""``nvidia-smi``'s default table: the header's driver and CUDA versions, and one row per GPU.

The table's layout changed over drivers (wider columns from R525, a MIG row), so rows are read
by their cells, not by fixed positions; names may be cut (``Tesla V100-PCIE...``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact, GpuFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

_DRIVER = re.compile(r"Driver Version:\s*(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)")
_CUDA = re.compile(r"CUDA Version:\s*(\d{1,2}\.\d{1,2})")
_ROW = re.compile(r"^\s*\|\s{1,6}(\d{1,2})\s{1,6}(\S.{0,60}?)\s{2,}(?:On|Off|N/A)\s{0,6}\|")
_MEMORY = re.compile(r"\|\s{0,12}\d{1,7}MiB\s{0,4}/\s{0,4}(\d{1,7})MiB")


class NvidiaSmiTable(Format):
    name = "nvidia_smi"
    title = "nvidia-smi"
    anchor = re.compile(r"^\s*\|?\s*NVIDIA-SMI\s+\d|^\s*\+-{20,}\+?\s*$|^\s*\+=+\+")
    member = re.compile(r"^\s*[|+]")

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        gpus: list[GpuFact] = []
        for line in lines:
            if "Processes:" in line.text:
                break
            driver = _DRIVER.search(line.text)
            if driver is not None:
                cuda = _CUDA.search(line.text)
                facts.append(
                    ComponentFact(
                        line,
                        ComponentName.DRIVER,
                        version=driver.group(1),
                        cuda=cuda.group(1) if cuda else None,
                    )
                )
                continue
            row = _ROW.match(line.text)
            if row is not None:
                gpus.append(GpuFact(line, row.group(2).strip(), index=int(row.group(1))))
                continue
            memory = _MEMORY.search(line.text)
            if memory is not None and gpus and gpus[-1].memory_mib is None:
                gpus[-1].memory_mib = int(memory.group(1))
        return facts + list(gpus)
