"""Libraries listed by ``ldconfig -p``, ``ldd``, ``find``, ``ls -l`` or ``tree``: a library's
real file name carries its version (``libnccl.so.2.28.3``, ``libcuda.so.375.82``,
``libcudart.so.9.1``)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

_NAME = r"lib[\w+-]{1,60}\.so(?:\.\d{1,6}){0,4}"
_LDCONFIG = re.compile(rf"^\s*({_NAME})\s+\([^)]{{1,40}}\)\s+=>\s+(/\S{{1,400}})")
_LDD = re.compile(rf"^\s*({_NAME})\s+=>\s+(/\S{{1,400}}|not found)")
_PATH = re.compile(rf"^\s*(/\S{{0,400}}/({_NAME}))\s*$")
# tree(1): "│   ├── libnccl.so.2 -> libnccl.so.2.5.6"
_TREE = re.compile(rf"^[\s│├└─|`-]{{2,60}}\s({_NAME})(?:\s+->\s+(\S{{1,400}}))?\s*$")
# ls -l, with the listed file's directory where it is given ("ls -l /usr/lib/libnccl.so.2").
_LS = re.compile(
    rf"^[-l][rwxsStT-]{{9}}[.+@]?\s.{{0,200}}?\s(?:(/\S{{0,400}})/)?({_NAME})"
    rf"(?:\s+->\s+(\S{{1,400}}))?\s*$"
)
_VERSIONED = (
    (re.compile(r"^libnccl\.so\.(\d+\.\d+\.\d+)$"), ComponentName.NCCL),
    (re.compile(r"^libcudnn(?:_\w+)?\.so\.(\d+(?:\.\d+){0,2})$"), ComponentName.CUDNN),
    (re.compile(r"^libcuda\.so\.(\d{3}\.\d+(?:\.\d+)?)$"), ComponentName.DRIVER),
    (re.compile(r"^libnvidia-ml\.so\.(\d{3}\.\d+(?:\.\d+)?)$"), ComponentName.DRIVER),
    (re.compile(r"^libcudart\.so\.(\d+\.\d+(?:\.\d+)?)$"), ComponentName.CUDA_RUNTIME),
)


def library_fact(line: Line, name: str, path: str | None) -> Fact | None:
    for pattern, component in _VERSIONED:
        found = pattern.match(name)
        if found is not None:
            fact = ComponentFact(line, component, version=found.group(1))
            if path is not None and path.startswith("/"):
                fact.path = posixpath.dirname(path) if component is not ComponentName.NCCL else path
            if component is ComponentName.CUDA_RUNTIME:
                fact.cuda = ".".join(found.group(1).split(".")[:2])
            return fact
    return None


def _listed(line: Line, name: str, target: str | None, path: str | None) -> Fact | None:
    """A listed file, or the link and the file it points to (whose name has the version)."""
    linked = library_fact(line, posixpath.basename(target), path) if target else None
    return linked or library_fact(line, name, path)


class LibraryPaths(Format):
    name = "library_paths"
    title = "library listing (ldconfig -p, ldd, find, ls -l)"
    anchor = re.compile(r"^\s*\d{1,6} libs found in cache")
    member = re.compile(
        rf"{_LDCONFIG.pattern}|{_LDD.pattern}|{_PATH.pattern}|{_LS.pattern}|{_TREE.pattern}"
    )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for line in lines:
            text = line.text
            found = _LDCONFIG.match(text) or _LDD.match(text)
            if found is not None:
                name, path = found.group(1), found.group(2)
                real = posixpath.basename(path) if path.startswith("/") else name
                fact = library_fact(line, real, path) or library_fact(line, name, path)
            elif (found := _PATH.match(text)) is not None:
                fact = library_fact(line, found.group(2), found.group(1))
            elif (found := _LS.match(text)) is not None:
                folder, name, target = found.groups()
                fact = _listed(line, name, target, f"{folder}/{name}" if folder else None)
            elif (found := _TREE.match(text)) is not None:
                fact = _listed(line, found.group(1), found.group(2), None)
            else:
                fact = None
            if fact is not None:
                facts.append(fact)
        return facts
