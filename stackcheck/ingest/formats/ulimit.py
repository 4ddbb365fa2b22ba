"""``ulimit -a``: the locked-memory limit RDMA needs (``max locked memory (kbytes, -l) 64``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, RuntimeFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.parsers.units import limit_bytes

_LINE = re.compile(
    r"^\s*[a-zA-Z][\w ]{0,40}\((?:kbytes|blocks|bytes|seconds|512 bytes), -\w\)\s+\S"
)
_MEMLOCK = re.compile(r"max locked memory\s{0,20}\((kbytes|bytes), -l\)\s{1,20}(\S{1,20})")


class Ulimit(Format):
    name = "ulimit"
    title = "ulimit -a"
    member = re.compile(rf"{_LINE.pattern}|^\s*[a-z][\w ]{{0,40}}\(-\w\)\s+\S")

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        for line in lines:
            found = _MEMLOCK.search(line.text)
            if found is not None:
                unit = "k" if found.group(1) == "kbytes" else ""
                value = limit_bytes(found.group(2), unit)
                if value is not None:
                    return [RuntimeFact(line, "memlock_bytes", value)]
        return []
