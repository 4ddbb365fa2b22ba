"""A Dockerfile pasted into a report, read by the one Dockerfile reader that ``lint-dockerfile``
uses: the base image's stack and the versions its install steps pin (ARG and ENV expanded, stages
followed), its ENV settings and the reviewer's observations, each at its line. The base image
resolves through the bundled matrix (triage reads the text before it loads one)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from stackcheck.archs import BUILD_FLAGS_NAME, flag_archs
from stackcheck.cachedir import usable_cache_dir
from stackcheck.dockerfile.lint import read_stack
from stackcheck.errors import StackcheckError
from stackcheck.ingest.facts import REPORTED_ENV, ComponentFact, Fact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.env_dump import env_facts
from stackcheck.ingest.lines import Line
from stackcheck.matrix import load_matrix
from stackcheck.matrix.index import MatrixIndex
from stackcheck.parsers.dockerfile import INSTRUCTIONS, parse_dockerfile
from stackcheck.snapshot.model import ComponentName

_HEREDOC = re.compile(r"(?<!<)<<-?([\"']?)([A-Za-z_][\w.-]{0,40})\1")


def _text(line: Line) -> str:
    """The line as a Dockerfile has it: ``ARG A=/x    # note`` looks like a shell prompt
    (``host:/dir # cmd``) to the line cleaner, which would keep only the note."""
    if line.command:
        first = line.raw.split(maxsplit=1)[:1]
        if first and first[0].upper() in INSTRUCTIONS:
            return line.raw.rstrip()
    return line.text


@dataclass
class _OpenState:
    """Where a segment stands, kept between calls: segments grow a line at a time, and reading
    each one again for every new line would cost the square of its length."""

    first: Line | None = None
    count: int = 0
    continued: bool = False
    closing: list[str] = field(default_factory=list)

    def feed(self, line: Line) -> None:
        text = _text(line)
        stripped = text.strip()
        if self.closing:
            if stripped == self.closing[0]:
                self.closing.pop(0)
            return
        if self.continued and (not stripped or stripped.startswith("#")):
            return  # comment and blank lines inside a continued instruction do not end it
        self.continued = stripped.endswith("\\")
        self.closing.extend(m.group(2) for m in _HEREDOC.finditer(text))


class _Tracker:
    def __init__(self) -> None:
        self.state = _OpenState()

    def open(self, segment: Sequence[Line]) -> bool:
        """Whether the segment so far ends inside an instruction (a continuation or a heredoc
        body)."""
        if not segment:
            return False
        state = self.state
        if state.first is not segment[0] or state.count > len(segment):
            state = self.state = _OpenState(first=segment[0])
        for line in segment[state.count :]:
            state.feed(line)
        state.count = len(segment)
        return state.continued or bool(state.closing)


@cache
def _bundled_index() -> MatrixIndex:
    """The bundled matrix, for the base image: triage reads text before it loads a matrix.
    Through the same cache as every command (validating it afresh costs ~0.09 s)."""
    return MatrixIndex(load_matrix((), usable_cache_dir()))


bundled_index = _bundled_index  # for the readers of an image named elsewhere (a sentence)


class Dockerfile(Format):
    name = "dockerfile"
    title = "Dockerfile"
    anchor = re.compile(
        r"^\s*(?:FROM\s+(?:--platform=\S+\s+)?\S+(?:\s+[Aa][Ss]\s+\S+)?"
        r"|ARG\s+[A-Za-z_]\w*(?:=\S*)?)\s*$"
    )
    blank_ok = True
    line_facts = False

    def __init__(self) -> None:
        self._tracker = _Tracker()

    def holds(self, line: Line, segment: Sequence[Line]) -> bool:
        text = _text(line)
        first = text.split(maxsplit=1)[:1]
        return bool(
            (first and first[0] in INSTRUCTIONS)  # upper case, as Dockerfiles write them
            or text.lstrip().startswith("#")
            or self._tracker.open(segment)
        )

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        text = _text(line)
        first = text.split(maxsplit=1)[:1]
        return bool(
            (first and first[0].upper() in INSTRUCTIONS)
            or text.lstrip().startswith("#")
            or self._tracker.open(segment)
        )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        by_number = {line.number: line for line in lines}
        numbers = [line.number for line in lines]
        # Line numbers of the segment are not contiguous when blank lines were skipped: parse
        # the text with its gaps restored so each instruction maps back to its Line.
        text = "\n".join(
            _text(by_number[n]) if n in by_number else ""
            for n in range(numbers[0], numbers[-1] + 1)
        )
        try:
            dockerfile = parse_dockerfile(text, first_line=numbers[0])
            reading = read_stack(dockerfile, "the report", _bundled_index())
        except StackcheckError:
            return []  # a fragment that does not parse is left to the other readers

        def line_of(number: int | None) -> Line:
            return by_number.get(number or 0, lines[0])

        facts: list[Fact] = []
        for component, installations in reading.stack.items():
            for installation in installations:
                line = installation.evidence[0].line if installation.evidence else None
                facts.append(
                    ComponentFact(
                        line_of(line),
                        component,
                        version=installation.version,
                        cuda=installation.cuda,
                        path=installation.path,
                        properties=dict(installation.properties),
                        python_env=REPORTED_ENV if component is ComponentName.TORCH else None,
                    )
                )
        # After the installs, so that a component an ENV also declares (NCCL_VERSION) keeps the
        # install step as its first evidence, as lint-dockerfile has it.
        for name, (value, instruction) in reading.build.target.env.items():
            facts.extend(env_facts(line_of(instruction.line), name, value))
            if BUILD_FLAGS_NAME.search(name) and flag_archs(value):
                # an extension build's arch flags, as `nvcc-gencode-flags-setting` reads them
                facts.append(
                    ObservationFact(line_of(instruction.line), "build-archs", f"{name}={value}")
                )
        for observation in reading.observations:
            facts.append(
                ObservationFact(
                    line_of(observation.evidence.line), observation.kind, observation.value
                )
            )
        return facts
