"""Messages that mean the same thing wherever they are pasted: in a traceback, a log, a quote
inside prose. The messages are data (``messages.toml``: pattern, who prints it, what it means,
the facts it implies, a real example and where it was posted); this module only turns a match
into facts.

Patterns are bounded (no nested repetition) so a pathological line costs linear time.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, cast, get_args

from stackcheck import versions
from stackcheck.errors import StackcheckError
from stackcheck.ingest.facts import (
    REPORTED_ENV,
    ComponentFact,
    Fact,
    GpuFact,
    InstanceFact,
    ObservationFact,
    RuntimeFact,
    toolkit_fact,
)
from stackcheck.ingest.hardware import GpuHealthFact, XidFact
from stackcheck.ingest.lines import WRAP_MIN, Line, hard_wrapped, joined_line
from stackcheck.snapshot.hardware import GpuHealth, normalise_bus_id
from stackcheck.snapshot.model import ComponentName, ObservationKind

if sys.version_info >= (3, 11):
    import re._constants as _sre
    import re._parser as _sre_parse

    import tomllib
else:  # pragma: no cover - Python 3.10
    import sre_constants as _sre
    import sre_parse as _sre_parse

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
        "memlock-bytes",
        "xid",
        "shm-gib",
        "mig-mode",
        "torch-cpu",
        "persistence-mode",
        "efa-installer",
        "torch-build",
    }
)


@dataclass(frozen=True)
class Signature:
    """One message of the catalogue. Its expressions are compiled the first time a line holds
    one of its literal words: most texts give most messages no occasion, and compiling all of
    them cost a tenth of a second of every run."""

    id: str
    source: str
    meaning: str
    expression: str
    facts: tuple[dict[str, str], ...]
    example: str
    example_url: str
    flags: int = 0
    requires_expression: str | None = None
    excludes_expression: str | None = None
    # Literal strings of which every match contains one: a line without any is skipped without
    # running the expression (a 5 MB log is mostly lines no message matches).
    needles: tuple[str, ...] = ()
    blind: bool = False  # case-blind: needles are lowered and looked for in the lowered line

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.expression, self.flags)

    @cached_property
    def requires(self) -> re.Pattern[str] | None:
        expression = self.requires_expression
        return None if expression is None else re.compile(expression, self.flags)

    @cached_property
    def excludes(self) -> re.Pattern[str] | None:
        expression = self.excludes_expression
        return None if expression is None else re.compile(expression, self.flags)

    def could_match(self, text: str, lowered: str) -> bool:
        haystack = lowered if self.blind else text
        return any(needle in haystack for needle in self.needles)

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
        return ComponentFact(line, ComponentName.CUDNN, version=value, properties={"loaded": "yes"})
    if kind == "toolkit":
        return toolkit_fact(line, value)
    if kind == "nccl-loaded":
        return ObservationFact(line, "nccl-loaded", value)
    if kind == "instance":
        return InstanceFact(line, value.lower())
    if kind == "peermem":
        return RuntimeFact(line, "peermem_loaded", False)
    if kind == "xid":
        # `code`: the Xid (stated, or the one the message means: fallen off the bus is 79)
        code = int(_fill(spec["code"], groups))
        return XidFact(line, code, _fill(spec.get("bus", ""), groups), line.text.strip()[:200])
    if kind == "shm-gib":
        return RuntimeFact(line, "shm_bytes", int(value) << 30)
    if kind == "mig-mode":
        # `bus`: the GPU's PCI address; `value`: "Enabled" or "Disabled", as nvidia-smi says it
        bus = _fill(spec["bus"], groups)
        health = GpuHealth(bus_id=normalise_bus_id(bus), mig_mode=value.lower() == "enabled")
        return GpuHealthFact(line, health, [line])
    if kind == "memlock-kb":
        # a limit stated in KiB, as ulimit -l and UCX print it
        return RuntimeFact(line, "memlock_bytes", int(value) << 10)
    if kind == "memlock-bytes":
        # a limit stated in bytes, as /proc/PID/limits and getrlimit print it
        return RuntimeFact(line, "memlock_bytes", int(value))
    if kind == "persistence-mode":
        # `bus`: the GPU's PCI address; `value`: "Enabled" or "Disabled"
        bus = _fill(spec["bus"], groups)
        on = value.lower() == "enabled"
        health = GpuHealth(bus_id=normalise_bus_id(bus), persistence_mode=on)
        return GpuHealthFact(line, health, [line])
    if kind == "torch-cpu":
        # a PyTorch release known to be a CPU build by where it came from (`value`: its version)
        # (no version where the text names the build only: `torch.version.cuda` is None)
        torch = ComponentFact(
            line, ComponentName.TORCH, version=value or None, python_env=REPORTED_ENV
        )
        torch.properties["cpu_only"] = "yes"
        return torch
    if kind == "torch-build":
        # a PyTorch wheel's version with its build tag (`value`: "2.8.0+cu128"); imported here
        # because the formats package imports this module
        from stackcheck.ingest.formats.python_packages import torch_fact

        return torch_fact(line, value)
    if kind == "efa-installer":
        return ComponentFact(line, ComponentName.EFA_INSTALLER, version=value)
    raise AssertionError(f"fact kind {kind!r} is in _FACT_KINDS but has no reading here")


MIN_NEEDLE = 3


def _needles(items: Any) -> set[str] | None:
    """Literal strings one of which every match of the parsed sequence ``items`` contains;
    None when no such set is known (the catalogue refuses such a message)."""
    candidates: list[set[str]] = []
    run = ""
    for op, av in items:
        if op is _sre.LITERAL:
            run += chr(av)
            continue
        if len(run) >= MIN_NEEDLE:
            candidates.append({run})
        run = ""
        if op is _sre.SUBPATTERN:
            # A group with its own (?i:...) matches in any case: its exact-case words are no
            # screen (the line would be skipped on a case the expression accepts).
            inner = None if av[1] & re.IGNORECASE else _needles(av[-1])
            if inner is not None:
                candidates.append(inner)
        elif op is _sre.BRANCH:
            branches = [_needles(branch) for branch in av[1]]
            if all(b is not None for b in branches):
                candidates.append(set().union(*(b for b in branches if b is not None)))
    if len(run) >= MIN_NEEDLE:
        candidates.append({run})
    if not candidates:
        return None
    return max(candidates, key=lambda c: min(len(n) for n in c))


def needles_of(expression: str, flags: int = 0) -> tuple[str, ...]:
    """The literal strings of which every match of ``expression`` holds one (none found: the
    catalogue refuses the message)."""
    found = _needles(_sre_parse.parse(expression, flags))
    if found is None:
        return ()
    if flags & re.IGNORECASE:
        found = {n.lower() for n in found}
    return tuple(sorted(found))


@cache
def _catalogue_data() -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads(CATALOGUE.read_text(encoding="utf-8"))
    return data


def _excludes(entry: dict[str, Any], where: str) -> str | None:
    """The entry's `excludes`, after the shared exclusion its `excludes_kind` names (defined
    once in the catalogue's `[exclusions]`): a line either cancels the match."""
    own: str | None = entry.get("excludes")
    kind = entry.get("excludes_kind")
    if kind is None:
        return own
    shared: str | None = _catalogue_data().get("exclusions", {}).get(kind)
    if shared is None:
        raise StackcheckError(f"{CATALOGUE.name}: {where}: unknown excludes_kind {kind!r}")
    return shared if own is None else f"{shared}|{own}"


