"""Launcher command lines (``mpirun``, ``torchrun``, ``srun``, ``deepspeed``): the environment they
pass to the ranks (``-x NAME=value``, ``--export=...``, leading ``NAME=value``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format, continued, joined
from stackcheck.ingest.formats.docker_run import tokens
from stackcheck.ingest.formats.env_dump import env_facts
from stackcheck.ingest.lines import Line

_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w{0,100})=(.{0,4000})$")


class Launcher(Format):
    name = "launcher"
    title = "launcher command (mpirun, torchrun, srun, deepspeed)"
    anchor = re.compile(
        r"(?:^|[\s/])(?:mpirun|mpiexec|torchrun|srun|deepspeed)\s|"
        r"\bpython\S{0,10} -m torch\.distributed\.(?:launch|run)\b"
    )

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return continued(segment)

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        words = tokens(joined(lines))
        facts: list[Fact] = []
        leading = True
        for index, word in enumerate(words):
            assignment = _ASSIGNMENT.match(word)
            if leading and assignment:
                facts.extend(env_facts(lines[0], assignment.group(1), assignment.group(2)))
                continue
            leading = False
            if word in ("-x", "--env", "-genv") and index + 1 < len(words):
                passed = _ASSIGNMENT.match(words[index + 1])
                if passed:
                    facts.extend(env_facts(lines[0], passed.group(1), passed.group(2)))
            elif word.startswith("--export="):
                for part in word[len("--export=") :].split(","):
                    passed = _ASSIGNMENT.match(part)
                    if passed:
                        facts.extend(env_facts(lines[0], passed.group(1), passed.group(2)))
        return facts
