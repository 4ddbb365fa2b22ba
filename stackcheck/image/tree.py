"""The image's filesystem: layer indexes applied in order, as overlayfs would show them.

Whiteouts (``.wh.NAME``) and opaque directories (``.wh..wh..opq``) hide what lower layers put
there, not what the same layer adds; a hard link takes its target's content; a path whose parent
is not a directory in the lower layers gets a directory in its place.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from stackcheck.binary.collect import BinaryFacts
from stackcheck.image.layer import LayerIndex


@dataclass(slots=True)
class Node:
    kind: str  # file, dir, symlink, other
    size: int
    target: str | None
    layer: int  # position of the layer that put it there


class MergedTree:
    def __init__(self) -> None:
        self.children: dict[str, dict[str, Node]] = {"/": {}}
        self.root = Node("dir", 0, None, -1)
        self.contents: dict[str, bytes] = {}
        self.binaries: dict[str, BinaryFacts] = {}
        self.problems: list[str] = []

    def node(self, path: str) -> Node | None:
        if path == "/":
            return self.root
        parent, name = posixpath.split(path)
        return self.children.get(parent, {}).get(name)

    def apply(self, layer: LayerIndex, position: int) -> None:
        for path, kind, _, _ in layer.entries:
            if kind == "whiteout":
                self._remove(path)
            elif kind == "opaque":
                for name in list(self.children.get(path, {})):
                    self._remove(posixpath.join(path, name))
        for path, kind, size, target in layer.entries:
            if kind in ("whiteout", "opaque"):
                continue
            if kind == "hardlink":
                self._hardlink(path, target, position)
                continue
            self._put(path, Node(kind, size, target, position))
            if kind == "file":
                self._data(path, layer.contents.get(path), layer.binaries.get(path))

    def _data(self, path: str, content: bytes | None, facts: BinaryFacts | None) -> None:
        self.contents.pop(path, None)
        self.binaries.pop(path, None)
        if content is not None:
            self.contents[path] = content
        if facts is not None:
            self.binaries[path] = facts

    def _hardlink(self, path: str, target: str | None, position: int) -> None:
        source = self.node(target) if target else None
        if source is None or source.kind != "file":
            self.problems.append(f"hard link {path} -> {target}: target is not a file in the image")
            self._put(path, Node("other", 0, None, position))
            return
        self._put(path, Node("file", source.size, None, position))
        assert target is not None
        self._data(path, self.contents.get(target), self.binaries.get(target))

    def _put(self, path: str, node: Node) -> None:
        parent, name = posixpath.split(path)
        self._ensure_dir(parent, node.layer)
        siblings = self.children[parent]
        old = siblings.get(name)
        if old is not None and old.kind == "dir" and node.kind == "dir":
            old.layer = node.layer  # directories merge; their entries stay
            return
        if old is not None:
            self._remove(path)
        siblings[name] = node
        if node.kind == "dir":
            self.children[path] = {}

    def _ensure_dir(self, path: str, position: int) -> None:
        missing = []  # outermost last; a loop, as paths may be thousands of levels deep
        while path not in self.children:
            missing.append(path)
            path = posixpath.dirname(path)
        for directory in reversed(missing):
            self._put(directory, Node("dir", 0, None, position))

    def _remove(self, path: str) -> None:
        # A loop, not recursion: a directory may be thousands of levels deep.
        parent, name = posixpath.split(path)
        if self.children.get(parent, {}).pop(name, None) is None:
            return
        pending = [path]
        while pending:
            current = pending.pop()
            self.contents.pop(current, None)
            self.binaries.pop(current, None)
            for child in self.children.pop(current, {}):
                pending.append(posixpath.join(current, child))
