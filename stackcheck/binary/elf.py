"""Just enough ELF to answer a linker's questions without loading anything.

Everything reads through ``read_at(offset, size)``, so the same code serves a file on disk and
bytes kept from an image layer. Counts and sizes are bounded: a corrupt or hostile file yields
:class:`ElfError`, never a hang or a huge allocation.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from stackcheck.limits import ELF_MAX_REGION

ReadAt = Callable[[int, int], bytes]

PT_LOAD, PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_STRSZ, _DT_SONAME, _DT_RPATH, _DT_RUNPATH = (
    0,
    1,
    5,
    10,
    14,
    15,
    29,
)
_MAX_HEADERS = 4096
_MAX_DYNAMIC = 1 << 16
_MAX_STRING = 4096
_CHUNK = 4 << 20


class ElfError(ValueError):
    """Not an ELF file, or one whose structures do not hold together."""


@dataclass(frozen=True)
class ElfDynamic:
    soname: str | None = None
    needed: list[str] = field(default_factory=list)
    runpath: list[str] = field(default_factory=list)
    rpath: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Header:
    fmt: str  # struct byte order and word size prefix
    is64: bool
    phoff: int
    phentsize: int
    phnum: int
    shoff: int
    shentsize: int
    shnum: int
    shstrndx: int


def _header(read_at: ReadAt) -> Header:
    return parse_header(read_at(0, 64))


def parse_header(ident: bytes) -> Header:
    """The ELF header from a file's first 64 bytes."""
    if len(ident) < 52 or ident[:4] != b"\x7fELF":
        raise ElfError("not an ELF file")
    is64 = ident[4] == 2
    order = "<" if ident[5] == 1 else ">"
    try:
        if is64:
            phoff, shoff = struct.unpack_from(order + "QQ", ident, 32)
            phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from(
                order + "HHHHH", ident, 54
            )
        else:
            phoff, shoff = struct.unpack_from(order + "II", ident, 28)
            phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from(
                order + "HHHHH", ident, 42
            )
    except struct.error as exc:
        raise ElfError(str(exc)) from None
    if phnum > _MAX_HEADERS or shnum > _MAX_HEADERS:
        raise ElfError("too many headers")
    return Header(order, is64, phoff, phentsize, phnum, shoff, shentsize, shnum, shstrndx)


def _region(size: int, what: str) -> int:
    """A table's size, refused past ``limits.ELF_MAX_REGION`` (no real table comes close)."""
    if size > ELF_MAX_REGION:
        raise ElfError(f"{what} claims {size} bytes (more than {ELF_MAX_REGION})")
    return size


def _segments(read_at: ReadAt, h: Header) -> list[tuple[int, int, int, int]]:
    """(type, offset, vaddr, filesz) of every program header."""
    return parse_segments(read_at(h.phoff, _region(h.phentsize * h.phnum, "program headers")), h)


def parse_segments(table: bytes, h: Header) -> list[tuple[int, int, int, int]]:
    """(type, offset, vaddr, filesz) of every program header in the table's bytes."""
    size = 56 if h.is64 else 32
    if h.phnum and h.phentsize < size:
        raise ElfError("bad program header size")
    segments = []
    for i in range(h.phnum):
        at = i * h.phentsize
        try:
            if h.is64:
                p_type, _, offset, vaddr, _, filesz = struct.unpack_from(
                    h.fmt + "IIQQQQ", table, at
                )
            else:
                p_type, offset, vaddr, _, filesz = struct.unpack_from(h.fmt + "IIIII", table, at)
        except struct.error:
            raise ElfError("truncated program headers") from None
        segments.append((p_type, offset, vaddr, filesz))
    return segments


def _string(read_at: ReadAt, offset: int) -> str:
    raw = read_at(offset, _MAX_STRING)
    end = raw.find(b"\0")
    if end < 0:
        raise ElfError("unterminated string")
    return raw[:end].decode("utf-8", errors="replace")


