"""Segmenting asks a line's formats through a screen (one expression of every anchor's literal
words, and a memo of texts already asked): it must name the same opener as asking every format
in order, on every line of the development corpus's real reports and on lines built to hold an
anchor's word without its expression."""

from __future__ import annotations

import time

from stackcheck.ingest.formats import FORMATS
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line, split_lines
from stackcheck.ingest.segment import _opener, _openers, segment
from tests.corpus import REPORTS


def _first_opener(line: Line) -> str | None:
    return next((f.name for f in FORMATS if f.opens(line)), None)


def test_the_screen_names_the_opener_every_format_would() -> None:
    openers = _openers(tuple(FORMATS))
    opened: dict[str, Format | None] = {}
    asked = 0
    for report in REPORTS:
        for line in split_lines(report.body):
            found = _opener(line, tuple(FORMATS), openers, opened)
            assert (found.name if found else None) == _first_opener(line), (report.key, line)
            asked += 1
    assert asked > 15_000  # the whole corpus, not a corner of it


def test_a_word_of_an_anchor_without_its_expression_is_asked_all_the_same() -> None:
    for text in ("INFO about docker and FROM", "the NCCL version is 2.18", "Name: x GPU0"):
        (line,) = split_lines(text + "\n")
        found = _opener(line, tuple(FORMATS), _openers(tuple(FORMATS)), {})
        assert (found.name if found else None) == _first_opener(line)


def test_a_pasted_environment_of_repeated_lines_segments_as_one_dump() -> None:
    text = "$ env\n" + "NCCL_DEBUG=INFO\nNCCL_SOCKET_IFNAME=eth0\n" * 20_000
    started = time.process_time()
    segments = segment(split_lines(text))
    assert [s.format.name for s in segments] == ["prose", "env"]  # the command, then its output
    assert len(segments[1].lines) == 40_000
    # Not a timing test of speed (that is benchmarks/hostile_inputs.py), a bound on a hang.
    assert time.process_time() - started < 30
