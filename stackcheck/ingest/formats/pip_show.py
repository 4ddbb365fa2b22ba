"""``pip show PACKAGE``: ``Name:`` and ``Version:`` lines, one block per package."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.python_packages import package_facts
from stackcheck.ingest.lines import Line

_FIELD = re.compile(
    r"^(Name|Version|Summary|Home-page|Author|Author-email|License|License-Expression|"
    r"Location|Editable project location|Requires|Required-by):\s?(.{0,2000})$"
)


class PipShow(Format):
    name = "pip_show"
    title = "pip show"
    anchor = re.compile(r"^Name:\s+[A-Za-z0-9][\w.-]{0,100}\s*$")

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return _FIELD.match(line.text) is not None or line.text == "---"

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        name: tuple[Line, str] | None = None
        for line in lines:
            found = _FIELD.match(line.text)
            if found is None:
                continue
            if found.group(1) == "Name":
                name = (line, found.group(2).strip())
            elif found.group(1) == "Version" and name is not None:
                facts.extend(package_facts(line, name[1], found.group(2).strip()))
                name = None
        return facts
