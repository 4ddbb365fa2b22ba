"""Launcher command lines (``mpirun``, ``torchrun``, ``srun``, ``deepspeed``): the environment they
pass to the ranks (``-x NAME=value``, ``--export=...``, leading ``NAME=value``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format, continued, joined
from stackcheck.ingest.formats.docker_run import tokens
from stackcheck.ingest.formats.env_dump import env_facts
from stackcheck.ingest.formats.prose import settings
from stackcheck.ingest.lines import Line

_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w{0,100})=(.{0,4000})$")
# What may precede the launcher on a command line: assignments, env/sudo/exec, a path, a prompt.
_COMMAND_PREFIX = re.compile(
    r"^(?:\s*(?:[A-Za-z_]\w{0,100}=\S{0,400}|env|sudo|exec|nohup|time|srun\s\S{0,200}|"
    r"[\w./~-]{0,200}/|\$|#))*\s*$"
)


def _sentence(line: Line, anchor: re.Pattern[str]) -> bool:
    """Whether the launcher is named inside a sentence ("we run torchrun with ...") rather
    than starting a command line."""
    found = anchor.search(line.text)
    return found is not None and not _COMMAND_PREFIX.match(line.text[: found.start() + 1])


class Launcher(Format):
    name = "launcher"
    title = "launcher command (mpirun, torchrun, srun, deepspeed)"
    anchor = re.compile(
        r"(?:^|[\s/])(?:mpirun|mpiexec|torchrun|srun|deepspeed)\s|"
        r"\bpython\S{0,10} -m torch\.distributed\.(?:launch|run)\b"
    )

    def opens(self, line: Line) -> bool:
        # ds_report's "deepspeed info ......" names DeepSpeed, not its launcher
        return super().opens(line) and "...." not in line.text

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return continued(segment)

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        assert self.anchor is not None
        if _sentence(lines[0], self.anchor):
            # A sentence that names a launcher states its settings as any sentence does.
            return [fact for line in lines for fact in settings(line)]
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
