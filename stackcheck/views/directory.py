"""A view of a real directory tree: ``/`` for the live host, or any root given with ``--root``."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from stackcheck.views.base import Entry, FileView


class DirectoryView(FileView):
    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        super().__init__(str(self.root))

    def _host_path(self, path: str) -> str:
        # Callers pass paths whose parents are resolved inside the view, so a plain join
        # cannot leave the root.
        return str(self.root) + path if str(self.root) != "/" else path

    def _lstat(self, path: str) -> Entry | None:
        host = self._host_path(path)
        try:
            st = os.lstat(host)
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            try:
                return Entry("symlink", st.st_size, os.readlink(host))
            except OSError:
                return None
        if stat.S_ISDIR(st.st_mode):
            return Entry("dir")
        if stat.S_ISREG(st.st_mode):
            return Entry("file", st.st_size)
        return Entry("other")

    def _listdir(self, path: str) -> list[str]:
        try:
            return os.listdir(self._host_path(path))
        except OSError:
            return []

    def _read(self, path: str, offset: int, size: int) -> bytes:
        if offset < 0 or size <= 0:
            return b""
        try:
            with open(self._host_path(path), "rb") as handle:
                # Never ask for more than the file holds: an ELF header may claim any size.
                size = min(size, os.fstat(handle.fileno()).st_size - offset)
                if size <= 0:
                    return b""
                handle.seek(offset)
                return handle.read(size)
        except (OSError, OverflowError, ValueError):
            return b""
