"""Property tests of segmentation: a real NCCL log line is read the same wherever it stands:
re-indented, quoted with ``>``, without its ``host:pid:tid [rank]`` prefix, joined with others
on one line, or wrapped by a browser. The lines are real ones from the development corpus."""

from __future__ import annotations

import re
import textwrap
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stackcheck.ingest import read_report
from tests.corpus import REPORTS

_PREFIXED = re.compile(r"^[\w.-]{1,64}:\d{1,9}:\d{1,9} \[\d{1,4}\] NCCL (?:INFO|WARN) \S")
_PREFIX = re.compile(r"^[\w.-]{1,64}:\d{1,9}:\d{1,9} \[\d{1,4}\] ")
LOG_LINES = sorted(
    {
        line.rstrip()
        for report in REPORTS
        for line in report.body.splitlines()
        if _PREFIXED.match(line) and "`" not in line
    }
)
# A browser wraps at spaces; a word longer than this would stay whole on a line of its own.
WRAPPABLE = [line for line in LOG_LINES if max(len(w) for w in line.split()) <= 40]
SETTINGS = settings(
    deadline=timedelta(seconds=5),
    max_examples=120,
    suppress_health_check=[HealthCheck.too_slow],
)


def reading(text: str) -> set[str]:
    """What triage reads, without where: the facts' descriptions."""
    return {fact.describe() for fact in read_report(text, "t.txt").facts}


def test_the_sample_is_large() -> None:
    assert len(LOG_LINES) >= 40
    assert len(WRAPPABLE) >= 20


@SETTINGS
@given(st.lists(st.sampled_from(LOG_LINES), min_size=1, max_size=6), st.integers(1, 12))
def test_reindented(lines: list[str], indent: int) -> None:
    text = "\n".join(lines)
    assert reading("\n".join(" " * indent + line for line in lines)) == reading(text)


@SETTINGS
@given(st.lists(st.sampled_from(LOG_LINES), min_size=1, max_size=6), st.integers(1, 2))
def test_quoted(lines: list[str], depth: int) -> None:
    text = "\n".join(lines)
    assert reading("\n".join("> " * depth + line for line in lines)) == reading(text)


@SETTINGS
@given(st.lists(st.sampled_from(LOG_LINES), min_size=1, max_size=6))
def test_without_prefix(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert reading("\n".join(_PREFIX.sub("", line) for line in lines)) == reading(text)


@SETTINGS
@given(st.lists(st.sampled_from(LOG_LINES), min_size=2, max_size=6))
def test_joined_on_one_line(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert reading(" ".join(lines)) == reading(text)


@SETTINGS
@given(st.lists(st.sampled_from(LOG_LINES), min_size=2, max_size=6))
def test_joined_without_prefixes(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert reading(" ".join(_PREFIX.sub("", line) for line in lines)) == reading(text)


@SETTINGS
@given(st.lists(st.sampled_from(WRAPPABLE), min_size=1, max_size=6), st.integers(100, 200))
def test_wrapped(lines: list[str], width: int) -> None:
    text = "\n".join(lines)
    wrapped = "\n".join(
        piece
        for line in lines
        for piece in textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)
    )
    assert reading(wrapped) == reading(text)


@SETTINGS
@given(
    st.lists(st.sampled_from(WRAPPABLE), min_size=1, max_size=4),
    st.integers(100, 200),
    st.integers(1, 8),
)
def test_wrapped_then_quoted_and_indented(lines: list[str], width: int, indent: int) -> None:
    text = "\n".join(lines)
    pieces = [
        piece
        for line in lines
        for piece in textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)
    ]
    assert reading("\n".join("> " + " " * indent + p for p in pieces)) == reading(text)


def test_markdown_details_and_summary_unwrap() -> None:
    line = LOG_LINES[0]
    wrapped = "<details>\n<summary>NCCL log</summary>\n\n```\n" + line + "\n```\n\n</details>\n"
    assert reading(wrapped) == reading(line)
