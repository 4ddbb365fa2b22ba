"""Reading the files a user names (a snapshot, a baseline, a config, a Dockerfile, a pasted
report, an image archive): regular files only, bounded in size, JSON bounded in depth.

A FIFO, a device or a socket where a file is expected would block or never end; it is refused
with one line that says so. Every problem here is a :class:`StackcheckError` (exit code 2).
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

from stackcheck import limits
from stackcheck.errors import StackcheckError

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_regular(mode: int) -> str | None:
    """What a file is when it is not a regular file, e.g. "a FIFO (named pipe)"."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_regular(path: str | os.PathLike[str], what: str) -> None:
    """Refuse a path that is not a regular file (following symlinks), without opening it."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise StackcheckError(f"{what} {os.fspath(path)}: {exc.strerror or exc}") from None
    kind = not_regular(mode)
    if kind is not None:
        raise StackcheckError(f"{what} {os.fspath(path)}: {kind}, not a regular file; refused")


def read_regular(
    path: str | os.PathLike[str], what: str, limit: int, *, cut: bool = False
) -> tuple[bytes, bool]:
    """The bytes of a regular file, at most ``limit``; and whether the file held more.

    Opened without blocking (a FIFO swapped in after a check cannot hang the open), then
    checked on the open handle. Past ``limit`` the file is an error unless ``cut`` is set.
    """
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise StackcheckError(f"cannot read {what} {name}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        kind = not_regular(os.fstat(fd).st_mode)
        if kind is not None:
            raise StackcheckError(f"{what} {name}: {kind}, not a regular file; refused")
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise StackcheckError(f"cannot read {what} {name}: {exc.strerror or exc}") from None
    more = len(data) > limit
    if more and not cut:
        raise StackcheckError(f"{what} {name}: larger than {limit} bytes; refused")
    return data[:limit], more


def read_stream(stream: Any, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of a binary stream (stdin), and whether it held more."""
    data: bytes = stream.read(limit + 1)
    return data[:limit], len(data) > limit


def decode_utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StackcheckError(f"{what}: not UTF-8 text (byte {exc.start})") from None


def load_json(text: str | bytes, what: str) -> Any:
    """A JSON document no deeper than ``limits.JSON_MAX_DEPTH``; anything else is refused."""
    if isinstance(text, bytes):
        text = decode_utf8(text, what)
    depth = json_depth(text)
    if depth > limits.JSON_MAX_DEPTH:
        raise StackcheckError(
            f"{what}: JSON nested {depth} levels deep (more than {limits.JSON_MAX_DEPTH}); refused"
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StackcheckError(f"{what}: not JSON ({exc.msg} at line {exc.lineno})") from None
    except (RecursionError, ValueError) as exc:
        raise StackcheckError(f"{what}: not JSON ({exc})") from None


# Unrolled and possessive: a per-character alternation would make the regex engine keep a
# frame per character of a long string (360 MB for a 3 MB value).
_STRINGS = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """The deepest bracket nesting of a JSON text, counted without parsing (strings skipped)."""
    deepest = depth = 0
    for match in _BRACKETS.finditer(_STRINGS.sub("", text)):
        depth += 1 if match.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest
