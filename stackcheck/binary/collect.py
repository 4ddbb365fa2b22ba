"""ELF facts gathered in one sequential pass, for files that are streamed and never stored.

A shared object's structures can lie anywhere: the program headers follow the ELF header, but
``.dynstr`` may come before or after ``.dynamic`` (patchelf moves it past ``.rodata``), and the
section headers that name ``.rodata`` sit at the very end. So, while the bytes go by once:

- the ELF header, the program headers, the dynamic segment and the section header table are
  kept exactly (their offsets are known from the bytes before them);
- strings that can be the value of DT_NEEDED, DT_SONAME, DT_RPATH/DT_RUNPATH (``*.so*``,
  library directories, ``$ORIGIN``) or the name ``.rodata`` are kept with their offsets, so
  that ``.dynstr`` and ``.shstrtab`` can be read later wherever they were;
- every match of the patterns probes asked for is kept with its offset and a little context,
  so a search "in .rodata" is answered once the section headers have said where .rodata is.

:class:`SparseFile` then serves :func:`stackcheck.binary.elf.read_dynamic` and
:func:`stackcheck.binary.elf.section_range` from what was kept, unchanged.
"""

from __future__ import annotations

import base64
import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from stackcheck.binary import elf
from stackcheck.views.needs import Search

_CARRY = 4096  # bytes re-examined with the next chunk, so nothing is cut at a boundary
_REACH = 1024  # how far a match may extend from its anchor; also the longest kept string
_CONTEXT = 64  # bytes kept around a match, for look-behind and look-ahead
_MAX_STRINGS = 200_000
_MAX_MATCHES = 256
_MAX_RANGE = 1 << 20
# Literals inside every string worth keeping: library names, $ORIGIN, and the library
# directories RPATH/RUNPATH name ("/usr/lib64", "/opt/amazon/efa/lib"). A path without "lib"
# is missed; the dynamic section then reads as incomplete ("unknown"), never as wrong.
_STRING_ANCHORS = (b".so", b"ORIGIN", b"/lib")
SEARCHED_SECTION = ".rodata"  # the one section name kept for searches (FileView.search default)
_SECTION_ANCHOR = b"\x00" + SEARCHED_SECTION.encode() + b"\x00"
_PRINTABLE = re.compile(rb"[\x21-\x7e]+")


@dataclass
class Match:
    offset: int  # where the match starts in the file
    context_offset: int
    context: bytes


