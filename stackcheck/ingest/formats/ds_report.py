"""DeepSpeed's ``ds_report``: the op table, then "DeepSpeed general environment info" with
dotted leaders (``torch version .................... 2.3.0+cu121``). It names PyTorch and its
CUDA, the nvcc DeepSpeed compiles with, and the size of /dev/shm."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact, RuntimeFact, toolkit_fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.python_packages import torch_fact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

_FIELD = re.compile(r"^\s*([a-z][\w ()/.-]{1,60}?)\s?\.{3,}\s(.{1,400}?)\s*$")
_SIZE = re.compile(r"^(\d{1,9}(?:\.\d{1,3})?)\s*([KMGT])B$")
_SCALE = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


_RULE = re.compile(r"^-{10,}\s*$")


class DsReport(Format):
    name = "ds_report"
    title = "DeepSpeed ds_report"
    anchor = re.compile(
        r"DeepSpeed C\+\+/CUDA extension op report|DeepSpeed general environment info"
    )
    member = re.compile(r"^\s*[a-z][\w ()/.-]{1,60}?\s?\.{3,}\s|^\s*op name \.{3,}")
    blank_ok = True

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        # Its dash rules go on a report already open; alone, a row of dashes is any tool's
        # (Open MPI's warning boxes) and starts nothing.
        return super().continues(line, segment) or _RULE.match(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for line in lines:
            field = _FIELD.match(line.text)
            if field is None:
                continue
            key, value = field.group(1).strip(), field.group(2)
            if key == "torch version" and value[:1].isdigit():
                facts.append(torch_fact(line, value.split()[0]))
            elif key == "torch cuda version" and value[:1].isdigit():
                facts.append(ComponentFact(line, ComponentName.TORCH, cuda=value.split()[0]))
            elif key == "nvcc version" and value[:1].isdigit():
                facts.append(toolkit_fact(line, value.split()[0]))
            elif key.startswith("shared memory") and (size := _SIZE.match(value)) is not None:
                shm = int(float(size.group(1)) * _SCALE[size.group(2)])
                facts.append(RuntimeFact(line, "shm_bytes", shm))
        return facts
