"""nccl-tests' header, which names each rank's GPU:
``#  Rank  0 Group  0 Pid 123 on host device  0 [0x00] Tesla V100-SXM2-32GB``."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, GpuFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

# The '#' is nccl-tests' own (a paste may drop it, or quote the lines); releases before 2.0
# print no "Group" ("Rank  0 Pid  12414 on host device  0 [0x1a] Tesla V100-SXM3-32GB").
_RANK = re.compile(
    r"^#?\s{0,12}Rank\s{1,4}\d{1,6}.{0,60}? on\s{1,4}(\S{1,80}) device\s{1,4}(\d{1,3})\s{1,4}"
    r"\[[^\]]{1,20}\]\s{1,4}(\S.{0,80}?)\s*$"
)
# nccl-tests 1.x (NCCL 1): "Rank  0 uses device  0 [0x05] Tesla M40 24GB", no host.
_RANK_V1 = re.compile(
    r"^#?\s{0,12}Rank\s{1,4}\d{1,6}\s{1,4}uses device\s{1,4}(\d{1,3})\s{1,4}\[[^\]]{1,20}\]\s{1,4}"
    r"(\S.{0,80}?)\s*$"
)
_RANK_LINE = (
    r"^#?\s{0,12}Rank\s{1,4}\d{1,6}(?:(?:\s{1,4}Group\s{1,4}\d{1,6})?\s{1,4}Pid\s{1,4}\d|"
    r"\s{1,4}uses device\s)"
)
# A row of the result table: size, count, type, reduction op (every release's columns).
_ROW = (
    r"^\s{0,12}\d{1,12}\s{1,12}\d{1,12}\s{1,8}(?:float|half|double|bfloat16|u?int(?:8|32|64)?|"
    r"char|fp8_e4m3|fp8_e5m2)\s{1,8}(?:sum|prod|max|min|avg|none|all|mulsum)\s"
)


class NcclTests(Format):
    name = "nccl_tests"
    title = "nccl-tests output"
    # The header (also quoted in a sentence: "nThread 1 nGpus 8 minBytes 8 ..."), the rank
    # lines, and the summary under the result table.
    anchor = re.compile(
        r"^#?\s{0,4}(?:nThread \d|Using devices\s*$)|"
        r"^\W{0,2}nThread \d{1,4} nGpus \d{1,4} minBytes|"
        + _RANK_LINE
        + r"|^#\s{0,4}(?:Out of bounds values|Avg bus bandwidth)\s{0,4}:|"
        + _ROW
    )
    blank_ok = False

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        # The result table follows the header: sizes, then "# Avg bus bandwidth".
        return bool(
            re.match(r"^#(?:\s|$|Rank\s|Using devices)", line.text)
            or re.match(_RANK_LINE, line.text)
            or re.match(r"^\s{0,12}\d{1,12}\s{1,12}\d", line.text)
        )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        seen: set[tuple[str, str]] = set()
        for line in lines:
            rank = _RANK.match(line.text)
            old = _RANK_V1.match(line.text) if rank is None else None
            key, name = (
                ((rank.group(1), rank.group(2)), rank.group(3))
                if rank is not None
                else (("", old.group(1)), old.group(2))
                if old is not None
                else (None, "")
            )
            if key is not None and key not in seen:
                seen.add(key)
                facts.append(GpuFact(line, name))
        return facts
