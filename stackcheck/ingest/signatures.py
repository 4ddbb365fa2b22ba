"""Messages that mean the same thing wherever they are pasted: in a traceback, a log, a quote
inside prose. The messages are data (``messages.toml``: pattern, who prints it, what it means,
the facts it implies, a real example and where it was posted); this module only turns a match
into facts.

Patterns are bounded (no nested repetition) so a pathological line costs linear time.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, cast, get_args

from stackcheck import versions
from stackcheck.errors import StackcheckError
from stackcheck.ingest.facts import (
    ComponentFact,
    Fact,
    GpuFact,
    InstanceFact,
    ObservationFact,
    RuntimeFact,
    toolkit_fact,
)
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName, ObservationKind

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CATALOGUE = Path(__file__).with_name("messages.toml")
_KINDS = frozenset(get_args(ObservationKind))
_FACT_KINDS = frozenset(
    {
        "observation",
        "driver-cuda",
        "gpu",
        "torch-archs",
        "cudnn-loaded",
        "toolkit",
        "nccl-loaded",
        "instance",
        "peermem",
        "memlock-kb",
    }
)


@dataclass(frozen=True)
class Signature:
    """One message of the catalogue."""

    id: str
    source: str
    meaning: str
    pattern: re.Pattern[str]
    facts: tuple[dict[str, str], ...]
    example: str
    example_url: str
    requires: re.Pattern[str] | None = None
    excludes: re.Pattern[str] | None = None

    def match(self, text: str) -> re.Match[str] | None:
        found = self.pattern.search(text)
        if found is None:
            return None
        if self.requires is not None and self.requires.search(text) is None:
            return None
        if self.excludes is not None and self.excludes.search(text) is not None:
            return None
        return found

    def facts_for(self, line: Line, found: re.Match[str]) -> list[Fact]:
        groups = [found.group(0), *(g or "" for g in found.groups())]
        return [_fact(line, spec, groups) for spec in self.facts]


def _fill(template: str, groups: list[str]) -> str:
    return template.format(*groups).strip()


def _gpu_name(raw: str) -> str:
    """The GPU's name without what precedes it on the line (``UserWarning:``, a log prefix)."""
    return re.sub(r"^.{0,80}?(?:UserWarning:|Warning:)\s*", "", raw).strip()


def _fact(line: Line, spec: dict[str, str], groups: list[str]) -> Fact:
    kind = spec["kind"]
    value = _fill(spec.get("value", ""), groups)
    if kind == "observation":
        observe = cast(ObservationKind, spec["observe"])
        return ObservationFact(line, observe, value or None)
    if kind == "driver-cuda":
        return ComponentFact(line, ComponentName.DRIVER, cuda=versions.cuda_from_int(int(value)))
    if kind == "gpu":
        sm = _fill(spec["sm"], groups)
        cc = f"{sm[:-1]}.{sm[-1]}"
        return GpuFact(line, _gpu_name(_fill(spec["name"], groups)), compute_capability=cc)
    if kind == "torch-archs":
        return ComponentFact(line, ComponentName.TORCH, archs=value.split())
    if kind == "cudnn-loaded":
        return ComponentFact(
            line, ComponentName.CUDNN, version=value, properties={"loaded": "yes"}
        )
    if kind == "toolkit":
        return toolkit_fact(line, value)
    if kind == "nccl-loaded":
        return ObservationFact(line, "nccl-loaded", value)
    if kind == "instance":
        return InstanceFact(line, value.lower())
    if kind == "peermem":
        return RuntimeFact(line, "peermem_loaded", False)
    # memlock-kb: a limit stated in KiB, as ulimit -l and UCX print it
    return RuntimeFact(line, "memlock_bytes", int(value) << 10)


def _compile(pattern: str, flags: str = "") -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE if "i" in flags else 0)


def _signature(entry: dict[str, Any]) -> Signature:
    where = entry.get("id", "?")
    for spec in entry["facts"]:
        if spec["kind"] not in _FACT_KINDS:
            raise StackcheckError(f"{CATALOGUE.name}: {where}: unknown fact kind {spec['kind']!r}")
        if spec["kind"] == "observation" and spec["observe"] not in _KINDS:
            raise StackcheckError(f"{CATALOGUE.name}: {where}: unknown observation {spec['observe']}")
    flags = entry.get("flags", "")
    return Signature(
        id=entry["id"],
        source=entry["source"],
        meaning=entry["meaning"],
        pattern=_compile(entry["pattern"], flags),
        facts=tuple(entry["facts"]),
        example=entry["example"],
        example_url=entry["example_url"],
        requires=_compile(entry["requires"], flags) if "requires" in entry else None,
        excludes=_compile(entry["excludes"], flags) if "excludes" in entry else None,
    )


@cache
def catalogue() -> tuple[Signature, ...]:
    """The message catalogue, read once."""
    data = tomllib.loads(CATALOGUE.read_text(encoding="utf-8"))
    return tuple(_signature(entry) for entry in data["message"])


def matches(line: Line) -> list[tuple[Signature, list[Fact]]]:
    """Each signature found on ``line``, with the facts it states there."""
    found_all: list[tuple[Signature, list[Fact]]] = []
    for signature in catalogue():
        found = signature.match(line.text)
        if found is not None:
            found_all.append((signature, signature.facts_for(line, found)))
    return found_all


def line_facts(line: Line) -> list[Fact]:
    return [fact for _, facts in matches(line) for fact in facts]