def _signature(entry: dict[str, Any]) -> Signature:
    where = entry.get("id", "?")
    for spec in entry["facts"]:
        if spec["kind"] not in _FACT_KINDS:
            raise StackcheckError(f"{CATALOGUE.name}: {where}: unknown fact kind {spec['kind']!r}")
        if spec["kind"] == "observation" and spec["observe"] not in _KINDS:
            raise StackcheckError(
                f"{CATALOGUE.name}: {where}: unknown observation {spec['observe']}"
            )
    flags = re.IGNORECASE if "i" in entry.get("flags", "") else 0
    needles = needles_of(entry["pattern"], flags)
    if not needles:
        # Without a literal word to screen lines by, a message would run on every line of every
        # log (one such entry cost a 5 MB NCCL log 0.4 s).
        raise StackcheckError(
            f"{CATALOGUE.name}: {where}: the pattern has no literal word every match holds; "
            "spell its alternatives out so each holds one"
        )
    return Signature(
        id=entry["id"],
        source=entry["source"],
        meaning=entry["meaning"],
        expression=entry["pattern"],
        facts=tuple(entry["facts"]),
        example=entry["example"],
        example_url=entry["example_url"],
        flags=flags,
        requires_expression=entry.get("requires"),
        excludes_expression=_excludes(entry, where),
        needles=needles,
        blind=bool(flags & re.IGNORECASE),
    )


