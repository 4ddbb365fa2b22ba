"""``nvidia-smi nvlink -s`` (``--status``): per GPU, each link's speed or ``<inactive>``.

    GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)
             Link 0: 26.562 GB/s
             Link 1: <inactive>

The first ``GPU N:`` line is also ``nvidia-smi -L``'s, whose reader keeps it, so this segment
starts at the first link line; those links belong to the GPU before the next ``GPU N:`` line of
the segment (the listing is in index order), or to an unnamed GPU where there is none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.hardware import NvLinkFact
from stackcheck.ingest.lines import Line

_GPU = re.compile(r"^\s*GPU (\d{1,3}):\s+\S")
_LINK = re.compile(r"^\s*Link (\d{1,2}):\s*(?:(\d{1,4}(?:\.\d{1,4})?) GB/s|<inactive>)")


class NvlinkStatus(Format):
    name = "nvidia_smi_nvlink"
    title = "nvidia-smi nvlink -s"
    anchor = _LINK

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return self.opens(line) or _GPU.match(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        headers = [int(m.group(1)) for ln in lines if (m := _GPU.match(ln.text)) is not None]
        gpu: int | None = headers[0] - 1 if headers and headers[0] > 0 else None
        for line in lines:
            if (found := _GPU.match(line.text)) is not None:
                gpu = int(found.group(1))
            elif (found := _LINK.match(line.text)) is not None:
                facts.append(NvLinkFact(line, gpu, int(found.group(1)), found.group(2) is not None))
        return facts
