"""``/proc/driver/nvidia/version``: the loaded kernel module's version."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.parsers.nvidia import proc_driver_version
from stackcheck.snapshot.model import ComponentName


class ProcDriverVersion(Format):
    name = "proc_driver_version"
    title = "/proc/driver/nvidia/version"
    anchor = re.compile(r"^NVRM version:")
    member = re.compile(r"^GCC version:\s+gcc version")

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        for line in lines:
            version = proc_driver_version(line.text + " ")
            if version:
                return [
                    ComponentFact(
                        line,
                        ComponentName.DRIVER,
                        version=version,
                        path="/proc/driver/nvidia/version",
                    )
                ]
        return []
