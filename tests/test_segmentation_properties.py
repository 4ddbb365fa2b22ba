"""Property tests of segmentation: a real NCCL log line is read the same wherever it stands:
re-indented, quoted with ``>``, without its ``host:pid:tid [rank]`` prefix, joined with others
on one line, or wrapped by a browser. The lines are real ones from the development corpus. A
real message of the catalogue quoted in a sentence is read the same when the sentence is
wrapped, quoted and indented."""

from __future__ import annotations

import re
import textwrap
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from stackcheck.ingest import read_report, signatures
from stackcheck.ingest.facts import ObservationFact
from stackcheck.ingest.formats import PROSE
from stackcheck.ingest.lines import split_lines
from stackcheck.ingest.segment import segment
from stackcheck.snapshot.model import RunSpec
from tests.corpus import REPORTS, CorpusReport, body

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


def specs_of(text: str) -> list[RunSpec]:
    return read_report(text, "t.txt").snapshot.run_specs


def reading(text: str) -> set[str]:
    """What triage reads, without where: the facts' descriptions."""
    return {fact.describe() for fact in read_report(text, "t.txt").facts}


def meaning(text: str) -> set[str]:
    """What triage reads, without where and without the words an observation quotes (the same
    answer may be quoted by two readers, one of which needs it on one line)."""
    return {
        f"observed {fact.kind}" if isinstance(fact, ObservationFact) else fact.describe()
        for fact in read_report(text, "t.txt").facts
    }


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


def _quotable(signature: signatures.Signature) -> bool:
    """A message quoted in a sentence: not one a tool prints alone on a line (``^...$``) or in a
    log that a format reads (its own wrapping is that format's: ``test_wrapped``), no runs of
    spaces or tabs (a wrap would change them), no condition on the other words of its line
    (``requires``, ``excludes``: a wrap can move them off it), and short enough that a wrap at 80
    columns or more spreads it over three lines at most."""
    found = signature.match(signature.example)
    return (
        found is not None
        and len(signature.pattern.findall(signature.example)) == 1  # one message, not a run
        and signature.requires is None
        and signature.excludes is None
        and all(s.format is PROSE for s in segment(split_lines(signature.example)))
        and "^" not in signature.pattern.pattern
        and "  " not in signature.example
        and "\t" not in signature.example
        and max(len(w) for w in signature.example.split()) <= 30
        and len(found.group(0)) <= 100
    )


# The catalogue's real messages, as people quote them in a sentence that a browser or an editor
# then wraps: a message is read wherever the wrap falls.
MESSAGES = sorted({s.example for s in signatures.catalogue() if _quotable(s)})


def test_the_message_sample_is_large() -> None:
    assert len(MESSAGES) >= 20


@SETTINGS
@given(st.sampled_from(MESSAGES), st.integers(80, 160), st.integers(0, 4), st.booleans())
def test_a_quoted_message_survives_wrapping(
    message: str, width: int, indent: int, quoted: bool
) -> None:
    sentence = f"When I run the job it fails with this message: {message} Any idea why?"
    pieces = textwrap.wrap(sentence, width, break_long_words=False, break_on_hyphens=False)
    mark = "> " if quoted else ""
    wrapped = "\n".join(mark + " " * indent + piece for piece in pieces)
    assert meaning(wrapped) == meaning(sentence)


# Blocks of the formats added for issue 13's development misses, as real reports pasted them:
# `nvidia-container-cli info` (157) and a Markdown table (146).
BLOCKS = [
    "\n".join(body("157").splitlines()[3:]),
    "\n".join(body("146").splitlines()[-4:]),
]


def test_the_blocks_are_read() -> None:
    assert all(reading(block) for block in BLOCKS)


@SETTINGS
@given(st.sampled_from(BLOCKS), st.integers(0, 8), st.booleans())
def test_a_block_survives_reindentation_and_quoting(block: str, indent: int, quoted: bool) -> None:
    mark = "> " if quoted else ""
    moved = "\n".join(
        mark + " " * indent + line if line else mark.rstrip() for line in block.splitlines()
    )
    assert reading(moved) == reading(block)