@dataclass
class BinaryFacts:
    size: int
    ranges: list[tuple[int, bytes]] = field(default_factory=list)
    strings: dict[int, bytes] = field(default_factory=dict)
    matches: dict[bytes, list[Match]] = field(default_factory=dict)  # pattern source -> matches
    complete: bool = True  # False when a limit stopped collection

    def to_json(self) -> dict[str, Any]:
        def b64(data: bytes) -> str:
            return base64.b64encode(data).decode()

        return {
            "size": self.size,
            "ranges": [[o, b64(d)] for o, d in self.ranges],
            "strings": [[o, b64(s)] for o, s in sorted(self.strings.items())],
            "matches": [
                [b64(p), [[m.offset, m.context_offset, b64(m.context)] for m in ms]]
                for p, ms in self.matches.items()
            ],
            "complete": self.complete,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BinaryFacts:
        def unb64(text: str) -> bytes:
            return base64.b64decode(text)

        return cls(
            size=int(data["size"]),
            ranges=[(int(o), unb64(d)) for o, d in data["ranges"]],
            strings={int(o): unb64(s) for o, s in data["strings"]},
            matches={
                unb64(p): [Match(int(a), int(b), unb64(c)) for a, b, c in ms]
                for p, ms in data["matches"]
            },
            complete=bool(data["complete"]),
        )


class SparseFile:
    """``read_at`` over the kept parts of a file: exact ranges first, then kept strings."""

    def __init__(self, facts: BinaryFacts) -> None:
        self.facts = facts
        self._starts = sorted(facts.strings)

    def read_at(self, offset: int, size: int) -> bytes:
        for start, data in self.facts.ranges:
            if start <= offset < start + len(data):
                return data[offset - start : offset - start + size]
        at = bisect.bisect_right(self._starts, offset) - 1
        if at >= 0:
            start = self._starts[at]
            text = self.facts.strings[start]
            if offset <= start + len(text):
                return (text[offset - start :] + b"\x00")[:size]
        return b""

    def search(
        self, pattern: re.Pattern[bytes], bounds: tuple[int, int] | None
    ) -> re.Match[bytes] | None:
        """The first kept match of ``pattern`` inside ``bounds`` (offset, size), if any."""
        for match in self.facts.matches.get(pattern.pattern, []):
            if bounds is not None and not bounds[0] <= match.offset < bounds[0] + bounds[1]:
                continue
            found = pattern.search(match.context, match.offset - match.context_offset)
            if found is not None:
                return found
        return None


class BinaryCollector:
    """Fed a file's bytes in order, keeps what :class:`SparseFile` needs to answer later."""

    def __init__(self, size: int, dynamic: bool, searches: tuple[Search, ...]) -> None:
        self.facts = BinaryFacts(size=size)
        self.dynamic = dynamic
        self.searches = searches
        self._wanted: list[tuple[int, int, str]] = [(0, 64, "header")]
        self._partial: dict[tuple[int, int, str], bytearray] = {}
        self._position = 0
        self._carry = b""
        self._is_elf = False
        self._header: elf.Header | None = None
        for search in searches:
            self.facts.matches[search.pattern.pattern] = []

    # -- exact ranges ---------------------------------------------------------------------------
    def _capture(self, offset: int, chunk: bytes) -> None:
        end = offset + len(chunk)
        progress = True
        while progress:
            progress = False
            for wanted in list(self._wanted):
                start, stop, what = wanted
                if stop <= offset or start >= end:
                    continue
                buffer = self._partial.setdefault(wanted, bytearray())
                if start + len(buffer) < offset:  # began before we knew to keep it
                    self._wanted.remove(wanted)
                    self.facts.complete = False
                    continue
                lo = start + len(buffer)
                buffer += chunk[lo - offset : min(stop, end) - offset]
                if start + len(buffer) == stop:
                    self._wanted.remove(wanted)
                    data = bytes(self._partial.pop(wanted))
                    self.facts.ranges.append((start, data))
                    progress = self._completed(what, data) or progress

    def _want(self, start: int, size: int, what: str) -> bool:
        if size <= 0 or size > _MAX_RANGE:
            return False
        self._wanted.append((start, start + size, what))
        return True

    def _completed(self, what: str, data: bytes) -> bool:
        """A range is complete; returns whether it asked for more ranges."""
        if what == "header":
            try:
                header = elf.parse_header(data)
            except elf.ElfError:
                return False
            self._is_elf = True
            self._header = header
            more = self._want(header.phoff, header.phentsize * header.phnum, "segments")
            if self.searches:
                more = self._want(header.shoff, header.shentsize * header.shnum, "sections") or more
            return more
        if what == "segments" and self.dynamic and self._header is not None:
            try:
                segments = elf.parse_segments(data, self._header)
            except elf.ElfError:
                return False
            dynamic = next((s for s in segments if s[0] == elf.PT_DYNAMIC), None)
            if dynamic is not None:
                return self._want(dynamic[1], min(dynamic[3], _MAX_RANGE), "dynamic")
        return False

    # -- strings and matches ----------------------------------------------------------------------
    def feed(self, chunk: bytes) -> None:
        offset = self._position
        self._position += len(chunk)
        if self._wanted:
            self._capture(offset, chunk)
        self._scan(self._carry + chunk, offset - len(self._carry), final=False)

    def finish(self) -> BinaryFacts:
        self._scan(self._carry, self._position - len(self._carry), final=True)
        self._carry = b""
        if self._wanted:
            self.facts.complete = False
        return self.facts

    def _scan(self, window: bytes, base: int, final: bool) -> None:
        limit = len(window) if final else len(window) - _CARRY
        if limit > 0:
            if self._is_elf and (self.dynamic or self.searches):
                self._strings(window, base, limit)
            for search in self.searches:
                self._matches(search, window, base, limit)
        self._carry = window[max(limit, 0) :] if not final else b""

    def _strings(self, window: bytes, base: int, limit: int) -> None:
        anchors: list[tuple[bytes, int]] = []
        if self.dynamic:
            anchors += [(a, 0) for a in _STRING_ANCHORS]
        if self.searches:
            anchors.append((_SECTION_ANCHOR, 1))
        strings = self.facts.strings
        for anchor, skip in anchors:
            # A string that starts before ``limit`` may hold its anchor up to _REACH after it.
            hit = window.find(anchor)
            while hit != -1 and hit < limit + _REACH:
                inside = hit + skip
                start = window.rfind(b"\x00", max(0, inside - _REACH), inside) + 1
                end = window.find(b"\x00", inside, inside + _REACH)
                if 0 < start < limit and end > start and _PRINTABLE.fullmatch(window, start, end):
                    strings[base + start] = window[start:end]
                hit = window.find(anchor, hit + 1)
            if len(strings) > _MAX_STRINGS:
                self.facts.complete = False
                self.dynamic = False
                return

    def _matches(self, search: Search, window: bytes, base: int, limit: int) -> None:
        found = self.facts.matches[search.pattern.pattern]
        if len(found) >= _MAX_MATCHES:
            return
        regions: list[tuple[int, int]] = []
        if not search.anchors:
            regions.append((0, len(window)))
        for anchor in search.anchors:
            hit = window.find(anchor)
            while hit != -1 and hit < limit + _REACH:
                lo, hi = max(0, hit - _REACH), min(len(window), hit + _REACH)
                if regions and lo <= regions[-1][1]:
                    regions[-1] = (regions[-1][0], max(regions[-1][1], hi))
                else:
                    regions.append((lo, hi))
                hit = window.find(anchor, hit + 1)
        regions.sort()
        for lo, hi in regions:
            for match in search.pattern.finditer(window, lo, hi):
                start = match.start()
                if start >= limit or any(m.offset == base + start for m in found[-4:]):
                    continue
                context_start = max(0, start - _CONTEXT)
                found.append(
                    Match(
                        base + start,
                        base + context_start,
                        window[context_start : match.end() + _CONTEXT],
                    )
                )
                if len(found) >= _MAX_MATCHES:
                    return


def is_complete_dynamic(dynamic: elf.ElfDynamic) -> bool:
    """Whether every string of a dynamic section read from a sparse file was really kept."""
    values = [*dynamic.needed, *dynamic.rpath, *dynamic.runpath]
    if dynamic.soname is not None:
        values.append(dynamic.soname)
    return all(values)


__all__ = [
    "BinaryCollector",
    "BinaryFacts",
    "SparseFile",
    "is_complete_dynamic",
]
