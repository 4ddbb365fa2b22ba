"""``lsmod``: whether a GPUDirect RDMA peer-memory module (``nvidia_peermem``, formerly
``nv_peer_mem``) is loaded next to the NVIDIA driver."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, RuntimeFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

_ROW = re.compile(
    r"^\s*([a-z_][\w]{0,60})\s{1,40}\d{1,12}\s{1,12}\d{1,6}(?:\s{1,12}[\w,-]{0,400})?\s*$"
)
PEERMEM_MODULES = ("nvidia_peermem", "nv_peer_mem")


class Lsmod(Format):
    name = "lsmod"
    title = "lsmod"
    anchor = re.compile(r"^Module\s+Size\s+Used by")
    member = _ROW

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        modules = [m.group(1) for line in lines if (m := _ROW.match(line.text))]
        if not any(m == "nvidia" for m in modules):
            return []  # a listing without the driver says nothing about its companions
        loaded = any(m in PEERMEM_MODULES for m in modules)
        return [RuntimeFact(lines[0], "peermem_loaded", loaded)]