# Reports whose reading is known to change when the whole text is indented or quoted, and why;
# each must still change (so the entry goes once it is read right).
MOVES_CHANGE_READING: dict[str, str] = {}


@pytest.mark.parametrize("report", REPORTS, ids=lambda r: r.key)
def test_a_whole_report_reads_the_same_indented_or_quoted(report: CorpusReport) -> None:
    """Output pasted as a Markdown indented code block, under a list item, or quoted: each
    block loses its common indentation (``lines.block_indents``), each quote mark is dropped.
    Every report, every indentation, quoted or not: no sampling, so every run checks the same."""
    text = report.body
    same = []
    for pad in ("  ", "    ", "        ", "\t"):
        for mark in ("", "> "):
            lines = (mark + pad + line if line else mark.rstrip() for line in text.splitlines())
            moved = "\n".join(lines)
            same.append(reading(moved) == reading(text))
    if report.key in MOVES_CHANGE_READING:
        assert not all(same), f"{report.key} now reads the same: drop it from MOVES_CHANGE_READING"
    else:
        assert all(same)


LONG = [r for r in REPORTS if sum(1 for line in r.body.splitlines() if line.strip()) >= 6]


@settings(
    deadline=timedelta(seconds=10), max_examples=40, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.sampled_from(LONG))
def test_a_double_spaced_report_reads_the_same(report: CorpusReport) -> None:
    """Copied from a page that renders each line as a paragraph: a blank line after every
    line (``lines.undouble``); a run of blank lines stays a break."""
    double = "\n\n".join(report.body.splitlines())
    assert reading(double) == reading(report.body)


# `docker run` command lines of the corpus (the command starts the line, after a prompt or sudo:
# a sentence that quotes one mid-way is prose, whose wrapping is another property) whose image is
# a reference with a registry path or a tag (a wrapped tail that is a plain word reads as the
# next sentence, not as an image).
DOCKER_RUNS = sorted(
    {
        line.strip()
        for report in REPORTS
        for line in report.body.splitlines()
        if re.match(r"\s*(?:[$#]\s*)?(?:sudo\s+)?docker run\b", line)
        and any(spec.image and re.search(r"[/:]", spec.image) for spec in specs_of(line))
    }
)


def test_the_docker_run_sample_is_large() -> None:
    assert len(DOCKER_RUNS) >= 5


@SETTINGS
@given(st.sampled_from(DOCKER_RUNS), st.integers(50, 120))
def test_a_docker_run_line_survives_wrapping(line: str, width: int) -> None:
    """Wrapped anywhere after `docker run` (the anchor itself split over two lines is not a
    command any more)."""
    pieces = textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)
    assume(any(re.search(r"docker\s+run", piece) for piece in pieces))
    assert reading("\n".join(pieces)) == reading(line)


@SETTINGS
@given(st.sampled_from(["008", "010", "014", "148"]), st.integers(90, 160))
def test_collect_env_and_torch_config_survive_wrapping(key: str, width: int) -> None:
    """collect_env (a long `Python version` line) and `torch.__config__.show()` (the
    architecture flags, one long word) wrapped by a browser read the same."""
    text = body(key)
    wrapped = "\n".join(
        piece
        for line in text.splitlines()
        for piece in (
            textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)
            if len(line) > width
            else [line]
        )
    )
    assert reading(wrapped) == reading(text)


def test_a_message_whose_required_words_stand_on_the_line_before_the_wrap() -> None:
    # The OS a line names beside EFA (a catalogue entry with `requires`), wrapped by a browser
    # so the OS falls on the next line; a new list item is not such a line.
    sentence = (
        "We pinned the EFA installer on our compute nodes after it broke, to address the issue "
        "on Rocky 9 nodes."
    )
    wrapped = sentence.replace("the issue ", "the issue\n")
    assert "observed os-named" in meaning(sentence)
    assert meaning(wrapped) == meaning(sentence)
    listed = (
        "* Instance: p4d.24xlarge with EFA enabled, the installer pinned on all nodes\n"
        "* OS: Rocky 9\n"
    )
    assert "observed os-named" not in meaning(listed)