def read_dynamic(read_at: ReadAt) -> ElfDynamic:
    """The dynamic-linking facts of a shared object or executable."""
    h = _header(read_at)
    segments = _segments(read_at, h)
    dynamic = next((s for s in segments if s[0] == PT_DYNAMIC), None)
    if dynamic is None:
        return ElfDynamic()  # static binary
    entry_size = 16 if h.is64 else 8
    count = min(dynamic[3] // entry_size, _MAX_DYNAMIC)
    raw = read_at(dynamic[1], count * entry_size)
    entries: list[tuple[int, int]] = []
    for i in range(len(raw) // entry_size):
        tag, value = struct.unpack_from(h.fmt + ("qQ" if h.is64 else "iI"), raw, i * entry_size)
        if tag == _DT_NULL:
            break
        entries.append((tag, value))
    strtab_vaddr = next((v for t, v in entries if t == _DT_STRTAB), None)
    if strtab_vaddr is None:
        raise ElfError("dynamic section without a string table")
    strtab = _vaddr_to_offset(segments, strtab_vaddr)

    def strings(tag: int) -> list[str]:
        return [_string(read_at, strtab + v) for t, v in entries if t == tag]

    def path_list(tag: int) -> list[str]:
        return [p for s in strings(tag) for p in s.split(":") if p]

    sonames = strings(_DT_SONAME)
    return ElfDynamic(
        soname=sonames[0] if sonames else None,
        needed=strings(_DT_NEEDED),
        runpath=path_list(_DT_RUNPATH),
        rpath=path_list(_DT_RPATH),
    )


def _vaddr_to_offset(segments: list[tuple[int, int, int, int]], vaddr: int) -> int:
    for p_type, offset, seg_vaddr, filesz in segments:
        if p_type == PT_LOAD and seg_vaddr <= vaddr < seg_vaddr + filesz:
            return offset + (vaddr - seg_vaddr)
    raise ElfError("address outside every loaded segment")


def section_range(read_at: ReadAt, name: str) -> tuple[int, int] | None:
    """(offset, size) of a named section, or None when the file has no section headers."""
    h = _header(read_at)
    if h.shnum == 0 or h.shstrndx >= h.shnum:
        return None
    size = 64 if h.is64 else 40
    if h.shentsize < size:
        raise ElfError("bad section header size")
    table = read_at(h.shoff, _region(h.shentsize * h.shnum, "section headers"))
    if len(table) < h.shentsize * h.shnum:
        raise ElfError("truncated section headers")

    def entry(i: int) -> tuple[int, int, int]:
        at = i * h.shentsize
        if h.is64:
            sh_name, _, _, _, offset, sh_size = struct.unpack_from(h.fmt + "IIQQQQ", table, at)
        else:
            sh_name, _, _, _, offset, sh_size = struct.unpack_from(h.fmt + "IIIIII", table, at)
        return sh_name, offset, sh_size

    names_offset = entry(h.shstrndx)[1]
    for i in range(h.shnum):
        sh_name, offset, sh_size = entry(i)
        try:
            found = _string(read_at, names_offset + sh_name)
        except ElfError:
            continue  # one unreadable name does not hide the others
        if found == name:
            return offset, sh_size
    return None


def search_section(
    read_at: ReadAt, file_size: int, section: str, pattern: re.Pattern[bytes]
) -> re.Match[bytes] | None:
    """First match of ``pattern`` inside ``section``; the whole file when it is not ELF.

    Reads in overlapping chunks, so memory stays bounded whatever the file's size (a pip
    libnccl.so.2 is ~470 MB; its .rodata a few MB), and never past the file's end, whatever
    size the section header claims.
    """
    try:
        bounds = section_range(read_at, section)
    except ElfError:
        bounds = None
    start, length = bounds if bounds is not None else (0, file_size)
    end = min(start + length, file_size)
    overlap = 256
    offset = start
    while offset < end:
        size = min(_CHUNK, end - offset)
        data = read_at(offset, size + overlap)
        match = pattern.search(data)
        if match is not None:
            return match
        if not data:
            break
        offset += size
    return None
