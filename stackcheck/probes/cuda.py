"""CUDA: toolkits under /usr/local, CUDA runtimes (toolkit, pip wheels, system), forward compat.

A toolkit's version comes from ``version.json`` (``version.txt`` before 11.1), else the real name
of its ``libcudart.so``, else ``CUDART_VERSION`` in ``cuda_runtime_api.h``. A pip runtime's version
is its wheel's; the wheel's ``libcudart.so.12`` carries no fuller version in its name or bytes.
"""

from __future__ import annotations

import json
import posixpath
import re

from stackcheck.parsers.source import c_define
from stackcheck.probes.base import (
    Probe,
    add_installation,
    libraries,
    origin_of,
    set_unknown,
    soname_version,
    wheel_dirs,
)
from stackcheck.probes.context import ProbeContext
from stackcheck.snapshot.model import ComponentName, Evidence, Installation, Snapshot
from stackcheck.versions import cuda_from_int, release
from stackcheck.views.needs import Needs

_VERSION_TXT = re.compile(r"CUDA Version (\d+\.\d+(?:\.\d+)?)")
_COMPAT_DIRS = (
    "/usr/local/cuda/compat",
    "/usr/local/cuda/compat/lib",
    "/usr/local/cuda/compat/lib.real",
)


class CudaProbe(Probe):
    name = "cuda"
    needs = Needs(
        contents=(
            "/usr/local/cuda*/version.json",
            "/usr/local/cuda*/version.txt",
            "/usr/local/cuda*/include/cuda_runtime_api.h",
        )
    )

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        self._toolkits(ctx, snapshot)
        self._runtimes(ctx, snapshot)
        self._compat(ctx, snapshot)
        set_unknown(snapshot, ComponentName.CUDA_TOOLKIT, "no /usr/local/cuda* toolkit")
        set_unknown(
            snapshot,
            ComponentName.CUDA_RUNTIME,
            "no libcudart.so in toolkits, pip nvidia-cuda-runtime wheels or the loader path",
        )
        set_unknown(
            snapshot,
            ComponentName.CUDA_COMPAT,
            "no forward-compat libcuda under /usr/local/cuda*/compat",
        )

    def _toolkits(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        default = ctx.view.resolve("/usr/local/cuda")
        for path in ctx.view.glob("/usr/local/cuda-*"):
            real = ctx.view.resolve(path)
            if real is None or not ctx.view.is_dir(real):
                continue
            version, evidence = self._toolkit_version(ctx, real)
            properties = {"default": "yes"} if real == default else {}
            if real == default:
                evidence.append(
                    Evidence(kind="file", source="/usr/local/cuda", detail=f"-> {real}")
                )
            add_installation(
                snapshot,
                ComponentName.CUDA_TOOLKIT,
                Installation(
                    version=version,
                    path=real,
                    origin="toolkit",
                    cuda=release(version, 2),
                    properties=properties,
                    evidence=evidence,
                ),
            )

    @staticmethod
    def _toolkit_version(ctx: ProbeContext, root: str) -> tuple[str | None, list[Evidence]]:
        path = posixpath.join(root, "version.json")
        text = ctx.view.read_text(path)
        if text:
            try:
                version = json.loads(text).get("cuda", {}).get("version")
            except (ValueError, AttributeError):
                version = None
            if isinstance(version, str):
                return version, [ctx.file_evidence(path, f'"cuda": {{"version": "{version}"}}')]
        path = posixpath.join(root, "version.txt")
        match = _VERSION_TXT.search(ctx.view.read_text(path, 4096) or "")
        if match:
            return match.group(1), [ctx.file_evidence(path, match.group(0))]
        for lib in ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"):
            for real, _ in libraries(ctx, [posixpath.join(root, lib)], "libcudart").items():
                name = posixpath.basename(real)
                version = soname_version(name, "libcudart")
                if version and version.count(".") >= 2:
                    evidence = Evidence(kind="filename", source=real, detail=name)
                    return version, [evidence]
        path = posixpath.join(root, "include/cuda_runtime_api.h")
        value = c_define(ctx.view.read_text(path) or "", "CUDART_VERSION")
        if value and value.isdigit():
            return cuda_from_int(int(value)), [
                Evidence(kind="header", source=path, detail=f"CUDART_VERSION {value}")
            ]
        return None, [Evidence(kind="file", source=root, detail="no version file")]

    def _runtimes(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        for env in ctx.python_envs:
            for name in (
                "nvidia-cuda-runtime-cu11",
                "nvidia-cuda-runtime-cu12",
                "nvidia-cuda-runtime",
            ):
                dist = env.distribution(name)
                if dist is None:
                    continue
                lib = posixpath.join(env.site_packages, "nvidia", "cuda_runtime", "lib")
                add_installation(
                    snapshot,
                    ComponentName.CUDA_RUNTIME,
                    Installation(
                        version=dist.version,
                        path=lib,
                        origin="pip",
                        cuda=release(dist.version, 2),
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
        toolkit_dirs = {
            t.path: t for t in snapshot.installations(ComponentName.CUDA_TOOLKIT) if t.path
        }
        dirs = [d.path for d in ctx.loader.system_dirs()] + [
            posixpath.join(t, sub) for t in toolkit_dirs for sub in ("lib64", "lib")
        ]
        for real, names in libraries(
            ctx, dirs + wheel_dirs(ctx, "cuda_runtime"), "libcudart"
        ).items():
            name = posixpath.basename(real)
            version = soname_version(name, "libcudart")
            toolkit = next((t for p, t in toolkit_dirs.items() if real.startswith(p + "/")), None)
            if toolkit is not None and toolkit.version:
                version = toolkit.version if (version or "").count(".") < 2 else version
            directory = posixpath.dirname(real)
            if ctx.python_env_of(real) is not None:
                continue  # recorded from its wheel above, with the wheel's full version
            add_installation(
                snapshot,
                ComponentName.CUDA_RUNTIME,
                Installation(
                    version=version,
                    path=directory,
                    origin=origin_of(ctx, real),
                    cuda=release(version, 2),
                    evidence=[
                        Evidence(
                            kind="filename",
                            source=names[0],
                            detail=name,
                            layer=ctx.view.provenance(real),
                        )
                    ],
                ),
            )

    def _compat(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        dirs = list(_COMPAT_DIRS) + ctx.view.glob("/usr/local/cuda-*/compat")
        for real, names in libraries(ctx, dirs, "libcuda").items():
            version = soname_version(posixpath.basename(real), "libcuda")
            add_installation(
                snapshot,
                ComponentName.CUDA_COMPAT,
                Installation(
                    version=version,
                    path=posixpath.dirname(real),
                    origin="toolkit",
                    evidence=[
                        Evidence(
                            kind="filename",
                            source=names[0],
                            detail=posixpath.basename(real),
                            layer=ctx.view.provenance(real),
                        )
                    ],
                ),
            )
