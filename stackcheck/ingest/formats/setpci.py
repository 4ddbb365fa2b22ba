"""``setpci`` reading the PCIe ACS Control register of bridges, as NCCL's troubleshooting guide
has people do it (pytorch/pytorch#24081):

    $ for plx in $(lspci | grep -i plx | awk '{print $1}'); do sudo setpci -s ${plx} f2a.w; done
    0000
    001d

The register is named (``ECAP_ACS+0x6.w``, ``ECAP0d+6.w``: setpci's name and number of the ACS
extended capability) or given as an offset on a line that says it reads ACS or a PLX switch (a
raw offset alone could be any register). setpci prints a read as four hex digits, or with ``-v``
as ``0000:05:08.0 (ecap 000d @f24) @f2a = 001d`` (pciutils/pciutils@04d90becddd69229614e0a98ed3b
1757b119314b:setpci.c, exec_op). Bits 2 and 3 of ACS Control are P2P Request Redirect and P2P
Completion Redirect (lspci's ``ReqRedir+ CmpltRedir+``): either set sends peer-to-peer traffic up
to the root complex. A write (``...6.w=0000``) is the fix being applied, not a reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

_REGISTER = r"(?:ECAP_ACS|ECAP0{0,2}d)\s?\+\s?(?:0x)?0{0,2}6"
_NAMED = re.compile(rf"\bsetpci\b[^\n]{{0,200}}?\s{_REGISTER}\.w\b(?!\s?=)", re.IGNORECASE)
_OFFSET = re.compile(r"\bsetpci\b[^\n]{0,200}?\s(?:0x)?[0-9a-f]{2,3}\.w\b(?!\s?=)", re.IGNORECASE)
_ACS_WORD = re.compile(r"\b(?:acs|plx)\b", re.IGNORECASE)
_VALUE = re.compile(
    r"^\s{0,8}(?:[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\s[^=\n]{0,40}=\s)?([0-9a-f]{4})\s*$",
    re.IGNORECASE,
)
_SUDO = re.compile(r"^\s{0,8}\[sudo\] password for ")
_REDIRECTS = ((0x4, "ReqRedir+"), (0x8, "CmpltRedir+"))


class SetpciAcs(Format):
    name = "setpci"
    title = "setpci (ACS Control)"

    def opens(self, line: Line) -> bool:
        text = line.text
        if "setpci" not in text:  # the command's name, typed lower-case; a cheap screen first
            return False
        return _NAMED.search(text) is not None or (
            _OFFSET.search(text) is not None and _ACS_WORD.search(text) is not None
        )

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return (
            self.opens(line)
            or _VALUE.match(line.text) is not None
            or _SUDO.match(line.text) is not None
        )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        values = [(line, int(m.group(1), 16)) for line in lines if (m := _VALUE.match(line.text))]
        redirecting = [(line, value) for line, value in values if value & 0xC]
        if not redirecting:
            return []
        line, value = redirecting[0]
        bits = " ".join(name for bit, name in _REDIRECTS if value & bit)
        return [
            ObservationFact(
                line,
                "iommu-acs-stated",
                f"ACS: setpci reads ACS Control {value:04x} ({bits}) on {len(redirecting)} of "
                f"{len(values)} ports",
            )
        ]
