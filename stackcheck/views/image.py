"""A view of a container image: its merged layers, read without extracting anything.

It answers from what the layer walk kept (see :mod:`stackcheck.views.needs`): every entry that
can matter, the small files probes read, and sparse ELF facts of the binaries they look into.
A read the probes did not declare is answered as empty and noted, so a gap shows in the report.
"""

from __future__ import annotations

import re

from stackcheck.binary import elf
from stackcheck.binary.collect import SparseFile, is_complete_dynamic
from stackcheck.image.tree import MergedTree
from stackcheck.views.base import Entry, FileView


class ImageView(FileView):
    def __init__(self, tree: MergedTree, label: str, layers: list[str]) -> None:
        super().__init__(label)
        self.tree = tree
        self.layers = layers  # digests, lowest layer first
        self.problems.extend(tree.problems)
        self._sparse: dict[str, SparseFile] = {}

    def _lstat(self, path: str) -> Entry | None:
        node = self.tree.node(path)
        if node is None:
            return None
        kind = node.kind if node.kind in ("file", "dir", "symlink") else "other"
        return Entry(kind, node.size, node.target)  # type: ignore[arg-type]

    def _listdir(self, path: str) -> list[str]:
        return list(self.tree.children.get(path, {}))

    def _sparse_file(self, path: str) -> SparseFile | None:
        if path not in self._sparse:
            facts = self.tree.binaries.get(path)
            if facts is None:
                return None
            self._sparse[path] = SparseFile(facts)
        return self._sparse[path]

    def _read(self, path: str, offset: int, size: int) -> bytes:
        content = self.tree.contents.get(path)
        if content is not None:
            return content[offset : offset + size]
        sparse = self._sparse_file(path)
        if sparse is not None:
            return sparse.read_at(offset, size)
        self._note(f"{path}: content not kept from the layers (no probe declared it)")
        return b""

    def provenance(self, path: str) -> str | None:
        real = self.resolve(path) or path
        node = self.tree.node(real)
        if node is None or not 0 <= node.layer < len(self.layers):
            return None
        return self.layers[node.layer]

    def elf_dynamic(self, path: str) -> elf.ElfDynamic | None:
        dynamic = super().elf_dynamic(path)
        if dynamic is not None and not is_complete_dynamic(dynamic):
            self._note(f"{path}: dynamic section only partly kept from the layer")
            return None
        return dynamic

    def search(
        self, path: str, pattern: re.Pattern[bytes], section: str = ".rodata"
    ) -> re.Match[bytes] | None:
        real = self.resolve(path)
        sparse = self._sparse_file(real) if real is not None else None
        if sparse is None or pattern.pattern not in sparse.facts.matches:
            self._note(f"{path}: search for {pattern.pattern!r} was not declared by a probe")
            return None
        try:
            bounds = elf.section_range(sparse.read_at, section)
        except elf.ElfError:
            bounds = None
        return sparse.search(pattern, bounds)

    def _note(self, problem: str) -> None:
        if problem not in self.problems:
            self.problems.append(problem)
