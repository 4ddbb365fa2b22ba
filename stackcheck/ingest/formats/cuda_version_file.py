"""A CUDA toolkit's version file: ``version.json`` (11.1 and later) or ``version.txt``."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, toolkit_fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

_JSON_VERSION = re.compile(r'"version"\s*:\s*"(\d{1,2}\.\d{1,2}(?:\.\d{1,4})?)"')
_TXT = re.compile(r"^CUDA Version (\d{1,2}\.\d{1,2}(?:\.\d{1,4})?)")


class CudaVersionFile(Format):
    name = "cuda_version"
    title = "CUDA version.json / version.txt"
    anchor = re.compile(r'^\s*"cuda"\s*:\s*\{|^CUDA Version \d{1,2}\.\d')
    member = None

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return bool(re.match(r'^\s*(?:"[\w-]{1,60}"\s*:|[{}\]],?\s*$)', line.text))

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        for line in lines:
            found = _TXT.match(line.text) or _JSON_VERSION.search(line.text)
            if found is not None:
                return [toolkit_fact(line, found.group(1), path="/usr/local/cuda")]
        return []
