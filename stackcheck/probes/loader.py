"""The dynamic loader's search path, and which file a library name would resolve to.

Follows glibc's order: DT_RPATH of the loading object (only when it has no DT_RUNPATH), then
``LD_LIBRARY_PATH``, then DT_RUNPATH, then the directories of ``/etc/ld.so.conf`` (what
``ldconfig`` puts in the cache), then the trusted default directories.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field

from stackcheck.binary.elf import ElfDynamic
from stackcheck.limits import LD_LIBRARY_PATH_MAX_ENTRIES, LDSO_INCLUDE_DEPTH, LDSO_MAX_FILES
from stackcheck.snapshot.model import Evidence, EvidenceKind
from stackcheck.views.base import FileView

LD_SO_CONF = "/etc/ld.so.conf"
DEFAULT_DIRS = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")
_DETAIL_LIMIT = 4096  # of LD_LIBRARY_PATH shown as evidence
# Debian's and Ubuntu's glibc live in a multiarch directory and search it by default, before
# /lib and /usr/lib, whether or not ld.so.conf.d lists it (`ld.so --help` on Debian 12, glibc
# 2.36: /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib, /usr/lib). The dynamic loader's
# own file in such a directory is the evidence: (triplet, loader file name).
MULTIARCH_LOADERS = (
    ("x86_64-linux-gnu", "ld-linux-x86-64.so.2"),
    ("aarch64-linux-gnu", "ld-linux-aarch64.so.1"),
)


@dataclass(frozen=True)
class SearchDir:
    path: str
    reason: str  # "LD_LIBRARY_PATH", "/etc/ld.so.conf.d/x.conf", "default", "RUNPATH of ..."
    evidence: Evidence


@dataclass(frozen=True)
class Resolution:
    path: str  # the file the name resolves to, as found (before following symlinks)
    via: SearchDir


@dataclass
class LoaderPath:
    ld_library_path: list[SearchDir] = field(default_factory=list)
    configured: list[SearchDir] = field(default_factory=list)
    defaults: list[SearchDir] = field(default_factory=list)

    def system_dirs(self) -> list[SearchDir]:
        """Where a name is found when the loading object has no RPATH/RUNPATH."""
        return _unique([*self.ld_library_path, *self.configured, *self.defaults])

    def search_order(self, consumer: str | None, dynamic: ElfDynamic | None) -> list[SearchDir]:
        """The directories searched for a DT_NEEDED (or dlopen) name of ``consumer``."""
        origin = posixpath.dirname(consumer) if consumer else "/"

        def own(paths: list[str], kind: str) -> list[SearchDir]:
            where = f"{kind} of {consumer}"
            return [
                SearchDir(
                    _expand_origin(p, origin),
                    where,
                    Evidence(kind="binary", source=consumer or "", detail=f"{kind} {p}"),
                )
                for p in paths
            ]

        rpath = own(dynamic.rpath, "RPATH") if dynamic and not dynamic.runpath else []
        runpath = own(dynamic.runpath, "RUNPATH") if dynamic else []
        return _unique([*rpath, *self.ld_library_path, *runpath, *self.configured, *self.defaults])

    def resolve(
        self,
        view: FileView,
        name: str,
        consumer: str | None = None,
        dynamic: ElfDynamic | None = None,
    ) -> Resolution | None:
        """The file that ``name`` would load from, or None when the loader would not find it."""
        if "/" in name:
            return Resolution(name, _direct(name)) if view.is_file(name) else None
        for directory in self.search_order(consumer, dynamic):
            candidate = posixpath.join(directory.path, name)
            if view.is_file(candidate):
                return Resolution(candidate, directory)
        return None


def _direct(path: str) -> SearchDir:
    return SearchDir(posixpath.dirname(path), "path", Evidence(kind="file", source=path))


def _expand_origin(path: str, origin: str) -> str:
    expanded = path.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)
    return posixpath.normpath(expanded)


def _unique(dirs: list[SearchDir]) -> list[SearchDir]:
    seen: set[str] = set()
    result = []
    for d in dirs:
        if d.path not in seen:
            seen.add(d.path)
            result.append(d)
    return result


def loader_path(view: FileView, env: Mapping[str, str], env_kind: EvidenceKind) -> LoaderPath:
    result = LoaderPath()
    value = env.get("LD_LIBRARY_PATH", "")
    entries = [e for e in value.split(":", LD_LIBRARY_PATH_MAX_ENTRIES) if e]
    if len(entries) > LD_LIBRARY_PATH_MAX_ENTRIES:
        # A path that long is broken; the first entries are what the loader tries first.
        entries = entries[:LD_LIBRARY_PATH_MAX_ENTRIES]
        view.problems.append(
            f"LD_LIBRARY_PATH: only its first {LD_LIBRARY_PATH_MAX_ENTRIES} entries were read"
        )
    shown = value if len(value) <= _DETAIL_LIMIT else value[:_DETAIL_LIMIT] + "..."
    evidence = Evidence(kind=env_kind, source="LD_LIBRARY_PATH", detail=shown)
    for entry in dict.fromkeys(entries):
        result.ld_library_path.append(
            SearchDir(posixpath.normpath(entry), "LD_LIBRARY_PATH", evidence)
        )
    result.configured = _configured_dirs(view, LD_SO_CONF, 0, set())
    result.defaults = _default_dirs(view)
    return result


def _default_dirs(view: FileView) -> list[SearchDir]:
    """The loader's built-in directories: a multiarch glibc's (Debian, Ubuntu) when its loader
    sits in a multiarch directory, else glibc's usual ones."""
    for triplet, name in MULTIARCH_LOADERS:
        for prefix in ("/lib", "/usr/lib"):
            loader = f"{prefix}/{triplet}/{name}"
            if view.is_file(loader):
                detail = "default directory of the multiarch loader"
                evidence = Evidence(
                    kind="file", source=loader, detail=detail, layer=view.provenance(loader)
                )
                dirs = (f"/lib/{triplet}", f"/usr/lib/{triplet}", "/lib", "/usr/lib")
                return [SearchDir(d, "default", evidence) for d in dirs]
    return [
        SearchDir(d, "default", Evidence(kind="file", source=d, detail="trusted directory"))
        for d in DEFAULT_DIRS
    ]


def _configured_dirs(view: FileView, conf: str, depth: int, visited: set[str]) -> list[SearchDir]:
    """The directories of one ld.so.conf file and what it includes. Each file is read once
    (a file that includes itself, directly or not, adds nothing more), at most
    LDSO_INCLUDE_DEPTH deep and LDSO_MAX_FILES in all."""
    if conf in visited or depth > LDSO_INCLUDE_DEPTH or len(visited) >= LDSO_MAX_FILES:
        return []
    visited.add(conf)
    text = view.read_text(conf)
    if text is None:
        return []
    dirs: list[SearchDir] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("include"):
            pattern = line[len("include") :].strip()
            if not pattern.startswith("/"):
                pattern = posixpath.join(posixpath.dirname(conf), pattern)
            for included in view.glob(pattern):
                dirs.extend(_configured_dirs(view, included, depth + 1, visited))
        elif line.startswith("/"):
            evidence = Evidence(kind="file", source=conf, detail=line, layer=view.provenance(conf))
            dirs.append(SearchDir(posixpath.normpath(line), conf, evidence))
    return dirs
