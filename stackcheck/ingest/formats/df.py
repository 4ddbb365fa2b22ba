"""``df`` of ``/dev/shm``: its size decides how much NCCL and DataLoader workers can share."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, ObservationFact, RuntimeFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.parsers.units import size_bytes

_ROW = re.compile(r"^(\S{1,200})\s{1,40}(\d[\d.]{0,15}[KMGTP]?i?)\b(.{0,300})$")
# df's Use% column at 100% on /dev/shm's row: the tmpfs is full, whatever its size.
_FULL = re.compile(r"\s100%\s{1,40}/dev/shm\s*$")


class Df(Format):
    name = "df"
    title = "df"
    # The header, or /dev/shm's own row as `df -h | grep shm` prints it without one.
    anchor = re.compile(
        r"^Filesystem\s+(?:Size|1K-blocks|1M-blocks|Type)\b|"
        r"^\s{0,8}\S{1,200}\s{1,40}\d[\d.]{0,15}[KMGT]\s{1,40}\S{1,20}\s{1,40}\S{1,20}\s{1,40}"
        r"\d{1,3}%\s{1,40}/dev/shm\s*$"
    )
    member = None

    def opens(self, line: Line) -> bool:
        # A log of 60,000 lines asks this of each one: the expression only where its words are.
        text = line.text
        return ("Filesystem" in text or "/dev/shm" in text) and self.anchor.search(text) is not None

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return _ROW.match(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        header = lines[0].text.startswith("Filesystem")
        human = "Size" in lines[0].text or not header  # a bare row is matched with its unit
        facts: list[Fact] = []
        sized = False  # the first row whose size reads gives it; a full row before it still counts
        for line in lines[1:] if header else lines:
            row = _ROW.match(line.text)
            if row is None:
                continue
            filesystem, size, rest = row.group(1), row.group(2), row.group(3)
            if "/dev/shm" in rest or filesystem == "shm":
                value = size_bytes(size) if human else size_bytes(size, "k")
                if value is not None and not sized:
                    facts.append(RuntimeFact(line, "shm_bytes", value))
                    sized = True
                if _FULL.search(line.text):
                    facts.append(ObservationFact(line, "shm-exhausted", line.text.strip()))
        return facts
