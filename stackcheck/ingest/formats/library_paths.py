"""Libraries listed by ``ldconfig -p``, ``ldd``, ``find``, ``ls -l`` or ``tree``: a library's
real file name carries its version (``libnccl.so.2.28.3``, ``libcuda.so.375.82``,
``libcudart.so.9.1``). Also the libraries one process loaded, as ``LD_DEBUG=libs`` (``calling
init: PATH``) and ``/proc/PID/maps`` show them: cuDNN's parts loaded from two folders are two
cuDNN releases mixed in one process."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact, ObservationFact
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
# What one process loaded: glibc's LD_DEBUG=libs ("  5580:\tcalling init: /lib/libcudnn.so.9")
# and a mapping of /proc/PID/maps ("7f2c...-7f2c... r-xp 00000000 08:01 1234  /lib/libcudnn.so.9").
_LD_DEBUG = re.compile(rf"^\s*\d{{1,7}}:\s+calling (?:init|fini): (/\S{{0,400}}/({_NAME}))\s*$")
_MAPS = re.compile(
    r"^\s*[0-9a-f]{6,16}-[0-9a-f]{6,16}\s[r-][w-][x-][ps]\s[0-9a-f]{8}\s[0-9a-f]{2,3}:[0-9a-f]{2,3}"
    rf"\s\d{{1,12}}\s+(/\S{{0,400}}/({_NAME}))\s*$"
)
_CUDNN_PART = re.compile(r"^libcudnn(?:_\w{1,40})?\.so\.(\d{1,2})\b")
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
        rf"{_LDCONFIG.pattern}|{_LDD.pattern}|{_PATH.pattern}|{_LS.pattern}|{_TREE.pattern}|"
        rf"{_LD_DEBUG.pattern}|{_MAPS.pattern}"
    )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        loaded: list[tuple[Line, str]] = []
        for line in lines:
            text = line.text
            found = _LD_DEBUG.match(text) or _MAPS.match(text)
            if found is not None:
                fact = library_fact(line, found.group(2), found.group(1))
                facts.extend([fact] if fact is not None else [])
                loaded.append((line, found.group(1)))
                continue
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
        return facts + _cudnn_mixed(loaded)


def _folder(path: str) -> str:
    """The folder a loaded library came from, with the spellings of one folder made one: merged
    /usr (/lib is /usr/lib), lib64 and lib, CUDA's versioned and targets/ paths."""
    folder = posixpath.dirname(path).removeprefix("/usr")
    folder = re.sub(r"/cuda-\d{1,2}(?:\.\d{1,2})?(?=/|$)", "/cuda", folder)
    folder = re.sub(r"/targets/[\w-]{1,40}(?=/|$)", "", folder)
    return re.sub(r"/lib64(?=/|$)", "/lib", folder)


def _cudnn_mixed(loaded: Sequence[tuple[Line, str]]) -> list[Fact]:
    """cuDNN libraries of one major that one process loaded from two folders: its sub-libraries
    (libcudnn_ops, _cnn, _graph, _engines_*) dlopened by soname, some from a pip or bundled copy
    and some from a system-wide one (pytorch/pytorch#185512)."""
    folders: dict[str, dict[str, str]] = {}  # major -> folder -> the first path loaded there
    for line, path in loaded:
        part = _CUDNN_PART.match(posixpath.basename(path))
        if part is None:
            continue
        folders.setdefault(part.group(1), {}).setdefault(_folder(path), path)
        places = folders[part.group(1)]
        if len(places) == 2:
            first, second = places.values()
            value = f"cuDNN {part.group(1)} libraries loaded from two folders: {first} and {second}"
            return [ObservationFact(line, "cudnn-mismatch", value)]
    return []
