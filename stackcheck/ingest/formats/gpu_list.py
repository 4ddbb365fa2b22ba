"""``nvidia-smi -L``: ``GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)``."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, GpuFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

_ROW = re.compile(r"^\s*GPU (\d{1,3}):\s+(\S.{0,120}?)\s*(?:\((?:UUID:[^)]{0,80}|\.\.\.)\))?\s*$")


class GpuList(Format):
    name = "nvidia_smi_l"
    title = "nvidia-smi -L"
    member = _ROW

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for line in lines:
            row = _ROW.match(line.text)
            if row is not None:
                facts.append(GpuFact(line, row.group(2), index=int(row.group(1))))
        return facts
