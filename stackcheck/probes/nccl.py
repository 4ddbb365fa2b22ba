"""NCCL: every libnccl.so that a process could load — system, toolkit, /usr/local/nccl*, pip, conda.

The version comes from the cheapest source that says it: the pip wheel, the Debian package
(``libnccl2 2.21.5-1+cuda12.4``), the real file name (``libnccl.so.2.21.5``), ``nccl.h`` next to the
library, and only then the ``NCCL version 2.21.5+cuda12.4`` string inside the binary, searched in
its ``.rodata`` section alone (a pip libnccl.so.2 is ~470 MB; its .rodata a few MB).
"""

from __future__ import annotations

import posixpath
import re

from stackcheck.parsers.source import c_defines
from stackcheck.probes.base import (
    Probe,
    add_installation,
    conda_lib_dirs,
    libraries,
    origin_of,
    set_unknown,
    soname_version,
    toolkit_lib_dirs,
    wheel_dirs,
)
from stackcheck.probes.context import ProbeContext
from stackcheck.snapshot.model import ComponentName, Evidence, Installation, Snapshot
from stackcheck.views.needs import BinaryNeed, Needs, Search

VERSION_STRING = re.compile(rb"NCCL version (\d+\.\d+\.\d+)[A-Za-z0-9._-]*\+cuda(\d+\.\d+)")
_WHEEL = re.compile(r"nvidia-nccl-cu(\d+)$")
_DEB = re.compile(r"(\d+\.\d+\.\d+)-\d+\+cuda(\d+\.\d+)")


class NcclProbe(Probe):
    name = "nccl"
    needs = Needs(
        contents=("*/include/nccl.h",),
        binaries=(
            BinaryNeed("libnccl.so*", searches=(Search(VERSION_STRING, (b"NCCL version ",)),)),
        ),
    )

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        dirs = [
            *(d.path for d in ctx.loader.system_dirs()),
            *toolkit_lib_dirs(ctx),
            *(f"{p}/lib" for p in ctx.view.glob("/usr/local/nccl*")),
            *(f"{p}/lib" for p in ctx.view.glob("/opt/nccl*")),
            *conda_lib_dirs(ctx),
            *wheel_dirs(ctx, "nccl"),
        ]
        for real, names in libraries(ctx, dirs, "libnccl").items():
            installation = Installation(path=real, origin=origin_of(ctx, real))
            installation.evidence.append(
                Evidence(
                    kind="filename",
                    source=names[0],
                    detail=posixpath.basename(real),
                    layer=ctx.view.provenance(real),
                )
            )
            self._version(ctx, real, installation)
            add_installation(snapshot, ComponentName.NCCL, installation)
        set_unknown(
            snapshot,
            ComponentName.NCCL,
            "no libnccl.so on the loader path, in toolkits, /usr/local/nccl*, conda or pip wheels",
        )

    def _version(self, ctx: ProbeContext, real: str, installation: Installation) -> None:
        env = ctx.python_env_of(real)
        if env is not None:
            installation.python_env = env.site_packages
            wheels = [
                (dist, match.group(1))
                for dist in env.distributions.values()
                if (match := _WHEEL.match(dist.name))
            ]
            for dist, _ in wheels:
                installation.evidence.append(
                    Evidence(
                        kind="package", source=dist.record_dir, detail=f"{dist.name} {dist.version}"
                    )
                )
            if len(wheels) == 1:
                installation.version, installation.cuda = wheels[0][0].version, wheels[0][1]
                return
            if wheels:
                # Several NCCL wheels write the same file: the last one installed won. Only the
                # binary can say which.
                installation.properties["wheels"] = ", ".join(
                    f"{d.name} {d.version}" for d, _ in wheels
                )
                self._from_binary(ctx, real, installation)
                return
        package = ctx.dpkg.get("libnccl2")
        deb = _DEB.match(package or "")
        name_version = soname_version(posixpath.basename(real), "libnccl")
        if deb and installation.origin == "system" and name_version in (None, deb.group(1)):
            installation.version, installation.cuda = deb.group(1), deb.group(2)
            installation.evidence.append(
                Evidence(
                    kind="package", source="/var/lib/dpkg/status", detail=f"libnccl2 {package}"
                )
            )
            return
        if name_version and name_version.count(".") == 2:
            installation.version = name_version
            return
        if not self._from_header(ctx, real, installation):
            self._from_binary(ctx, real, installation)

    @staticmethod
    def _from_binary(ctx: ProbeContext, real: str, installation: Installation) -> None:
        match = ctx.view.search(real, VERSION_STRING)
        if match is not None:
            installation.version = match.group(1).decode()
            installation.cuda = match.group(2).decode()
            installation.evidence.append(
                Evidence(
                    kind="binary",
                    source=real,
                    detail=match.group(0).decode(errors="replace"),
                    layer=ctx.view.provenance(real),
                )
            )

    @staticmethod
    def _from_header(ctx: ProbeContext, real: str, installation: Installation) -> bool:
        for up in ("..", "../.."):
            path = posixpath.normpath(posixpath.join(posixpath.dirname(real), up, "include/nccl.h"))
            defines = c_defines(ctx.view.read_text(path, 65536) or "")
            parts = [defines.get(k, "") for k in ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH")]
            if all(p.isdigit() for p in parts):
                installation.version = ".".join(parts)
                installation.evidence.append(
                    Evidence(
                        kind="header",
                        source=path,
                        detail=f"NCCL_MAJOR/MINOR/PATCH {installation.version}",
                    )
                )
                return True
        return False
