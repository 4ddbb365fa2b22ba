"""Pasted text as numbered lines, with what is not the tools' output taken off.

People paste output inside Markdown fences, behind shell prompts, with log-collector prefixes
(CloudWatch's ``| timestamp |``, journald's ``Oct 04 13:19:39 host unit[pid]:``, Ray's
``(RayTrainWorker pid=1)``, MPI's ``[0]:``) and with inline code marks. Each line keeps its number
and raw text, for evidence, and gets a ``text`` without those decorations for the parsers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MAX_LINE = 4096  # longer lines are cut: no tool prints more on one line, and regexes stay cheap
MAX_INPUT = 16 << 20  # characters; triage refuses more

_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})[\w+-]{0,20}\s*$")
_HTML = re.compile(
    r"^\s*</?(?:details|summary|pre|code|br)\b[^>]{0,200}>(?:.{0,200}</summary>)?\s*$"
)


# Each test's fixed characters first: most lines of a log hold none and skip the expression.
def _fence(text: str) -> bool:
    return ("```" in text or "~~~" in text) and _FENCE.match(text) is not None


def _html(text: str) -> bool:
    return "<" in text and _HTML.match(text) is not None


_PREFIXES = (
    re.compile(r"^\s*\|\s*\d{4}-\d\d-\d\dT[\d:.]{5,20}(?:Z|[+-]\d\d:?\d\d)?\s*\|\s?"),  # CloudWatch
    re.compile(
        r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]{1,64} [\w.@-]{1,64}(?:\[\d{1,9}\])?: "
    ),
    re.compile(r"^\[\d{4}-\d\d-\d\d[ T][\d:.,]{5,20}\]\s?"),  # [2025-10-16 22:16:08]
    re.compile(r"^\(\w{1,64} pid=\d{1,9}(?:, ip=[\d.]{1,40})?\)\s?"),  # Ray actors
    re.compile(r"^\[\d{1,6}\](?:<\w{1,10}>)?:?\s?(?=\S)"),  # MPI rank tags: [0]:  [1]
    re.compile(r"^ {0,3}>(?!>)\s?"),  # Markdown quote (up to 3 spaces before), not a prompt
)
# "$ cmd", "user:~$ cmd", "(env) [0] me@host:~/dir $ cmd", "[me@host ~]$ cmd", "root@box:/# cmd";
# a bare "# " is not a prompt (conda and nccl-tests print comment lines), nor is a YAML key with
# a comment ("deploy: # API dependent on compose version").
_PROMPT = re.compile(
    r"^(?![\w.-]{1,64}:\s{1,4}#)(?:\([\w.-]{1,40}\)\s{1,4})?(?:\[\d{1,3}\]\s{1,4})?"
    r"(?:\[?[\w.-]{1,64}(?:@[\w.-]{1,64})?[: ][^\s$#]{0,200}\]?\s{0,4}[$#]|\$)\s{1,4}"
)
_REPL = re.compile(r"^(?:>>>|\.\.\.|In \[\d{1,5}\]:)\s")
# oh-my-zsh's default theme: "➜  ~ cmd", "➜  ~/src cmd", "➜  repo git:(main) ✗ cmd" (no "$" or
# "#"); a directory name alone is not told from a command, so then only the arrow is the prompt.
_ZSH_PROMPT = re.compile(
    r"^➜\s{1,2}(?:(?:~|/)\S{0,200}\s{1,4}|\S{1,200}\sgit:\([^)\s]{1,100}\)(?:\s✗)?\s{1,4})?(?=\S)"
)
# Several NCCL lines pasted as one (a browser or a log shipper joined them): split before each
# "host:pid:tid [rank] NCCL INFO", before each "[rank] NCCL INFO" (the host cut away) or,
# without either prefix, before each "NCCL INFO".
_NCCL_LEVEL = r"NCCL (?:INFO|WARN|TRACE|ERROR) "
_JOINED = re.compile(
    rf"\s{{1,8}}(?=[\w.-]{{1,64}}:\d{{1,9}}:\d{{1,9}} \[\d{{1,4}}\] {_NCCL_LEVEL})|"
    rf"\s{{1,8}}(?=\[\d{{1,4}}\] {_NCCL_LEVEL})|"
    rf"(?<![\]:])\s{{1,8}}(?={_NCCL_LEVEL})"
)


# Not frozen: a frozen dataclass sets each field through object.__setattr__, and a 5 MB log
# makes 60,000 lines (a third of splitting it). Nothing assigns to a line once made; it hashes
# and compares by its fields as a frozen one does.
@dataclass(eq=True, unsafe_hash=True, slots=True)
class Line:
    number: int  # 1-based, in the text as given
    raw: str  # as pasted (cut at MAX_LINE)
    text: str  # decorations removed
    fence: bool = False  # a Markdown fence or an HTML wrapper line: a hard break between blocks
    command: bool = False  # typed at a shell or Python prompt

    @property
    def blank(self) -> bool:
        return not self.text.strip()


def clean(raw: str, indent: int = 0) -> tuple[str, bool]:
    """The line without decorations (and without ``indent`` leading spaces: its block's), and
    whether it was typed at a prompt."""
    text = raw.replace("\t", "    ")
    if indent:
        quoted = _QUOTE_MARKS.match(text).end()  # type: ignore[union-attr]
        if text[quoted : quoted + indent].isspace():
            text = text[:quoted] + text[quoted + indent :]
    # Every prefix starts with one of these (or a capital: journald's month); most log lines
    # start with a host name and skip the loop.
    decorated = text.lstrip()[:1] in ("|", "[", "(", ">") or text[:1].isupper()
    for _ in range(4 if decorated else 0):  # prefixes nest: "| ts | [0]:host ..."
        before = text
        for prefix in _PREFIXES:
            text = prefix.sub("", text, count=1)
        if text == before:
            break
    text = text.replace("`", "").replace("**", "")
    command = False
    # Every prompt holds a "$" or "#", every REPL prompt starts with ">", "." or "I": most lines
    # hold neither and skip both expressions (_PROMPT backtracks long on a "host:pid:tid").
    prompt = _PROMPT.match(text) if "$" in text or "#" in text else None
    if prompt is None and text[:1] in (">", ".", "I"):
        prompt = _REPL.match(text)
    elif prompt is None and text[:1] == "➜":
        prompt = _ZSH_PROMPT.match(text)
    if prompt is not None and text[prompt.end() :].strip():
        text, command = text[prompt.end() :], True
    return text.rstrip(), command


# A "host:pid:tid" that a split before its "[rank] NCCL INFO" left on its own.
_PREFIX_ONLY = re.compile(r"^\s*[\w.-]{1,64}:\d{1,9}:\d{1,9}\s*$")


def _pieces(cleaned: str) -> list[str]:
    if cleaned.count("NCCL ") < 2:
        return [cleaned]
    pieces: list[str] = []
    for piece in _JOINED.split(cleaned):
        if not piece.strip():
            continue
        if pieces and _PREFIX_ONLY.match(pieces[-1]):
            pieces[-1] = f"{pieces[-1].strip()} {piece}"
        else:
            pieces.append(piece)
    return pieces or [cleaned]


# A Markdown table, outside a code block: a header row, then a rule of dashes (``|---|:--:|``).
# Both start with a pipe, so a tool's own columns (conda's ``package | build`` over ``----|--``)
# stay the tool's.
_TABLE_RULE = re.compile(r"^\s{0,3}\|(?:\s{0,4}:?-{3,}:?\s{0,4}\|){1,40}\s{0,4}(?::?-{3,}:?)?\s*$")


_QUOTED = re.compile(r"^(?:\s{0,8}>)*\s*")


def _bare(raw: str) -> str:
    """A line without its indentation and Markdown quote marks: a table may be quoted."""
    return _QUOTED.sub("", raw, count=1)


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in clean(_bare(row))[0].strip().strip("|").split("|")]


def _table_rows(header: str, row: str) -> list[str]:
    """A Markdown table's row as one line per cell, each under its column's name ("fi_info -p
    efa: -61 No data available"), as a reader takes it."""
    names = _cells(header)
    return [
        f"{name}: {cell}" if name else cell
        for name, cell in zip(names, _cells(row), strict=False)
        if cell
    ]


def _table_starts(raws: Sequence[str], index: int) -> bool:
    """Whether the line at ``index`` is a table's header: a rule of dashes follows."""
    following = _bare(raws[index + 1]) if index + 1 < len(raws) else ""
    return (
        _bare(raws[index]).startswith("|")
        and "-" in following
        and _TABLE_RULE.match(following) is not None
    )


DOUBLE_SPACED_MIN = 6  # non-blank lines of a paste before its spacing is judged


def undouble(raws: Sequence[str]) -> list[int]:
    """The indexes of the lines to read. A paste whose every line is followed by a blank one
    (copied from a page that renders each line as a paragraph) has no two non-blank lines
    touching: its single blank lines are the copy's, and only a run of them was a break."""
    kept = list(range(len(raws)))
    blank = [not raw.strip() for raw in raws]
    if sum(not b for b in blank) < DOUBLE_SPACED_MIN or any(
        not blank[i] and not blank[i + 1] for i in range(len(raws) - 1)
    ):
        return kept
    return [
        i
        for i in kept
        if not blank[i] or (i > 0 and blank[i - 1]) or i + 1 >= len(raws) or blank[i + 1]
    ]


# Markdown quote marks before a line's text (not a Python prompt's ">>>").
_QUOTE_MARKS = re.compile(r"^(?: {0,3}>(?!>) ?)*")


def _unquoted(raw: str) -> str:
    expanded = raw.replace("\t", "    ")
    if ">" not in expanded[:4]:  # a quote mark stands within the first four characters
        return expanded
    return expanded[_QUOTE_MARKS.match(expanded).end() :]  # type: ignore[union-attr]


def block_indents(raws: Sequence[str], depth: int = 0) -> list[int]:
    """Each line's block indentation: a block of lines that all start with whitespace, after a
    blank line, a fence or the start of the text (a Markdown indented code block, output pasted
    under a list item or re-indented by an editor), loses its common indentation, as if pasted
    flush left. Lines that continue a flush-left line (YAML under its key, a traceback's frames)
    keep theirs. Inside a block, what reads as a block once that indentation is gone (a code
    block under a paragraph of a whole text re-indented) loses its own, up to three levels."""
    bodies = [_unquoted(raw) for raw in raws] if depth == 0 else list(raws)
    indents = [0] * len(raws)
    after_break = True
    index = 0
    while index < len(raws):
        body = bodies[index]
        if body.strip() and body[:1] == " " and after_break and not _fence(body):
            end = index
            while end < len(raws) and (not bodies[end].strip() or bodies[end][:1] == " "):
                if _fence(bodies[end]):
                    break
                end += 1
            common = min(len(b) - len(b.lstrip(" ")) for b in bodies[index:end] if b.strip())
            indents[index:end] = [common] * (end - index)
            if depth < 3 and common:
                inner = block_indents([b[common:] for b in bodies[index:end]], depth + 1)
                indents[index:end] = [common + i for i in inner]
            index = end
            after_break = False
            continue
        after_break = not body.strip() or _fence(body)
        index += 1
    return indents


def split_lines(text: str) -> list[Line]:
    """The text's lines; a line holding several joined NCCL lines becomes several, all with its
    number (evidence points at the line as pasted), and so does a Markdown table's row (one
    per cell, with its column's name)."""
    lines: list[Line] = []
    every = text.splitlines()
    numbers = [i + 1 for i in undouble(every)]
    raws = [every[n - 1][:MAX_LINE] for n in numbers]
    indents = block_indents(raws)
    header: str | None = None  # the header row of the Markdown table being read
    code = False  # inside a fenced code block, where a table is a tool's output
    for index, (number, raw) in enumerate(zip(numbers, raws, strict=True)):
        if "|" in raw:
            if header is not None:
                if not _TABLE_RULE.match(_bare(raw)):
                    lines.extend(Line(number, raw, cell) for cell in _table_rows(header, raw))
                    continue
                lines.append(Line(number, raw, "", fence=True))  # the rule under the header
                continue
            if not code and _table_starts(raws, index):
                header = raw  # read with each row; the header and its rule are a hard break
                lines.append(Line(number, raw, "", fence=True))
                continue
        else:
            header = None
        if ("`" in raw or "~" in raw) and _fence(_unquoted(raw)[indents[index] :]):
            # a fence, also of a re-indented or quoted block
            code = not code
            lines.append(Line(number, raw, "", fence=True))
            continue
        if _html(raw):
            lines.append(Line(number, raw, "", fence=True))
            continue
        cleaned, command = clean(raw, indents[index])
        for piece in _pieces(cleaned):
            lines.append(Line(number, raw, piece, command=command))
    return lines


# Where one sentence of a line ends and the next begins: after its stop, before the spaces. A
# full-width stop (Chinese, Japanese) ends one without a space after it.
SENTENCE_BREAK = re.compile(r"(?<=[.!?;])\s{1,4}|(?<=[\u3002\uff01\uff1f\uff1b])\s{0,4}(?=.)")


def sentences(text: str) -> list[str]:
    """A line's sentences, as prose readers judge each on its own."""
    return SENTENCE_BREAK.split(text)


def sentence_at(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` that holds ``text[start:end]``, as `sentences` splits them."""
    # Over the whole text: a search that stops at ``start`` cannot see past it, and misses the
    # break right after a full-width stop (its lookahead wants a character beyond the stop).
    begin, finish = 0, len(text)
    for found in SENTENCE_BREAK.finditer(text):
        if found.end() <= start:
            begin = found.end()
        elif found.start() >= end:
            finish = found.start()
            break
    return text[begin:finish]


def joined_line(first: Line, tail: Line, sep: str = " ") -> Line:
    """A line wrapped in pasting, joined back: the first piece's number, both pieces' text."""
    return Line(first.number, first.raw, f"{first.text.rstrip()}{sep}{tail.text.strip()}")


WRAP_MIN = 60  # a line this long may have been wrapped by a browser
HARD_WRAP_MIN = 60  # narrower lines of equal length are more likely a table than a terminal


def hard_wrapped(lines: Sequence[Line]) -> set[int]:
    """Indexes of lines a terminal cut at a fixed width (mid-word, no space lost): two or more
    neighbours of one length, at least HARD_WRAP_MIN wide. Their next line joins without a
    space."""
    widths = [len(line.raw.rstrip("\r\n")) for line in lines]
    return {
        at
        for at, width in enumerate(widths)
        if width >= HARD_WRAP_MIN
        and any(0 <= n < len(widths) and widths[n] == width for n in (at - 1, at + 1))
    }
