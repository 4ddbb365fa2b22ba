"""Lines no format claims. People state settings in sentences ("it works with
NCCL_P2P_DISABLE =1"); such ``NAME=value`` statements are read, except inside the hints that
tools print (PyTorch's "consider passing CUDA_LAUNCH_BLOCKING=1", NCCL's "run with
NCCL_DEBUG=INFO for details"), which are advice, not settings."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import EnvFact, Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.probes.environment import is_recorded

_SETTING = re.compile(
    r"\b([A-Z][A-Z0-9]{1,20}_[A-Z0-9_]{2,60})\s{0,2}=\s{0,2}([\w./:,^@+-]{1,400})"
)
_HINT = re.compile(
    r"(?:consider passing|run with|re-?run with|try (?:setting|passing)|you can set|"
    r"set the environment variable)\s{1,4}\S{0,80}$",
    re.IGNORECASE,
)


class Prose(Format):
    name = "prose"
    title = "text"

    def opens(self, line: Line) -> bool:
        return False

    def joins(self, line: Line) -> bool:
        return False

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for line in lines:
            for found in _SETTING.finditer(line.text):
                name = found.group(1)
                if not is_recorded(name) or _HINT.search(line.text[: found.start()] + name):
                    continue
                facts.append(EnvFact(line, name, found.group(2).rstrip(".,")))
        return facts
