"""PyTorch in every Python environment, read from its files; torch is never imported.

``torch/version.py`` gives ``__version__``, the CUDA it was built with (``None`` for CPU builds) and
the git revision; the GPU architectures it carries are the ``sm_75 sm_80 ...`` string that
``torch.cuda.get_arch_list()`` returns, read from libtorch_python.so's .rodata; and which NCCL,
cuDNN and CUDA runtime a ``python -c "import torch"`` would load is resolved from
libtorch_cuda.so's DT_NEEDED entries and RPATH/RUNPATH, the way the loader does.
"""

from __future__ import annotations

import posixpath
import re

from stackcheck.parsers.source import python_assignments
from stackcheck.probes.base import Probe, add_installation, set_unknown
from stackcheck.probes.context import ProbeContext
from stackcheck.probes.python_envs import PythonEnv
from stackcheck.snapshot.model import ComponentName, Evidence, Installation, Snapshot
from stackcheck.versions import local_tag
from stackcheck.views.needs import BinaryNeed, Needs, Search

# A whole NUL-terminated string of arch names, not part of a longer text.
ARCH_LIST = re.compile(
    rb"(?<![ -~])((?:sm|compute)_\d{2,3}[af]?(?: (?:sm|compute)_\d{2,3}[af]?)+)\x00"
)
# The libraries whose copy decides correctness and speed; the key names the snapshot property.
TRACKED_LIBRARIES = {
    "nccl": re.compile(r"^libnccl\.so"),
    "cudnn": re.compile(r"^libcudnn\.so"),
    "cudart": re.compile(r"^libcudart\.so"),
}


class TorchProbe(Probe):
    name = "torch"
    needs = Needs(
        contents=("*/torch/version.py",),
        binaries=(
            BinaryNeed("libtorch_cuda.so", dynamic=True),
            BinaryNeed("libtorch_python.so", searches=(Search(ARCH_LIST, (b"sm_", b"compute_")),)),
        ),
    )

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        for env in ctx.python_envs:
            package = posixpath.join(env.site_packages, "torch")
            if ctx.view.is_dir(package):
                installation = self._installation(ctx, env, package)
                add_installation(snapshot, ComponentName.TORCH, installation)
        searched = ", ".join(e.site_packages for e in ctx.python_envs) or "none found"
        set_unknown(
            snapshot,
            ComponentName.TORCH,
            f"no torch package in the Python environments ({searched})",
        )

    def _installation(self, ctx: ProbeContext, env: PythonEnv, package: str) -> Installation:
        installation = Installation(path=package, origin="pip", python_env=env.site_packages)
        if env.kind == "conda" and ctx.view.glob(
            posixpath.join(env.prefix, "conda-meta/pytorch-*.json")
        ):
            installation.origin = "conda"
        version_file = posixpath.join(package, "version.py")
        values = python_assignments(ctx.view.read_text(version_file, 65536) or "")
        version = values.get("__version__")
        cuda = values.get("cuda")
        if isinstance(version, str):
            installation.version = version
            installation.cuda = cuda if isinstance(cuda, str) else None
            installation.evidence.append(
                ctx.file_evidence(version_file, f"__version__ = {version!r}, cuda = {cuda!r}")
            )
            if isinstance(values.get("git_version"), str):
                installation.properties["git_version"] = str(values["git_version"])
        dist = env.distribution("torch")
        if dist is not None:
            installation.version = installation.version or dist.version
            installation.evidence.append(
                Evidence(kind="package", source=dist.record_dir, detail=f"torch {dist.version}")
            )
        lib = posixpath.join(package, "lib")
        cuda_library = posixpath.join(lib, "libtorch_cuda.so")
        has_cuda_library = ctx.view.is_file(cuda_library)
        cpu_only = local_tag(installation.version) == "cpu" or (
            installation.cuda is None and not has_cuda_library and installation.version is not None
        )
        installation.properties["cpu_only"] = "yes" if cpu_only else "no"
        installation.properties["environment"] = env.label()
        if has_cuda_library:
            self._loaded_libraries(ctx, cuda_library, installation)
        python_library = posixpath.join(lib, "libtorch_python.so")
        if has_cuda_library and ctx.view.is_file(python_library):
            match = ctx.view.search(python_library, ARCH_LIST)
            if match is not None:
                installation.archs = match.group(1).decode().split()
                installation.evidence.append(
                    Evidence(
                        kind="binary",
                        source=python_library,
                        detail=f"arch list {match.group(1).decode()}",
                        layer=ctx.view.provenance(python_library),
                    )
                )
        return installation

    @staticmethod
    def _loaded_libraries(ctx: ProbeContext, consumer: str, installation: Installation) -> None:
        """Which NCCL, cuDNN and CUDA runtime libtorch_cuda.so would load."""
        dynamic = ctx.view.elf_dynamic(consumer)
        if dynamic is None:
            return
        for key, pattern in TRACKED_LIBRARIES.items():
            needed = next((n for n in dynamic.needed if pattern.match(n)), None)
            if needed is None:
                if key == "nccl":
                    installation.properties["loads_nccl"] = "static"  # linked into libtorch_cuda
                continue
            found = ctx.loader.resolve(ctx.view, needed, consumer, dynamic)
            if found is None:
                installation.properties[f"loads_{key}"] = f"unresolved {needed}"
                continue
            real = ctx.view.resolve(found.path) or found.path
            installation.properties[f"loads_{key}"] = real
            installation.evidence.append(
                Evidence(
                    kind="binary",
                    source=consumer,
                    detail=f"{needed} -> {real} ({found.via.reason})",
                )
            )
