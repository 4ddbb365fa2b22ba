"""What probes will ask of a view, declared up front (as Trivy's analyzers declare their paths).

A directory answers any question at any time; an image is read as a stream, one pass per layer,
so it can only answer what it kept. Probes therefore declare which files matter by name, which
small files they read, and which binaries they look into (ELF dynamic section, byte patterns),
and an image view keeps exactly those.
"""

from __future__ import annotations

import fnmatch
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


BinaryWant = tuple[bool, tuple["Search", ...]]  # (dynamic section wanted, searches)


@dataclass
class CompiledNeeds:
    """Needs turned into fast matchers, applied to every member of every layer."""

    needs: Needs
    _names: re.Pattern[str] = field(init=False)
    _contents: re.Pattern[str] = field(init=False)
    _all_contents: re.Pattern[str] = field(init=False)
    _large: list[tuple[re.Pattern[str], int]] = field(init=False)
    _binaries: list[tuple[re.Pattern[str], BinaryNeed]] = field(init=False)

    def __post_init__(self) -> None:
        self._names = _either([*self.needs.names, *(b.name for b in self.needs.binaries)])
        self._contents = _either(self.needs.contents)
        self._all_contents = _either(
            [*self.needs.contents, *(p for p, _ in self.needs.large_contents)]
        )
        self._large = [(re.compile(fnmatch.translate(p)), n) for p, n in self.needs.large_contents]
        self._binaries = [(re.compile(fnmatch.translate(b.name)), b) for b in self.needs.binaries]

    def classify(self, path: str, name: str) -> tuple[bool, int | None, BinaryWant | None]:
        """For a regular file: whether its presence matters, how many bytes of it to keep
        (None: not read), and what to collect from it as a binary (None: nothing).

        Called for every file of every layer, so the common answer (nothing) costs two matches.
        """
        named = self._names.match(name) is not None
        limit = None
        if self._all_contents.match(path):
            limit = next((n for p, n in self._large if p.match(path)), None)
            if limit is None and self._contents.match(path):
                limit = CONTENT_LIMIT
        binary = None
        if named:
            found = [b for pattern, b in self._binaries if pattern.match(name)]
            if found:
                searches = tuple(dict.fromkeys(s for b in found for s in b.searches))
                binary = (any(b.dynamic for b in found), searches)
        return named, limit, binary

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
        import hashlib  # here: only a layer cache asks; loading OpenSSL costs a probe 0.007 s

        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
