"""Kernel log lines (``dmesg``, ``journalctl -k``) with the NVIDIA driver's Xid reports:
``NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus``. The journal's ``Mon DD hh:mm:ss
host kernel:`` prefix is taken off by ``lines``; dmesg's ``[  123.456]`` stays and is allowed."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.hardware import XidFact
from stackcheck.ingest.lines import Line
from stackcheck.parsers.hardware import xid_line


class KernelLog(Format):
    name = "kernel_log"
    title = "kernel log (dmesg)"
    anchor = re.compile(r"NVRM: Xid \(")
    member = re.compile(r"^\s*\[\s*\d{1,9}\.\d{1,9}\]\s|^\s*NVRM:\s")

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for line in lines:
            found = xid_line(line.text)
            if found is not None:
                facts.append(XidFact(line, found.code, found.bus_id, found.text))
        return facts
