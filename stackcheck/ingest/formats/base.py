"""The format interface: how to recognise one kind of pasted output, and how to read it.

A format names two kinds of lines. An *anchor* is unmistakable (``NVRM version:``, a ``docker
run``, an ``NCCL INFO`` line): it opens a segment of its format even in the middle of another.
A *member* belongs to the format once a segment of it is open, and may open one when nothing
else claims the line. Everything else is prose.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.lines import WRAP_MIN, Line
from stackcheck.ingest.signatures import needles_of

# Each anchor's literal words, one of which every line it matches holds: segmenting asks every
# format's anchor of every line, and a word looked for is far cheaper than an expression run (a
# pasted `env` of 13 MB spent most of its time there). Case-blind anchors are always run.
_ANCHOR_WORDS: dict[re.Pattern[str], tuple[str, ...]] = {}


def anchor_words(anchor: re.Pattern[str]) -> tuple[str, ...]:
    words = _ANCHOR_WORDS.get(anchor)
    if words is None:
        blind = bool(anchor.flags & re.IGNORECASE)
        words = _ANCHOR_WORDS[anchor] = () if blind else needles_of(anchor.pattern, anchor.flags)
    return words


class Format(ABC):
    name: ClassVar[str]  # "collect_env"
    title: ClassVar[str]  # "PyTorch collect_env"
    anchor: ClassVar[re.Pattern[str] | None] = None
    member: ClassVar[re.Pattern[str] | None] = None
    blank_ok: ClassVar[bool] = False  # blank lines inside keep the segment open
    # Whether error signatures and instance types are read from its lines: not from a recipe
    # (a Dockerfile's `# for p5.48xlarge` comment or `echo "NCCL WARN"` is no observation).
    line_facts: ClassVar[bool] = True
    # Set where a line that opens this format always continues an open segment of it, so
    # segmenting need not ask ``continues`` (a log of 60,000 lines asks it 60,000 times).
    own_anchor_continues: ClassVar[bool] = False

    def opens(self, line: Line) -> bool:
        anchor = self.anchor
        if anchor is None:
            return False
        text = line.text
        words = anchor_words(anchor)
        if words and not any(word in text for word in words):
            return False
        return anchor.search(text) is not None

    def joins(self, line: Line) -> bool:
        return self.member is not None and self.member.search(line.text) is not None

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return self.opens(line) or self.joins(line)

    def holds(self, line: Line, segment: Sequence[Line]) -> bool:
        """Whether ``line`` belongs to the open segment whatever other format it looks like (a
        line inside a continued Dockerfile instruction or a heredoc)."""
        del line, segment
        return False

    def logical(self, lines: Sequence[Line]) -> list[Line]:
        """The segment's lines as the tool printed them (a format whose lines get wrapped in
        pasting joins the pieces back); the physical lines by default."""
        return list(lines)

    @abstractmethod
    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        """Facts from one segment's lines. Never raises on odd input: what it cannot read, it
        leaves out."""


# A wrapped tail is a fragment of the line before, not the start of a sentence ("Getting this").
_SENTENCE = re.compile(r"^\s*[A-Z][a-z]{1,20}(?: [a-z']{1,20}){2,}.{0,300}[.?!:]\s*$")


LONG_WORD = 40  # a browser moves a word this long to a line of its own, however short the line


def wrapped_tail(line: Line, before: Line) -> bool:
    """Whether ``line`` may be the tail of ``before`` that a browser wrapped: ``before`` is long,
    or ``line`` is one long word (a path, a flag list), and ``line`` is no sentence of its own."""
    word = line.text.strip()
    return (
        (len(before.text) >= WRAP_MIN or (len(word) >= LONG_WORD and " " not in word))
        and not line.blank
        and _SENTENCE.match(line.text) is None
    )


def continued(segment: Sequence[Line]) -> bool:
    """Whether the segment's last line ends in a shell line continuation."""
    return bool(segment) and segment[-1].text.rstrip().endswith("\\")


def joined(lines: Sequence[Line]) -> str:
    """Shell lines with their backslash continuations joined into one command."""
    parts = []
    for line in lines:
        text = line.text.rstrip()
        parts.append(text[:-1] if text.endswith("\\") else text)
    return " ".join(p.strip() for p in parts)
