"""``nvcc --version``: the release of the CUDA toolkit on PATH."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, toolkit_fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

_RELEASE = re.compile(r"release (\d{1,2}\.\d{1,2}), V(\d{1,2}\.\d{1,2}\.\d{1,4})")


class Nvcc(Format):
    name = "nvcc"
    title = "nvcc --version"
    # Its release line is also pasted after a label of the reporter's ("cuda version: Cuda
    # compilation tools, release 11.8, V11.8.89", MadryLab/trak#68).
    anchor = re.compile(
        r"^nvcc: NVIDIA \(R\) Cuda compiler|"
        r"^(?:[\w ]{1,20}:\s{0,3})?Cuda compilation tools, release \d"
    )
    member = re.compile(r"^(?:Copyright \(c\) \d{4}|Built on |Build cuda_)")

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        for line in lines:
            found = _RELEASE.search(line.text)
            if found is not None:
                return [toolkit_fact(line, found.group(2), **{"from": "nvcc on PATH"})]
        return []