@cache
def catalogue() -> tuple[Signature, ...]:
    """The message catalogue, read once."""
    return tuple(_signature(entry) for entry in _catalogue_data()["message"])


# Screening works on text with every digit made 0: a needle found in a line is then found in the
# line's screened form too, and the log lines of different ranks, channels and hosts mostly
# screen to the same text, so one answer serves thousands of lines.
_DIGITS = str.maketrans("123456789", "000000000")
_DIGIT_BYTES = bytes.maketrans(b"123456789", b"000000000")
_SCREENED_MAX = 1 << 16  # remembered screen answers; the memo is emptied when it is full
_screened: dict[str, tuple[Signature, ...]] = {}


def _screened_needles(needles: tuple[str, ...]) -> tuple[str, ...]:
    """Needles with every digit made 0, as the screened line has them: a needle in a line is in
    its screened form too, so a number in a needle (``-61``) screens as well as a word."""
    return tuple(needle.translate(_DIGITS) for needle in needles)


@dataclass(frozen=True)
class _Screen:
    """The catalogue's needles indexed by their first MIN_NEEDLE characters: a line is screened by
    looking up each of its short windows, so the cost follows the line's length, not the number
    of messages (a log of lines that never repeat meets every line once)."""

    signatures: tuple[Signature, ...]
    exact: dict[str, tuple[tuple[str, int], ...]]  # window -> (needle, signature) as written
    blind: dict[str, tuple[tuple[str, int], ...]]  # the same for case-blind needles, lowered

    def candidates(self, key: str) -> tuple[Signature, ...]:
        found: set[int] = set()
        for text, index in ((key, self.exact), (key.lower(), self.blind)):
            windows = {text[at : at + MIN_NEEDLE] for at in range(len(text) - MIN_NEEDLE + 1)}
            for window in windows & index.keys():
                found.update(number for needle, number in index[window] if needle in text)
        return tuple(self.signatures[number] for number in sorted(found))


@cache
def _screen() -> _Screen:
    """Each signature's screened needles (lowered for case-blind signatures), indexed."""
    signatures = catalogue()
    exact: dict[str, list[tuple[str, int]]] = {}
    blind: dict[str, list[tuple[str, int]]] = {}
    for number, signature in enumerate(signatures):
        index = blind if signature.blind else exact
        for needle in _screened_needles(signature.needles):
            index.setdefault(needle[:MIN_NEEDLE], []).append((needle, number))
    return _Screen(
        signatures,
        {window: tuple(pairs) for window, pairs in exact.items()},
        {window: tuple(pairs) for window, pairs in blind.items()},
    )


def _candidates(text: str) -> tuple[Signature, ...]:
    """The signatures that could match ``text``: those one of whose screened needles is in it.
    Remembered per screened line shape."""
    # Every digit made 0; on bytes ten times faster than ``str.translate``, and the same: UTF-8
    # encodes the ASCII digits as themselves and never uses their bytes inside another character.
    key = (
        text.encode("utf-8", "surrogatepass")
        .translate(_DIGIT_BYTES)
        .decode("utf-8", "surrogatepass")
    )
    known = _screened.get(key)
    if known is not None:
        return known
    found = _screen().candidates(key)
    if len(_screened) >= _SCREENED_MAX:
        _screened.clear()
    _screened[key] = found
    return found


def _found(text: str) -> list[tuple[Signature, re.Match[str]]]:
    """Each signature found in ``text``, with its match."""
    found_all: list[tuple[Signature, re.Match[str]]] = []
    candidates = _candidates(text)
    if not candidates:
        return found_all  # most lines of a log: no need to lower them
    lowered = text.lower()
    for signature in candidates:
        if not signature.could_match(text, lowered):
            continue
        found = signature.match(text)
        if found is not None:
            found_all.append((signature, found))
    return found_all


def matches(line: Line) -> list[tuple[Signature, list[Fact]]]:
    """Each signature found on ``line``, with the facts it states there."""
    return [(s, s.facts_for(line, found)) for s, found in _found(line.text)]


def line_facts(line: Line) -> list[Fact]:
    return [fact for _, facts in matches(line) for fact in facts]


WRAP_WINDOW = 3  # a browser or a mail client wraps a quoted message over two or three lines


