"""Questions rules ask the matrix. Lookups only: no compatibility logic lives here."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property
from typing import TypeVar

from packaging.version import Version

from stackcheck import versions
from stackcheck.matrix.models import (
    ContainerImage,
    CudaMajor,
    CudaRelease,
    CudnnRelease,
    DriverBranch,
    EfaInstaller,
    Fact,
    Gpu,
    GpuLink,
    Instance,
    KnownIssue,
    Matrix,
    NcclRelease,
    NonGpuFamily,
    OfiNcclRelease,
    TensorrtFloor,
    TorchRelease,
    TorchVariant,
    WithKnownIssues,
    Xid,
)

_Versioned = TypeVar("_Versioned", CudnnRelease, NcclRelease, OfiNcclRelease, EfaInstaller)


_FAMILY = re.compile(r"^([a-z0-9]+(?:-[a-z0-9]+)?)\.")


def instance_family(instance_type: str | None) -> str | None:
    """``p5en.48xlarge`` -> ``p5en``; ``p6-b200.48xlarge`` -> ``p6-b200``."""
    match = _FAMILY.match((instance_type or "").lower())
    return match.group(1) if match else None


def _by_release(version: str | None, parts: int) -> str | None:
    return versions.release(version, parts)


class MatrixIndex:
    def __init__(self, matrix: Matrix) -> None:
        self.matrix = matrix

    @property
    def version(self) -> str:
        return self.matrix.version

    # -- GPUs and instances --------------------------------------------------------------------
    def gpu(self, name: str | None) -> Gpu | None:
        """The GPU named ``name``, else the one whose longest ``match`` string appears in it."""
        if not name:
            return None
        lowered = name.lower()
        exact = next((g for g in self.matrix.gpu if g.name.lower() == lowered), None)
        if exact is not None:
            return exact
        best: tuple[int, Gpu] | None = None
        for gpu in self.matrix.gpu:
            for needle in gpu.match:
                if needle.lower() in lowered and (best is None or len(needle) > best[0]):
                    best = (len(needle), gpu)
        return best[1] if best else None

    def instance(self, type_: str | None) -> Instance | None:
        if not type_:
            return None
        return next((i for i in self.matrix.instance if i.type == type_.strip().lower()), None)

    def non_gpu_family(self, type_: str | None) -> NonGpuFamily | None:
        """The entry naming ``type_``'s family as one without an NVIDIA GPU (``inf1.xlarge``:
        AWS Inferentia); None where the family has one or the matrix does not know it."""
        family = instance_family(type_)
        return next((f for f in self.matrix.non_gpu_family if family in f.families), None)

    def gpu_link(self, name: str | None) -> GpuLink | None:
        """The expected links of the GPU model ``name`` (any name :meth:`gpu` knows)."""
        gpu = self.gpu(name)
        if gpu is None:
            return None
        return next((g for g in self.matrix.gpu_link if g.gpu == gpu.name), None)

    def xid(self, code: int) -> Xid | None:
        return next((x for x in self.matrix.xid if x.code == code), None)

    # -- CUDA and the driver -------------------------------------------------------------------
    def cuda_major(self, major: int | None) -> CudaMajor | None:
        return next((m for m in self.matrix.cuda_major if m.major == major), None)

    def cuda_release(self, version: str | None) -> CudaRelease | None:
        """The release entry for a CUDA version: exact if listed, else its major.minor line."""
        if versions.parse(version) is None:
            return None
        exact = [
            r
            for r in self.matrix.cuda_release
            if versions.parse(r.version) == versions.parse(version)
        ]
        if exact:
            return exact[0]
        minor = _by_release(version, 2)
        line = [r for r in self.matrix.cuda_release if _by_release(r.version, 2) == minor]
        # The GA entry of the line is the floor every update of it needs at least.
        return min(line, key=lambda r: versions.parse(r.version) or Version("0"), default=None)

    def driver_branch(self, driver: str | None) -> DriverBranch | None:
        major = versions.major(driver)
        return next((b for b in self.matrix.driver_branch if b.branch == major), None)

    def newest_cuda_for_driver(self, driver: str | None) -> CudaRelease | None:
        """The newest CUDA release whose minimum driver this driver meets."""
        have = versions.parse(driver)
        if have is None:
            return None
        fitting = [
            r for r in self.matrix.cuda_release if (versions.parse(r.min_driver) or have) <= have
        ]
        return max(fitting, key=lambda r: versions.parse(r.version) or Version("0"), default=None)

    # -- libraries and frameworks ----------------------------------------------------------------
    def torch_release(self, version: str | None) -> TorchRelease | None:
        line = _by_release(version, 2)
        return next((t for t in self.matrix.torch if _by_release(t.version, 2) == line), None)

    def torch_variant(self, version: str | None, cuda: str | None) -> TorchVariant | None:
        release = self.torch_release(version)
        if release is None or cuda is None:
            return None
        wanted = _by_release(cuda, 2)
        return next((v for v in release.variants if _by_release(v.cuda, 2) == wanted), None)

    def cudnn_release(self, version: str | None) -> CudnnRelease | None:
        return self._by_version(self.matrix.cudnn, version, 3) or self._by_version(
            self.matrix.cudnn, version, 2
        )

    def nccl_release(self, version: str | None) -> NcclRelease | None:
        return self._by_version(self.matrix.nccl, version, 3)

    def ofi_nccl_release(self, version: str | None) -> OfiNcclRelease | None:
        return self._by_version(self.matrix.ofi_nccl, version, 3)

    def efa_installer(self, version: str | None) -> EfaInstaller | None:
        return self._by_version(self.matrix.efa_installer, version, 3)

    def tensorrt_floor(self, version: str | None) -> TensorrtFloor | None:
        """The GPU floor in force at TensorRT ``version``: the latest floor whose first release
        is not newer than it."""
        have = versions.parse(version)
        if have is None:
            return None
        floors = [f for f in self.matrix.tensorrt if versions.key(f.version) <= have]
        return max(floors, key=lambda f: versions.key(f.version), default=None)

    def nccl_first_for(self, gpu: Gpu) -> NcclRelease | None:
        """The oldest NCCL release that names ``gpu`` (or its architecture) as newly supported."""
        firsts = [r for r in self.matrix.nccl if r.new_gpus and gpu.is_any(r.new_gpus)]
        return min(firsts, key=lambda r: versions.key(r.version), default=None)

    @cached_property
    def images(self) -> list[ContainerImage]:
        return [*self.matrix.dlc, *self.matrix.ngc]

    @staticmethod
    def known_issues(table: Sequence[WithKnownIssues]) -> list[tuple[KnownIssue, Fact]]:
        """Every known issue of a table with the entry it is listed under. An issue applies to
        the versions its ``affected`` specifier names, whichever entry lists it."""
        return [(issue, entry) for entry in table for issue in entry.known_issues]

    @staticmethod
    def _by_version(table: list[_Versioned], version: str | None, parts: int) -> _Versioned | None:
        wanted = _by_release(version, parts)
        if wanted is None:
            return None
        return next((e for e in table if _by_release(e.version, parts) == wanted), None)
