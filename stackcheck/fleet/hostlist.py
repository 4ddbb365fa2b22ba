"""Slurm hostlists: ``node[01-03,07],login1`` to names and back.

Reports name many nodes at once; a finding on 63 of 64 nodes prints as ``node[01-16,18-64]``,
the form Slurm users paste into ``scontrol`` and ``srun --nodelist``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck.errors import StackcheckError

_NUMBERED = re.compile(r"^(.*?)(\d+)$")
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def _split_top_level(text: str) -> list[str]:
    """Split on commas that are not inside brackets."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth < 0:
                raise StackcheckError(f"hostlist {text!r}: unbalanced ']'")
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    if depth:
        raise StackcheckError(f"hostlist {text!r}: unbalanced '['")
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _expand_one(pattern: str, whole: str) -> list[str]:
    opening = pattern.find("[")
    if opening < 0:
        return [pattern]
    closing = pattern.index("]", opening)
    prefix, body, rest = pattern[:opening], pattern[opening + 1 : closing], pattern[closing + 1 :]
    tails = _expand_one(rest, whole)
    names: list[str] = []
    for item in body.split(","):
        match = _RANGE.match(item.strip())
        if match is None:
            raise StackcheckError(f"hostlist {whole!r}: {item!r} is not a number or a range")
        first, last = match.group(1), match.group(2) or match.group(1)
        width = len(first) if first.startswith("0") else 0
        if int(last) < int(first):
            raise StackcheckError(f"hostlist {whole!r}: range {item!r} runs backwards")
        names.extend(
            f"{prefix}{str(n).zfill(width)}{tail}"
            for n in range(int(first), int(last) + 1)
            for tail in tails
        )
    return names


def expand(hostlist: str) -> list[str]:
    """Every name in a hostlist, in order, without repeats."""
    names: dict[str, None] = {}
    for part in _split_top_level(hostlist):
        names.update(dict.fromkeys(_expand_one(part, hostlist)))
    return list(names)


def _ranges(numbers: list[int], width: int) -> str:
    spans: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        first, last = str(start).zfill(width), str(previous).zfill(width)
        spans.append(first if start == previous else f"{first}-{last}")
        if number is not None:
            start = previous = number
    return ",".join(spans)


def compress(names: Iterable[str]) -> str:
    """The shortest usual hostlist for ``names``: ``node[01-03,07],login1``.

    Names that end in a number are grouped by prefix and zero-padding; others are listed as
    they are. Groups come out sorted by prefix, numbers in ascending order.
    """
    groups: dict[tuple[str, int], set[int]] = {}
    plain: set[str] = set()
    unpadded: list[tuple[str, str]] = []
    for name in names:
        match = _NUMBERED.match(name)
        if match is None:
            plain.add(name)
            continue
        prefix, digits = match.groups()
        if digits.startswith("0") and len(digits) > 1:
            groups.setdefault((prefix, len(digits)), set()).add(int(digits))
        else:
            unpadded.append((prefix, digits))
    for prefix, digits in unpadded:
        # "node10" joins "node01".."node09" when they share the width; else it is unpadded.
        width = len(digits) if (prefix, len(digits)) in groups else 0
        groups.setdefault((prefix, width), set()).add(int(digits))
    parts = [(name, name) for name in plain]
    for (prefix, width), numbers in groups.items():
        ordered = sorted(numbers)
        if len(ordered) == 1:
            text = f"{prefix}{str(ordered[0]).zfill(width)}"
        else:
            text = f"{prefix}[{_ranges(ordered, width)}]"
        parts.append((f"{prefix}{str(ordered[0]).zfill(max(width, 12))}", text))
    return ",".join(text for _, text in sorted(parts))
