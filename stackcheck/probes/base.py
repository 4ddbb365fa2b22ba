"""The probe interface and the helpers every probe shares."""

from __future__ import annotations

import posixpath
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from stackcheck.probes.context import ProbeContext
from stackcheck.snapshot.model import ComponentName, Installation, Origin, Snapshot
from stackcheck.views.needs import Needs


class Probe(ABC):
    """Reads one part of the stack from a :class:`ProbeContext` into the snapshot.

    A probe never raises for a missing or odd file: it records what it found, and for what it
    could not find, why.
    """

    name: ClassVar[str]
    # What the probe reads, so a streamed view (an image) keeps exactly that.
    needs: ClassVar[Needs] = Needs()

    @abstractmethod
    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None: ...


def add_installation(snapshot: Snapshot, name: ComponentName, new: Installation) -> Installation:
    """Record an installation; a second sighting of the same file adds its evidence instead."""
    for known in snapshot.installations(name):
        if new.path is not None and known.path == new.path:
            known.evidence.extend(e for e in new.evidence if e not in known.evidence)
            known.version = known.version or new.version
            known.cuda = known.cuda or new.cuda
            known.archs = known.archs or new.archs
            known.python_env = known.python_env or new.python_env
            known.properties = {**new.properties, **known.properties}
            return known
    snapshot.installations(name).append(new)
    return new


def set_unknown(snapshot: Snapshot, name: ComponentName, reason: str) -> None:
    component = snapshot.component(name)
    if not component.installations:
        component.unknown = reason


def soname_version(filename: str, stem: str) -> str | None:
    """``libnccl.so.2.21.5`` with stem ``libnccl`` -> ``2.21.5``; needs at least major.minor."""
    match = re.fullmatch(re.escape(stem) + r"\.so\.(\d+\.\d+(?:\.\d+)*)", filename)
    return match.group(1) if match else None


def libraries(ctx: ProbeContext, directories: Iterable[str], stem: str) -> dict[str, list[str]]:
    """Files named ``<stem>.so*`` in ``directories``, grouped by the real file they lead to.

    Each group lists the names seen, in search order; so ``libnccl.so.2`` and
    ``libnccl.so.2.21.5`` in one directory count as one installation.
    """
    groups: dict[str, list[str]] = {}
    name = re.compile(re.escape(stem) + r"\.so(\.[0-9][0-9.]*)?$")
    for directory in dict.fromkeys(directories):
        for entry in ctx.view.listdir(directory):
            if not name.match(entry):
                continue
            path = posixpath.join(directory, entry)
            real = ctx.view.resolve(path)
            if real is not None and ctx.view.is_file(real):
                groups.setdefault(real, []).append(path)
    return groups


def origin_of(ctx: ProbeContext, path: str) -> Origin:
    if ctx.python_env_of(path) is not None:
        return "pip"
    if any(path.startswith(d + "/") for d in conda_lib_dirs(ctx)):
        return "conda"
    if ctx.under_toolkit(path):
        return "toolkit"
    if path.startswith("/opt/"):
        return "vendor"
    return "system"


def wheel_dirs(ctx: ProbeContext, package_dir: str) -> list[str]:
    """``<site-packages>/nvidia/<package_dir>/lib`` of every Python environment."""
    return [
        posixpath.join(env.site_packages, "nvidia", package_dir, "lib") for env in ctx.python_envs
    ]


def toolkit_lib_dirs(ctx: ProbeContext) -> list[str]:
    dirs = []
    for toolkit in ctx.view.glob("/usr/local/cuda*"):
        dirs.extend([posixpath.join(toolkit, "lib64"), posixpath.join(toolkit, "lib")])
        dirs.extend(ctx.view.glob(posixpath.join(toolkit, "targets/*/lib")))
    return dirs


def conda_lib_dirs(ctx: ProbeContext) -> list[str]:
    return [posixpath.join(env.prefix, "lib") for env in ctx.python_envs if env.kind == "conda"]
