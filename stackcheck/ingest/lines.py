"""Pasted text as numbered lines, with what is not the tools' output taken off.

People paste output inside Markdown fences, behind shell prompts, with log-collector prefixes
(CloudWatch's ``| timestamp |``, journald's ``Oct 04 13:19:39 host unit[pid]:``, Ray's
``(RayTrainWorker pid=1)``, MPI's ``[0]:``) and with inline code marks. Each line keeps its number
and raw text, for evidence, and gets a ``text`` without those decorations for the parsers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LINE = 4096  # longer lines are cut: no tool prints more on one line, and regexes stay cheap
MAX_INPUT = 16 << 20  # characters; triage refuses more

_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})[\w+-]{0,20}\s*$")
_HTML = re.compile(
    r"^\s*</?(?:details|summary|pre|code|br)\b[^>]{0,200}>(?:.{0,200}</summary>)?\s*$"
)
_PREFIXES = (
    re.compile(r"^\s*\|\s*\d{4}-\d\d-\d\dT[\d:.]{5,20}(?:Z|[+-]\d\d:?\d\d)?\s*\|\s?"),  # CloudWatch
    re.compile(
        r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]{1,64} [\w.@-]{1,64}(?:\[\d{1,9}\])?: "
    ),
    re.compile(r"^\[\d{4}-\d\d-\d\d[ T][\d:.,]{5,20}\]\s?"),  # [2025-10-16 22:16:08]
    re.compile(r"^\(\w{1,64} pid=\d{1,9}(?:, ip=[\d.]{1,40})?\)\s?"),  # Ray actors
    re.compile(r"^\[\d{1,6}\](?:<\w{1,10}>)?:?\s?(?=\S)"),  # MPI rank tags: [0]:  [1]
    re.compile(r"^>(?!>)\s?"),  # Markdown quote, not a Python prompt
)
# "$ cmd", "user:~$ cmd", "(env) [0] me@host:~/dir $ cmd", "[me@host ~]$ cmd", "root@box:/# cmd";
# a bare "# " is not a prompt (conda and nccl-tests print comment lines).
_PROMPT = re.compile(
    r"^(?:\([\w.-]{1,40}\)\s{1,4})?(?:\[\d{1,3}\]\s{1,4})?"
    r"(?:\[?[\w.-]{1,64}(?:@[\w.-]{1,64})?[: ][^\s$#]{0,200}\]?\s{0,4}[$#]|\$)\s{1,4}"
)
_REPL = re.compile(r"^(?:>>>|\.\.\.|In \[\d{1,5}\]:)\s")


@dataclass(frozen=True)
class Line:
    number: int  # 1-based, in the text as given
    raw: str  # as pasted (cut at MAX_LINE)
    text: str  # decorations removed
    fence: bool = False  # a Markdown fence or an HTML wrapper line: a hard break between blocks
    command: bool = False  # typed at a shell or Python prompt

    @property
    def blank(self) -> bool:
        return not self.text.strip()


def clean(raw: str) -> tuple[str, bool]:
    """The line without decorations, and whether it was typed at a prompt."""
    text = raw.replace("\t", "    ")
    for _ in range(4):  # prefixes nest: "| ts | [0]:host ..."
        before = text
        for prefix in _PREFIXES:
            text = prefix.sub("", text, count=1)
        if text == before:
            break
    text = text.replace("`", "").replace("**", "")
    command = False
    prompt = _PROMPT.match(text) or _REPL.match(text)
    if prompt is not None and text[prompt.end() :].strip():
        text, command = text[prompt.end() :], True
    return text.rstrip(), command


def split_lines(text: str) -> list[Line]:
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        raw = raw[:MAX_LINE]
        if _FENCE.match(raw) or _HTML.match(raw):
            lines.append(Line(number, raw, "", fence=True))
            continue
        cleaned, command = clean(raw)
        lines.append(Line(number, raw, cleaned, command=command))
    return lines