def paragraph_facts(lines: Sequence[Line]) -> list[Fact]:
    """Messages in a paragraph whose lines a browser or an editor wrapped: each line is
    searched, then joined with the next one and two (a space between, none after a line a
    terminal cut at a fixed width: ``hard_wrapped``); a match that starts in
    the line and runs on into the last joined one is the message as it was printed, and takes
    the place of what the line alone matched from the same place (an arch list cut short by
    the wrap). A match that the last line holds whole by itself is that line's (a lazy group
    reaching back over a ``UserWarning:`` line adds nothing). The facts carry the first line's
    number."""
    own = [_found(line.text) for line in lines]
    ends = [{(sig.id, found.end()) for sig, found in matched} for matched in own]
    hard = hard_wrapped(lines)
    facts: list[Fact] = []
    for start, line in enumerate(lines):
        best: dict[tuple[str, int], tuple[Signature, Line, re.Match[str]]] = {
            (sig.id, found.start()): (sig, line, found) for sig, found in own[start]
        }
        chains = [line]
        spaced: set[tuple[str, int]] = set()
        for last, tail in enumerate(lines[start + 1 : start + WRAP_WINDOW], start=start + 1):
            # After a line cut at a fixed width the word may go on without a space, or the cut
            # may have fallen on a space: both joins are tried.
            seps = (" ", "") if last - 1 in hard else (" ",)
            grown: list[Line] = []
            for chain, sep in ((c, s) for c in chains for s in seps):
                tail_at = len(chain.text.rstrip()) + len(sep)
                joined = joined_line(chain, tail, sep)
                grown.append(joined)
                for sig, found in _found(joined.text):
                    whole_in_tail = (sig.id, found.end() - tail_at + _lead(tail.text)) in ends[last]
                    if found.start() >= tail_at:
                        # A message the next line holds whole, whose required words stand on
                        # this line ("[EFA] Upgrade EFA ... to address issue on" / "Rocky9."):
                        # the wrapped sentence's, read once, from the pair.
                        if (
                            last == start + 1
                            and sig.requires is not None
                            and not whole_in_tail
                            and _wrapped_onto(line, tail)
                        ):
                            best[(sig.id, found.start())] = (sig, joined, found)
                        continue
                    if (
                        found.start() < len(line.text)
                        and found.end() > tail_at
                        and not whole_in_tail
                    ):
                        key = (sig.id, found.start())
                        if sep or key not in spaced:  # the space join wins where both match
                            best[key] = (sig, joined, found)
                            spaced.update([key] if sep else [])
            chains = grown
        for sig, where, found in best.values():
            if where is line and _cut_by_wrap(lines, start, sig, found):
                continue
            facts.extend(sig.facts_for(where, found))
    return facts


_CONTINUES = re.compile(r"^\s*[a-z0-9(]")  # the sentence goes on: no capital


def _wrapped_onto(line: Line, tail: Line) -> bool:
    """Whether ``tail`` may go on with ``line``'s sentence after a wrap: a long line, then one
    that is no new list item or heading and not indented deeper (a tool's own next line)."""
    return (
        len(line.text.rstrip()) >= WRAP_MIN
        and _NEW_ITEM.match(tail.text) is None
        and _lead(tail.text) <= _lead(line.text)
    )


_NEW_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|\d{1,3}[.)]|#{1,6})\s")


def _cut_by_wrap(lines: Sequence[Line], start: int, sig: Signature, found: re.Match[str]) -> bool:
    """Whether a line's own match is a message cut by a wrap: it runs to the end of a long line,
    the next line goes on with the sentence (no capital, no blank), and joined with it the message
    no longer matches from the same place ('CUDA error: invalid' + 'device ordinal Any idea
    why?': a name read only up to the cut)."""
    line = lines[start]
    text = line.text.rstrip()
    if found.end() < len(text) or len(text) < WRAP_MIN or start + 1 >= len(lines):
        return False
    tail = lines[start + 1]
    # (a line indented deeper is the tool's own next line: ggml's "  current device: 0, ...")
    if tail.blank or _CONTINUES.match(tail.text) is None or _lead(tail.text) > _lead(line.text):
        return False
    joined = joined_line(line, tail, " ")
    return not any(
        other.id == sig.id and again.start() == found.start()
        for other, again in _found(joined.text)
    )


def _lead(text: str) -> int:
    return len(text) - len(text.lstrip())
