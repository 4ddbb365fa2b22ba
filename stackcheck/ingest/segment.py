"""Finding each pasted output in a text: runs of lines that belong to one format."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from stackcheck.ingest.formats import FORMATS, PROSE
from stackcheck.ingest.formats.base import Format, anchor_words
from stackcheck.ingest.lines import Line


@dataclass
class Segment:
    format: Format
    lines: list[Line] = field(default_factory=list)

    @property
    def first(self) -> int:
        return self.lines[0].number

    @property
    def last(self) -> int:
        return self.lines[-1].number


@dataclass(frozen=True)
class _Openers:
    """Which formats could open a line: one expression holding every anchor's literal words
    says whether any of them is on the line; where none is, only the formats whose anchors have
    no such words (or that judge a line their own way) are asked. Most lines of a long log open
    nothing, and asking every format of every line cost more than reading them."""

    words: re.Pattern[str] | None
    unscreened: tuple[Format, ...]  # in the formats' order, which decides between claimants


@cache
def _openers(formats: tuple[Format, ...]) -> _Openers:
    screened: set[str] = set()
    unscreened: list[Format] = []
    for fmt in formats:
        words = anchor_words(fmt.anchor) if fmt.anchor is not None else ()
        if type(fmt).opens is Format.opens and (words or fmt.anchor is None):
            screened.update(words)
        else:
            unscreened.append(fmt)
    expression = "|".join(re.escape(w) for w in sorted(screened, key=len, reverse=True))
    return _Openers(re.compile(expression) if expression else None, tuple(unscreened))


_OPENED_MAX = 1 << 16  # remembered answers; emptied when full


def _opener(
    line: Line, formats: tuple[Format, ...], openers: _Openers, opened: dict[str, Format | None]
) -> Format | None:
    """The first format whose anchor the line holds (every format judges by the text alone)."""
    text = line.text
    if text in opened:
        return opened[text]
    asked = (
        formats
        if openers.words is None or openers.words.search(text) is not None
        else openers.unscreened
    )
    found = next((f for f in asked if f.opens(line)), None)
    if len(opened) >= _OPENED_MAX:
        opened.clear()
    opened[text] = found
    return found


def segment(lines: Sequence[Line], formats: Sequence[Format] = FORMATS) -> list[Segment]:
    """Split ``lines`` into segments, in order. Fences and blank lines end a segment unless its
    format keeps blank lines; an anchor of another format interrupts the open one."""
    formats = tuple(formats)
    openers = _openers(formats)
    opened: dict[str, Format | None] = {}  # a line's text -> the format it opens (floods repeat)
    segments: list[Segment] = []
    current: Segment | None = None
    pending: list[Line] = []  # blank lines that stay only if the segment goes on

    def close() -> None:
        nonlocal current
        if current is not None:
            segments.append(current)
        current = None
        pending.clear()

    for line in lines:
        if line.fence:
            close()
            continue
        if line.blank:
            if current is not None and current.format.blank_ok:
                pending.append(line)
            else:
                close()
            continue
        if current is not None and current.format.holds(line, current.lines):
            current.lines.extend(pending)
            pending.clear()
            current.lines.append(line)
            continue
        opener = _opener(line, formats, openers, opened)
        if (
            current is not None
            and current.format is not PROSE
            and (
                (opener is current.format and current.format.own_anchor_continues)
                or (
                    (opener is None or opener is current.format)
                    and current.format.continues(line, current.lines)
                )
            )
        ):
            current.lines.extend(pending)
            pending.clear()
            current.lines.append(line)
            continue
        starter = opener or next((f for f in formats if f.joins(line)), None)
        if starter is not None:
            close()
            current = Segment(starter, [line])
        elif current is not None and current.format is PROSE and not pending:
            current.lines.append(line)
        else:
            close()
            current = Segment(PROSE, [line])
    close()
    return segments
