"""Environment variables as people paste them: ``export``, ``declare -x`` (bash's ``export``
listing), ``env`` output, JSON from a job definition, and ``echo $VAR`` followed by its value.

A few variables are also an image's statement of what it carries (``NCCL_VERSION``,
``NV_LIBNCCL_PACKAGE``, ``CUDA_VERSION``, ``NV_CUDNN_VERSION``); those become components too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck import versions
from stackcheck.ingest.facts import ComponentFact, EnvFact, Fact, toolkit_fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.probes.environment import is_recorded
from stackcheck.snapshot.model import ComponentName

_EXPORT = re.compile(r"^\s*(?:export|declare\s+-x)\s+([A-Za-z_]\w{0,100})=(.{0,4000})$")
_SETENV = re.compile(r"^\s*setenv\s+([A-Za-z_]\w{0,100})\s+(.{0,4000})$")
_JSON = re.compile(r'^\s*"([A-Za-z_]\w{0,100})"\s*:\s*"((?:[^"\\]|\\.){0,4000})"\s*,?\s*$')
_BARE = re.compile(r"^([A-Z][A-Z0-9_]{2,100})=(\S{0,4000})\s*$")
_ECHO = re.compile(r'^\s*echo\s+"?\$\{?([A-Za-z_]\w{0,100})\}?"?\s*$')
_DEB_NCCL = re.compile(r"libnccl2?=(\d+\.\d+\.\d+)-\d+\+cuda(\d+\.\d+)")
_DECLARED = {
    "NCCL_VERSION": ComponentName.NCCL,
    "CUDA_VERSION": ComponentName.CUDA_TOOLKIT,
    "NV_CUDNN_VERSION": ComponentName.CUDNN,
    "CUDNN_VERSION": ComponentName.CUDNN,
}


def unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def env_facts(line: Line, name: str, value: str) -> list[Fact]:
    """A variable's fact, and the component it declares, if it is one that does."""
    value = unquote(value)
    facts: list[Fact] = []
    if is_recorded(name):
        facts.append(EnvFact(line, name, value))
    component = _DECLARED.get(name)
    release = versions.parse(value)
    if component is not None and release is not None:
        if component is ComponentName.CUDA_TOOLKIT:
            facts.append(toolkit_fact(line, str(release), declared_by=name))
        else:
            facts.append(
                ComponentFact(
                    line, component, version=str(release), properties={"declared_by": name}
                )
            )
    deb = _DEB_NCCL.search(value) if name.startswith("NV_LIBNCCL") else None
    if deb is not None:
        facts.append(
            ComponentFact(
                line,
                ComponentName.NCCL,
                version=deb.group(1),
                cuda=deb.group(2),
                properties={"declared_by": name},
            )
        )
    return facts


class EnvDump(Format):
    name = "env"
    title = "environment variables"
    anchor = re.compile(
        r'^\s*(?:export|declare\s+-x|setenv)\s+[A-Za-z_]\w*[= ]|^\s*"[A-Z][A-Z0-9_]{2,100}"\s*:\s*"'
        r"|^\s*echo\s+\"?\$\{?[A-Za-z_]\w*\}?\"?\s*$"
    )
    member = _BARE

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        after_echo = bool(segment) and _ECHO.match(segment[-1].text) is not None
        return after_echo or self.opens(line) or self.joins(line)

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for index, line in enumerate(lines):
            match = (
                _EXPORT.match(line.text)
                or _SETENV.match(line.text)
                or _JSON.match(line.text)
                or _BARE.match(line.text)
            )
            if match:
                facts.extend(env_facts(line, match.group(1), match.group(2)))
                continue
            echo = _ECHO.match(line.text)
            if echo and index + 1 < len(lines):
                facts.extend(env_facts(lines[index + 1], echo.group(1), lines[index + 1].text))
        return facts
