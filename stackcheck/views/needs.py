"""What probes will ask of a view, declared up front (as Trivy's analyzers declare their paths).

A directory answers any question at any time; an image is read as a stream, one pass per layer,
so it can only answer what it kept. Probes therefore declare which files matter by name, which
small files they read, and which binaries they look into (ELF dynamic section, byte patterns),
and an image view keeps exactly those.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

CONTENT_LIMIT = 1 << 20  # the default bound of a kept file, as FileView.read_bytes
_ANY = re.compile(r"(?!)")  # matches nothing


@dataclass(frozen=True)
class Search:
    """A byte pattern a probe searches for in a binary.

    ``anchors`` are literals every match contains; when given, only the bytes around them are
    run through the regular expression, which keeps a pass over a large library cheap.
    """

    pattern: re.Pattern[bytes]
    anchors: tuple[bytes, ...] = ()


@dataclass(frozen=True)
class BinaryNeed:
    """Files named like ``name`` (a shell pattern) whose ELF facts a probe reads."""

    name: str
    dynamic: bool = False  # DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH
    searches: tuple[Search, ...] = ()


@dataclass(frozen=True)
class Needs:
    names: tuple[str, ...] = ()  # file names (shell patterns) whose presence matters
    contents: tuple[str, ...] = ()  # paths (shell patterns, `*` spans `/`) read as text
    binaries: tuple[BinaryNeed, ...] = ()
    large_contents: tuple[tuple[str, int], ...] = ()  # (path pattern, limit) above the default

    def __or__(self, other: Needs) -> Needs:
        return Needs(
            names=self.names + other.names,
            contents=self.contents + other.contents,
            binaries=self.binaries + other.binaries,
            large_contents=self.large_contents + other.large_contents,
        )

    @staticmethod
    def union(parts: Iterable[Needs]) -> Needs:
        result = Needs()
        for part in parts:
            result = result | part
        return result


def _either(patterns: Iterable[str]) -> re.Pattern[str]:
    translated = [fnmatch.translate(p) for p in dict.fromkeys(patterns)]
    return re.compile("|".join(translated)) if translated else _ANY


@dataclass
class CompiledNeeds:
    """Needs turned into fast matchers, applied to every member of every layer."""

    needs: Needs
    _names: re.Pattern[str] = field(init=False)
    _contents: re.Pattern[str] = field(init=False)
    _large: list[tuple[re.Pattern[str], int]] = field(init=False)
    _binaries: list[tuple[re.Pattern[str], BinaryNeed]] = field(init=False)

    def __post_init__(self) -> None:
        self._names = _either([*self.needs.names, *(b.name for b in self.needs.binaries)])
        self._contents = _either(self.needs.contents)
        self._large = [(re.compile(fnmatch.translate(p)), n) for p, n in self.needs.large_contents]
        self._binaries = [(re.compile(fnmatch.translate(b.name)), b) for b in self.needs.binaries]

    def named(self, name: str) -> bool:
        return self._names.match(name) is not None

    def content_limit(self, path: str) -> int | None:
        """How many bytes of ``path`` to keep, or None when no probe reads it."""
        for pattern, limit in self._large:
            if pattern.match(path):
                return limit
        return CONTENT_LIMIT if self._contents.match(path) else None

    def binary(self, name: str) -> tuple[bool, tuple[Search, ...]] | None:
        """(dynamic section wanted, searches) for a file name, or None."""
        found = [b for pattern, b in self._binaries if pattern.match(name)]
        if not found:
            return None
        searches = tuple(dict.fromkeys(s for b in found for s in b.searches))
        return any(b.dynamic for b in found), searches

    def fingerprint(self) -> str:
        """Changes whenever what is kept would change: part of the layer cache's key."""
        parts = [
            repr(sorted(set(self.needs.names))),
            repr(sorted(set(self.needs.contents))),
            repr(sorted(set(self.needs.large_contents))),
            repr(
                sorted(
                    (b.name, b.dynamic, [(s.pattern.pattern, s.anchors) for s in b.searches])
                    for b in self.needs.binaries
                )
            ),
        ]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
