"""Dockerfile lines pasted into a report: ``ENV`` settings and ``pip install torch`` builds."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck import versions
from stackcheck.ingest.facts import ComponentFact, Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.env_dump import env_facts
from stackcheck.ingest.formats.python_packages import torch_fact
from stackcheck.ingest.lines import Line
from stackcheck.parsers.dockerfile import INSTRUCTIONS, parse_dockerfile
from stackcheck.snapshot.model import ComponentName

_PIP_TORCH = re.compile(r"\bpip3?\s+install\b.{0,400}?\btorch(?:==([\w.+-]{1,40}))?(?=[\s\"']|$)")
_INDEX = re.compile(r"download\.pytorch\.org/whl/(?:nightly/)?(cu\d{3}|cpu)\b")


class Dockerfile(Format):
    name = "dockerfile"
    title = "Dockerfile"
    anchor = re.compile(r"^\s*FROM\s+\S+(?:\s+[Aa][Ss]\s+\S+)?\s*$")
    blank_ok = True

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        first = line.text.split(maxsplit=1)[:1]
        return bool(
            (first and first[0] in INSTRUCTIONS)
            or line.text.lstrip().startswith("#")
            or (segment and segment[-1].text.rstrip().endswith("\\"))
        )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        by_number = {line.number: line for line in lines}
        numbers = [line.number for line in lines]
        # Line numbers of the segment are not contiguous when blank lines were skipped: parse
        # the text with its gaps restored so each instruction maps back to its Line.
        text = "\n".join(
            by_number[n].text if n in by_number else "" for n in range(numbers[0], numbers[-1] + 1)
        )
        dockerfile = parse_dockerfile(text, first_line=numbers[0])
        facts: list[Fact] = []
        for name, value, instruction in dockerfile.env():
            facts.extend(env_facts(by_number.get(instruction.line, lines[0]), name, value))
        for instruction in dockerfile.of("RUN"):
            line = by_number.get(instruction.line, lines[0])
            torch = _PIP_TORCH.search(instruction.arguments)
            index = _INDEX.search(instruction.arguments)
            if torch is None:
                continue
            fact = (
                torch_fact(line, torch.group(1) or "")
                if torch.group(1)
                else ComponentFact(line, ComponentName.TORCH)
            )
            if index is not None:
                fact.properties["cpu_only"] = "yes" if index.group(1) == "cpu" else "no"
                fact.cuda = fact.cuda or versions.cuda_from_tag(index.group(1))
            facts.append(fact)
        return facts
