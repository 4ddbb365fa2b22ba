"""Triage of pasted text: find each tool output in it, read what it states, and build the
partial snapshot the rules check. ``read_report`` is the whole layer's entry point.

lines (decorations off) -> segments (one per pasted output) -> facts (per format, plus messages
recognised anywhere) -> snapshot (``partial``: what the text does not state stays unknown).
"""

from __future__ import annotations

from dataclasses import dataclass

from stackcheck.errors import StackcheckError
from stackcheck.ingest import signatures
from stackcheck.ingest.assemble import assemble
from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats import PROSE, nccl_log
from stackcheck.ingest.lines import MAX_INPUT, Line, split_lines
from stackcheck.ingest.python_results import python_results
from stackcheck.ingest.segment import Segment, segment
from stackcheck.ingest.ulimit_answers import ulimit_answers
from stackcheck.snapshot.model import ProbeNote, Snapshot


@dataclass
class ParsedSegment:
    segment: Segment
    facts: list[Fact]


@dataclass
class Triage:
    snapshot: Snapshot
    segments: list[ParsedSegment]

    @property
    def facts(self) -> list[Fact]:
        return [f for s in self.segments for f in s.facts]

    @property
    def recognised(self) -> bool:
        """Whether the text held any output triage knows (even one that stated nothing)."""
        return bool(self.facts) or any(s.segment.format is not PROSE for s in self.segments)


def read_report(text: str, target: str) -> Triage:
    """The snapshot a pasted report states, and what was read from each of its segments."""
    if len(text) > MAX_INPUT:
        raise StackcheckError(f"{target}: more than {MAX_INPUT >> 20} MiB of text; paste less")
    lines = split_lines(text)
    parsed = [ParsedSegment(s, []) for s in segment(lines)]
    owner = {line.number: p for p in parsed for line in p.segment.lines}
    notes: list[ProbeNote] = []
    logical: dict[int, list[Line]] = {}
    for part in parsed:
        # A parser bug (joining logical lines or reading them) must not cost the user the other
        # segments: that segment is read line by line as pasted, and a note says why.
        logical[id(part)] = part.segment.lines
        try:
            logical[id(part)] = part.segment.format.logical(part.segment.lines)
            part.facts.extend(part.segment.format.parse(logical[id(part)]))
        except Exception as exc:
            notes.append(
                ProbeNote(
                    probe=f"triage {part.segment.format.name}",
                    message=f"lines {part.segment.first}-{part.segment.last}: failed: {exc!r}",
                )
            )
    for part in parsed:
        if not part.segment.format.line_facts:
            continue
        reads_nccl = part.segment.format.name != nccl_log.NcclLog.name
        prose = part.segment.format is PROSE
        for line in logical[id(part)]:
            if not prose:
                part.facts.extend(signatures.line_facts(line))
            if reads_nccl:
                part.facts.extend(nccl_log.line_facts(line))
        if prose:
            # A paragraph's lines may be wrapped by whoever pasted them (formats whose output
            # gets wrapped join their own lines in ``logical``).
            part.facts.extend(signatures.paragraph_facts(logical[id(part)]))
    for fact in [*python_results(lines), *ulimit_answers(lines)]:
        holder = owner.get(fact.line.number)
        if holder is not None:
            holder.facts.append(fact)
    snapshot = assemble([f for p in parsed for f in p.facts], target)
    snapshot.notes.extend(notes)
    return Triage(snapshot, parsed)


__all__ = ["ParsedSegment", "Triage", "read_report"]
