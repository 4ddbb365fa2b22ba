"""``nvidia-smi -L``: ``GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)``. A GPU in MIG mode with
instances lists them under it (``  MIG 3g.20gb     Device  0: (UUID: MIG-...)``; R450-R465 print
``MIG 1g.5gb Device 0: (UUID: MIG-GPU-.../7/0)``): that GPU is in MIG mode."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, GpuFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.hardware import GpuHealthFact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.hardware import GpuHealth

_ROW = re.compile(r"^\s*GPU (\d{1,3}):\s+(\S.{0,120}?)\s*(?:\((?:UUID:[^)]{0,80}|\.\.\.)\))?\s*$")
MIG_INSTANCE = re.compile(r"^\s*MIG \d{1,2}g\.\d{1,4}gb(?:\+\w{1,10})?\s{1,8}Device\s{1,4}\d{1,3}:")


def mig_instance(line: Line, gpu: int) -> GpuHealthFact:
    """A MIG instance listed under GPU ``gpu``: that GPU is in MIG mode."""
    return GpuHealthFact(line, GpuHealth(index=gpu, mig_mode=True), [line])


class GpuList(Format):
    name = "nvidia_smi_l"
    title = "nvidia-smi -L"
    member = _ROW

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return MIG_INSTANCE.match(line.text) is not None or super().continues(line, segment)

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        gpu: int | None = None
        in_mig: set[int] = set()
        for line in lines:
            row = _ROW.match(line.text)
            if row is not None:
                gpu = int(row.group(1))
                facts.append(GpuFact(line, row.group(2), index=gpu))
            elif gpu is not None and gpu not in in_mig and MIG_INSTANCE.match(line.text):
                in_mig.add(gpu)
                facts.append(mig_instance(line, gpu))
        return facts
