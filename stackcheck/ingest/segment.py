"""Finding each pasted output in a text: runs of lines that belong to one format."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from stackcheck.ingest.formats import FORMATS, PROSE
from stackcheck.ingest.formats.base import Format
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


def segment(lines: Sequence[Line], formats: Sequence[Format] = FORMATS) -> list[Segment]:
    """Split ``lines`` into segments, in order. Fences and blank lines end a segment unless its
    format keeps blank lines; an anchor of another format interrupts the open one."""
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
        opener = next((f for f in formats if f.opens(line)), None)
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
