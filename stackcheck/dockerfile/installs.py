"""Install steps of a Dockerfile as component installations, each with its evidence: the file, the
line of the instruction and the text after expansion. What is read is a table of patterns
(``installs.toml``), not code: a new way of installing NCCL is a new row."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from stackcheck import versions
from stackcheck.dockerfile.build import Step
from stackcheck.snapshot.model import ComponentName, Evidence, Installation, Origin

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_TABLE = Path(__file__).with_name("installs.toml")
_SPACE = re.compile(r"\s+")
_DETAIL = 200


@dataclass(frozen=True)
class Pattern:
    component: ComponentName
    how: str
    regex: re.Pattern[str]
    where: str = "RUN"
    origin: Origin = "system"
    version_from: str | None = None
    sets: str | None = None
    properties: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class FlagPattern:
    component: ComponentName
    regex: re.Pattern[str]


@dataclass
class Installed:
    """One component a step installs."""

    component: ComponentName
    installation: Installation
    step: Step
    how: str
    extra: dict[str, str] = field(default_factory=dict)


@cache
def patterns() -> tuple[tuple[Pattern, ...], tuple[FlagPattern, ...]]:
    data: dict[str, Any] = tomllib.loads(_TABLE.read_text(encoding="utf-8"))
    rows = tuple(
        Pattern(
            component=ComponentName(row["component"]),
            how=row["how"],
            regex=re.compile(row["pattern"]),
            where=row.get("where", "RUN"),
            origin=row.get("origin", "system"),
            version_from=row.get("version_from"),
            sets=row.get("sets"),
            properties=tuple(sorted(row.get("properties", {}).items())),
        )
        for row in data["install"]
    )
    flags = tuple(
        FlagPattern(ComponentName(row["component"]), re.compile(row["pattern"]))
        for row in data.get("flags", [])
    )
    return rows, flags


def _group(match: re.Match[str], name: str) -> str | None:
    groups = match.groupdict()
    return groups.get(name) or groups.get(f"{name}2")


def _version(pattern: Pattern, match: re.Match[str]) -> str | None:
    if pattern.version_from is None:
        return _group(match, "version")
    values = {k: v for k, v in match.groupdict().items() if v}
    try:
        return pattern.version_from.format(**values)
    except KeyError:
        # "{version}" of a fabric manager apt name with only its branch: the branch is all known.
        return values.get("branch")


def _cuda(value: str | None) -> str | None:
    if not value:
        return None
    if value.startswith("cu"):
        return versions.cuda_from_tag(value)
    return value if "." in value or value.isdigit() else None


def _snippet(text: str, match: re.Match[str]) -> str:
    start = max(0, match.start() - 40)
    return text[start : start + _DETAIL].strip()


def read_installs(steps: list[Step], path: str) -> list[Installed]:
    """What each step installs, in order; a pattern that matches twice in one step with the same
    version is read once."""
    table, flag_table = patterns()
    found: list[Installed] = []
    for step in steps:
        keyword = step.instruction.keyword
        text = _SPACE.sub(" ", step.text)
        here: list[Installed] = []
        cuda_of: dict[ComponentName, str] = {}
        for pattern in table:
            if pattern.where != keyword:
                continue
            for match in pattern.regex.finditer(text):
                if pattern.sets == "cuda":
                    cuda_of[pattern.component] = _group(match, "cuda") or ""
                    continue
                version = _version(pattern, match)
                if any(
                    i.component is pattern.component and i.installation.version == version
                    for i in here
                ):
                    continue
                tag = _group(match, "cuda")
                properties = dict(pattern.properties)
                if tag == "cpu":
                    properties["cpu_only"] = "yes"
                elif tag and tag.startswith("cu") and pattern.component is ComponentName.TORCH:
                    properties["cpu_only"] = "no"
                evidence = Evidence(
                    kind="text",
                    source=path,
                    line=step.instruction.line,
                    detail=f"{keyword} {_snippet(text, match)}",
                )
                installation = Installation(
                    version=version.removeprefix("v") if version else None,
                    origin=pattern.origin,
                    path=match.groupdict().get("path"),
                    cuda=_cuda(tag),
                    properties=properties,
                    evidence=[evidence],
                )
                here.append(Installed(pattern.component, installation, step, pattern.how))
        for installed in here:
            tag = cuda_of.get(installed.component)
            if tag and installed.installation.cuda is None:
                installed.installation.cuda = _cuda(tag)
                if tag == "cpu":
                    installed.installation.properties["cpu_only"] = "yes"
                elif installed.component is ComponentName.TORCH:
                    installed.installation.properties["cpu_only"] = "no"
        for flag in flag_table:
            flagged = flag.regex.search(text)
            if flagged is None:
                continue
            options = " ".join(flagged.group("flags").split())
            for installed in here:
                if installed.component is flag.component:
                    installed.installation.properties["flags"] = options
        found.extend(here)
    return found
