"""A forgiving walk over YAML-shaped text (compose files, Kubernetes manifests, Helm values).

Pasted YAML is often broken: cut in the middle, mis-indented by a line, mixed with prose. A YAML
library rejects it whole; this walker reads it line by line and reports each ``key: value`` with
the keys above it, so a reader can still find ``shm_size`` under a service or
``vpc.amazonaws.com/efa`` under ``resources.limits``. Flow collections stay raw text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

_KEY = re.compile(
    r"""^("[^"]{1,200}"|'[^']{1,200}'|[\w./-][\w./ -]{0,200}?)\s{0,4}:(?:\s+(.{0,4000})|\s*$)"""
)


@dataclass(frozen=True)
class Entry:
    index: int  # position of the line in the input
    indent: int
    path: tuple[str, ...]  # keys of the mappings above
    key: str | None  # None for a bare list item or a scalar continuation line
    value: str | None  # the scalar after "key:", or the item's text
    item: bool  # the line starts a list item ("- ...")


def strip_quotes(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def walk(texts: Sequence[str]) -> Iterator[Entry]:
    stack: list[tuple[int, str]] = []
    for index, raw in enumerate(texts):
        body = raw.strip()
        if not body or body.startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        item = body == "-" or body.startswith("- ")
        if item:
            while stack and stack[-1][0] > indent:
                stack.pop()
            body = body[1:].strip()
            indent += 2  # an item's own keys sit after "- "
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = tuple(key for _, key in stack)
        found = _KEY.match(body)
        if found is None:
            yield Entry(index, indent, path, None, body or None, item)
            continue
        key, value = strip_quotes(found.group(1)), (found.group(2) or "").strip()
        if value.startswith("#"):
            value = ""  # `deploy: # a comment`: a mapping follows
        yield Entry(index, indent, path, key, value or None, item)
        if not value or value in ("|", ">", "|-", ">-"):
            stack.append((indent, key))


def flow_list(value: str) -> list[str]:
    """``['0', '1']`` or ``[gpu]`` or ``"a b"`` as a list of plain strings."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        return [strip_quotes(v) for v in value[1:-1].split(",") if v.strip()]
    return [strip_quotes(value)] if value else []
