"""cuDNN: pip ``nvidia-cudnn-cu*`` wheels, system and toolkit libraries, Debian packages.

cuDNN's binaries hold no version string, so the version comes from the wheel, the Debian package
(``libcudnn9-cuda-12 9.1.0.70-1``, ``libcudnn8 8.9.2.26-1+cuda12.1``), the library's real name
(``libcudnn.so.8.9.2``) or ``cudnn_version.h`` next to it. Which CUDA major it was built for comes
from the wheel or package name, since a cuDNN for one CUDA major fails with another.
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
from stackcheck.versions import same_release
from stackcheck.views.needs import Needs

_WHEEL = re.compile(r"nvidia-cudnn-cu(\d+)$")
_DEB = re.compile(r"libcudnn(\d+)(?:-cuda-(\d+))?$")
_DEB_CUDA = re.compile(r"\+cuda(\d+\.\d+)")
_HEADER_DIRS = ("../include", "../../include", "/usr/include", "/usr/include/x86_64-linux-gnu")


class CudnnProbe(Probe):
    name = "cudnn"
    needs = Needs(contents=("*/include/*cudnn_version.h", "*/include/*cudnn.h"))

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        for env in ctx.python_envs:
            for dist in env.distributions.values():
                match = _WHEEL.match(dist.name)
                if match is None:
                    continue
                add_installation(
                    snapshot,
                    ComponentName.CUDNN,
                    Installation(
                        version=dist.version,
                        path=posixpath.join(env.site_packages, "nvidia", "cudnn", "lib"),
                        origin="pip",
                        cuda=match.group(1),
                        python_env=env.site_packages,
                        evidence=[
                            Evidence(
                                kind="package",
                                source=dist.record_dir,
                                detail=f"{dist.name} {dist.version}",
                            )
                        ],
                    ),
                )
        dirs = [
            *(d.path for d in ctx.loader.system_dirs()),
            *toolkit_lib_dirs(ctx),
            *conda_lib_dirs(ctx),
            *wheel_dirs(ctx, "cudnn"),
        ]
        for real, names in libraries(ctx, dirs, "libcudnn").items():
            if ctx.python_env_of(real) is not None:
                continue  # recorded from its wheel
            directory = posixpath.dirname(real)
            installation = Installation(
                path=directory,
                origin=origin_of(ctx, real),
                evidence=[],
            )
            name = posixpath.basename(real)
            version = soname_version(name, "libcudnn")
            if version and version.count(".") >= 2:
                installation.version = version
                installation.evidence.append(
                    Evidence(
                        kind="filename",
                        source=names[0],
                        detail=name,
                        layer=ctx.view.provenance(real),
                    )
                )
            self._from_header(ctx, directory, installation)
            if installation.origin == "system":
                self._from_package(ctx, installation)
            if installation.version is None:
                installation.evidence.append(
                    Evidence(kind="filename", source=names[0], detail="no version in name")
                )
            add_installation(snapshot, ComponentName.CUDNN, installation)
        set_unknown(
            snapshot,
            ComponentName.CUDNN,
            "no libcudnn.so on the loader path, in toolkits or in nvidia-cudnn wheels",
        )

    @staticmethod
    def _from_header(ctx: ProbeContext, directory: str, installation: Installation) -> None:
        for candidate in _HEADER_DIRS:
            include = posixpath.normpath(posixpath.join(directory, candidate))
            for header in ("cudnn_version.h", "cudnn.h"):
                path = posixpath.join(include, header)
                defines = c_defines(ctx.view.read_text(path, 65536) or "")
                parts = [
                    defines.get(k, "") for k in ("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL")
                ]
                if all(p.isdigit() for p in parts):
                    version = ".".join(parts)
                    installation.version = installation.version or version
                    installation.evidence.append(
                        Evidence(
                            kind="header",
                            source=path,
                            detail=f"CUDNN_MAJOR/MINOR/PATCHLEVEL {version}",
                        )
                    )
                    return

    @staticmethod
    def _from_package(ctx: ProbeContext, installation: Installation) -> None:
        for package, version in ctx.dpkg.items():
            match = _DEB.match(package)
            if match is None:
                continue
            if installation.version and not same_release(installation.version, version, 3):
                continue
            cuda = match.group(2) or (m.group(1) if (m := _DEB_CUDA.search(version)) else None)
            installation.cuda = installation.cuda or cuda
            installation.version = installation.version or version.split("-")[0]
            installation.evidence.append(
                Evidence(
                    kind="package", source="/var/lib/dpkg/status", detail=f"{package} {version}"
                )
            )
            return
