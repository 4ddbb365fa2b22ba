"""conda's install plan (``## Package Plan ##``): the packages it is about to download and
install, with their build strings (``pytorch-1.12.1 | py3.8_cpu_0``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.python_packages import package_facts, settle
from stackcheck.ingest.lines import Line

_DOWNLOAD = re.compile(r"^\s*([A-Za-z0-9][\w.-]{0,100}?)-(\d[\w.!+]{0,40})\s*\|\s*(\S{1,120})")
_INSTALL = re.compile(
    r"^\s*[\w.-]{1,100}\s+\S{0,200}::([A-Za-z0-9][\w.-]{0,100}?)-(\d[\w.!+]{0,40})-(\S{1,120})\s*$"
)


class CondaPlan(Format):
    name = "conda_plan"
    title = "conda install plan"
    anchor = re.compile(r"^\s*## Package Plan ##")
    blank_ok = True

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        # conda indents its blocks; a block pasted flush left (lines.block_indents) reads the same.
        text = line.text.lstrip()
        return (
            line.text.startswith(" ")
            or text.startswith(
                (
                    "-",
                    "The following",
                    "environment location",
                    "added / updated",
                    "package",
                    "Total:",
                    "Proceed",
                )
            )
            or _DOWNLOAD.match(text) is not None
            or _INSTALL.match(text) is not None
        )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        seen: set[str] = set()
        for line in lines:
            found = _DOWNLOAD.match(line.text) or _INSTALL.match(line.text)
            if found is None or found.group(1) in seen:
                continue
            seen.add(found.group(1))
            facts.extend(package_facts(line, found.group(1), found.group(2), found.group(3)))
        return settle(facts)
