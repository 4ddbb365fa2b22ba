"""``nvcc --version``: the release of the CUDA toolkit on PATH."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck import versions
from stackcheck.ingest.facts import ComponentFact, Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

_RELEASE = re.compile(r"release (\d{1,2}\.\d{1,2}), V(\d{1,2}\.\d{1,2}\.\d{1,4})")


class Nvcc(Format):
    name = "nvcc"
    title = "nvcc --version"
    anchor = re.compile(r"^nvcc: NVIDIA \(R\) Cuda compiler|^Cuda compilation tools, release \d")
    member = re.compile(r"^(?:Copyright \(c\) \d{4}|Built on |Build cuda_)")

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        for line in lines:
            found = _RELEASE.search(line.text)
            if found is not None:
                version = found.group(2)
                return [
                    ComponentFact(
                        line,
                        ComponentName.CUDA_TOOLKIT,
                        version=version,
                        cuda=versions.release(version, 2),
                        properties={"default": "yes", "from": "nvcc on PATH"},
                    )
                ]
        return []
