"""nvtop's device header: ``Device 0 [GeForce GTX 1080 Ti] PCIe GEN 3@16x RX: 0.000 KB/s ...``
(Syllo/nvtop, every release). It names each GPU. Its PCIe generation and width are the link's
current state, which an idle GPU lowers to save power, so they are not read as the link."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, GpuFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

_DEVICE = re.compile(
    r"^\s*Device\s{1,3}(\d{1,2})\s{1,3}\[([^\[\]]{2,80})\]\s{1,4}[_*]{0,3}PCIe GEN\s?\d{1,2}\s?@\s?"
    r"\d{1,2}x"
)


class Nvtop(Format):
    name = "nvtop"
    title = "nvtop"
    anchor = _DEVICE
    member = _DEVICE

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        return [
            GpuFact(line, found.group(2), index=int(found.group(1)))
            for line in lines
            if (found := _DEVICE.match(line.text))
        ]
