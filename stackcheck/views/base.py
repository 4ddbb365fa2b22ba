"""A read-only view of a filesystem tree: a host's root, a directory, an image's merged layers.

Probes are written against :class:`FileView`, so one probe serves every artifact. A view
implements three primitives (``_lstat``, ``_listdir``, ``_read``) over paths whose parents hold no
symlinks; everything else (symlink resolution confined to the view's root, globbing, bounded
reads, ELF and string look-ups) is shared here.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Literal

from stackcheck.binary import elf

SMALL_FILE_LIMIT = 1 << 20  # version files, METADATA, headers, package records
_MAX_SYMLINK_HOPS = 40  # the kernel's own limit (MAXSYMLINKS)
_GLOB_CHARS = re.compile(r"[*?\[]")

EntryKind = Literal["file", "dir", "symlink", "other"]


@dataclass(frozen=True)
class Entry:
    kind: EntryKind
    size: int = 0
    target: str | None = None  # for symlinks: the link text, unresolved


class FileView(ABC):
    """Answers questions about one filesystem tree. Paths are absolute POSIX paths in the tree."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.problems: list[str] = []  # e.g. symlink loops met while resolving
        self._listings: dict[str, list[str]] = {}  # probes list the same library dirs often

    # -- primitives -------------------------------------------------------------------------
    @abstractmethod
    def _lstat(self, path: str) -> Entry | None:
        """The entry at ``path`` (whose parent directories are already resolved)."""

    @abstractmethod
    def _listdir(self, path: str) -> list[str]:
        """Names in the resolved directory ``path``."""

    @abstractmethod
    def _read(self, path: str, offset: int, size: int) -> bytes:
        """Up to ``size`` bytes at ``offset`` of the resolved regular file ``path``."""

    def provenance(self, path: str) -> str | None:
        """Which layer a file came from, for views made of layers."""
        del path
        return None

    # -- resolution -------------------------------------------------------------------------
    def resolve(self, path: str, *, follow_last: bool = True) -> str | None:
        """The path with every symlink resolved inside the tree, or None if it does not exist.

        Absolute link targets are taken relative to the view's root, never the machine's, and
        ``..`` stops at the root, so nothing outside the tree is ever reached.
        """
        pending = [p for p in _normalize(path).split("/") if p]
        resolved = "/"
        hops = 0
        while pending:
            name = pending.pop(0)
            if name == "..":
                resolved = posixpath.dirname(resolved)
                continue
            candidate = posixpath.join(resolved, name)
            entry = self._lstat(candidate)
            if entry is None:
                return None
            if entry.kind == "symlink" and (pending or follow_last):
                hops += 1
                if hops > _MAX_SYMLINK_HOPS:
                    self.problems.append(f"symlink loop at {path}")
                    return None
                target = entry.target or ""
                if target.startswith("/"):
                    resolved = "/"
                pending = [p for p in target.split("/") if p and p != "."] + pending
                continue
            if pending and entry.kind != "dir":
                return None
            resolved = candidate
        return resolved

    def stat(self, path: str) -> Entry | None:
        real = self.resolve(path)
        return None if real is None else self._lstat(real)

    def lstat(self, path: str) -> Entry | None:
        real = self.resolve(path, follow_last=False)
        return None if real is None else self._lstat(real)

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def is_dir(self, path: str) -> bool:
        entry = self.stat(path)
        return entry is not None and entry.kind == "dir"

    def is_file(self, path: str) -> bool:
        entry = self.stat(path)
        return entry is not None and entry.kind == "file"

    def listdir(self, path: str) -> list[str]:
        real = self.resolve(path)
        if real is None:
            return []
        if real not in self._listings:
            entry = self._lstat(real)
            names = self._listdir(real) if entry is not None and entry.kind == "dir" else []
            self._listings[real] = sorted(names)
        return self._listings[real]

    # -- reading ----------------------------------------------------------------------------
    def read_bytes(self, path: str, limit: int = SMALL_FILE_LIMIT) -> bytes | None:
        real = self.resolve(path)
        if real is None:
            return None
        entry = self._lstat(real)
        if entry is None or entry.kind != "file":
            return None
        return self._read(real, 0, limit)

    def read_child(self, directory: str, name: str, limit: int = SMALL_FILE_LIMIT) -> bytes | None:
        """A file directly in ``directory``, a path :meth:`resolve` returned: one look-up instead
        of one per path component, for probes that read many small files of one directory
        (sysfs)."""
        path = posixpath.join(directory, name)
        entry = self._lstat(path)
        if entry is None:
            return None
        if entry.kind == "symlink":
            return self.read_bytes(path, limit)
        return self._read(path, 0, limit) if entry.kind == "file" else None

    def read_text(self, path: str, limit: int = SMALL_FILE_LIMIT) -> str | None:
        data = self.read_bytes(path, limit)
        return None if data is None else data.decode("utf-8", errors="replace")

    def read_at(self, path: str, offset: int, size: int) -> bytes:
        real = self.resolve(path)
        if real is None:
            return b""
        return self._read(real, offset, size)

    def elf_dynamic(self, path: str) -> elf.ElfDynamic | None:
        """DT_SONAME, DT_NEEDED, DT_RUNPATH and DT_RPATH of a shared object, read not loaded."""
        real = self.resolve(path)
        if real is None:
            return None
        try:
            return elf.read_dynamic(lambda offset, size: self._read(real, offset, size))
        except elf.ElfError:
            return None

    def search(
        self, path: str, pattern: re.Pattern[bytes], section: str = ".rodata"
    ) -> re.Match[bytes] | None:
        """First match of ``pattern`` in one ELF section of a file (its whole body if no ELF)."""
        real = self.resolve(path)
        if real is None:
            return None
        entry = self._lstat(real)
        if entry is None or entry.kind != "file":
            return None
        return elf.search_section(
            lambda offset, size: self._read(real, offset, size), entry.size, section, pattern
        )

    # -- finding ----------------------------------------------------------------------------
    def glob(self, pattern: str) -> list[str]:
        """Paths matching a shell pattern, component by component (no ``**``)."""
        current = ["/"]
        for part in [p for p in _normalize(pattern).split("/") if p]:
            following: list[str] = []
            for base in current:
                if _GLOB_CHARS.search(part):
                    following.extend(
                        posixpath.join(base, name)
                        for name in self.listdir(base)
                        if fnmatch.fnmatchcase(name, part)
                    )
                elif self.lstat(posixpath.join(base, part)) is not None:
                    following.append(posixpath.join(base, part))
            current = following
            if not current:
                break
        return sorted(set(current))

    def walk_files(self, top: str, max_depth: int, max_entries: int = 20000) -> list[str]:
        """Regular files and symlinks under ``top``, breadth-first and bounded."""
        found: list[str] = []
        level = [top]
        for _ in range(max_depth + 1):
            following: list[str] = []
            for directory in level:
                for name in self.listdir(directory):
                    child = posixpath.join(directory, name)
                    entry = self.lstat(child)
                    if entry is None:
                        continue
                    if entry.kind == "dir":
                        following.append(child)
                    elif entry.kind in ("file", "symlink"):
                        found.append(child)
                    if len(found) >= max_entries:
                        return found
            level = following
        return found


def _normalize(path: str) -> str:
    return posixpath.normpath("/" + path.lstrip("/"))
