"""Family ``cudnn`` (support): does the cuDNN build support this GPU, and this driver?

NVIDIA's cuDNN support matrix lists, per release and CUDA-major build, the compute capabilities
and the minimum driver. A release may have several rows for one CUDA major (9.10.2 supports
Blackwell only in its CUDA 12.8/12.9 build, which needs a newer driver than the rest).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from stackcheck import versions
from stackcheck.archs import runs_on
from stackcheck.check.context import CheckContext, GpuFacts
from stackcheck.check.model import Finding, Severity
from stackcheck.matrix.models import CudnnBuild, CudnnRelease
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.snapshot.model import ComponentName, Installation


def covers(build: CudnnBuild, compute_capability: str) -> bool:
    """A listed capability, or a lower one of the same major (cubins are binary compatible)."""
    cubins = [f"sm_{cc.replace('.', '')}" for cc in build.compute_capabilities]
    return runs_on(cubins, compute_capability) == "sass"


@dataclass(frozen=True)
class _CudnnOnGpu:
    cudnn: Installation
    release: CudnnRelease
    builds: list[CudnnBuild]  # the rows for the cuDNN's CUDA major
    gpu: GpuFacts
    compute_capability: str

    @property
    def covering(self) -> list[CudnnBuild]:
        return [b for b in self.builds if covers(b, self.compute_capability)]

    def label(self) -> str:
        majors = sorted({b.cuda_major for b in self.builds})
        build = f"CUDA {'/'.join(str(m) for m in majors)} build"
        return f"cuDNN {self.cudnn.version} ({build}) at {self.cudnn.path}"


def _pairs(ctx: CheckContext) -> Iterator[_CudnnOnGpu]:
    """Each cuDNN the matrix knows, with each GPU whose compute capability is known."""
    for cudnn in ctx.installations(ComponentName.CUDNN):
        release = ctx.matrix.cudnn_release(cudnn.version)
        if release is None:
            continue
        major = versions.major(cudnn.cuda)
        builds = [b for b in release.builds if major is None or b.cuda_major == major]
        if not builds:
            continue
        for gpu in ctx.gpus:
            if gpu.compute_capability:
                yield _CudnnOnGpu(cudnn, release, builds, gpu, gpu.compute_capability)


class CudnnGpuUnsupported(Rule):
    id = "SC321"
    name = "cudnn-gpu-unsupported"
    family = "cudnn"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "cuDNN build does not support the GPU"
    doc = RuleDoc(
        what="Looks up each cuDNN found in the matrix (by release, and the CUDA major it is "
        "built for) and checks that one of its builds lists the GPU's compute capability, or a "
        "lower one of the same major.",
        why="cuDNN carries kernels for the architectures it supports only. On another GPU, "
        "convolutions and attention fail with CUDNN_STATUS_ARCH_MISMATCH or "
        "CUDNN_STATUS_NOT_SUPPORTED, or PyTorch silently falls back to slower paths.",
        example="cuDNN 9.17.0 (its CUDA 12 and 13 builds start at compute capability 7.5) on a "
        "p3 instance's V100 (7.0).",
        fix="Use a cuDNN release whose support matrix includes the GPU (for Volta, cuDNN 9.10 or "
        "older with CUDA 12), or move to a GPU the release supports.",
        references=(
            "https://docs.nvidia.com/deeplearning/cudnn/backend/latest/reference/support-matrix.html",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for pair in _pairs(ctx):
            if pair.covering:
                continue
            listed = sorted(
                {cc for b in pair.builds for cc in b.compute_capabilities}, key=versions.key
            )
            yield self.finding(
                f"{pair.label()} supports compute capabilities {', '.join(listed)}; the "
                f"{pair.gpu.name} is {pair.compute_capability}.",
                [*pair.cudnn.evidence, *pair.gpu.evidence[:1]],
                severity=self.capped(pair.release.unsure),
            )


class CudnnDriverTooOld(Rule):
    id = "SC322"
    name = "cudnn-driver-too-old"
    family = "cudnn"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "Driver too old for the cuDNN build that supports the GPU"
    doc = RuleDoc(
        what="For a GPU that only some builds of the installed cuDNN support, checks the driver "
        "against the lowest minimum driver of those builds. Drivers below the CUDA major's own "
        "floor are left to SC101.",
        why="The build that carries the GPU's kernels may need a newer driver than the CUDA "
        "major does: cuDNN 9.10.2 supports Blackwell only in its CUDA 12.8/12.9 build, which "
        "needs driver 570.26. On an older driver cuDNN fails to initialise on that GPU.",
        example="cuDNN 9.10.2 for CUDA 12 on a B200 with driver 550.54.15: the driver runs CUDA "
        "12 (floor 525.60.13) but not the Blackwell build.",
        fix="Upgrade the driver to at least the version named (a current DLAMI brings R580 or "
        "newer).",
        references=(
            "https://docs.nvidia.com/deeplearning/cudnn/backend/latest/reference/support-matrix.html",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        driver = ctx.driver
        if driver is None:
            return
        for pair in _pairs(ctx):
            needs = [b.min_driver for b in pair.covering if b.min_driver]
            if not needs:
                continue
            need = min(needs, key=versions.key)
            floors = [ctx.matrix.cuda_major(b.cuda_major) for b in pair.covering]
            floor = min((f.min_driver for f in floors if f), default=None, key=versions.key)
            if ctx.version_at_least(driver.version, need) is not False:
                continue
            if floor is not None and ctx.version_at_least(driver.version, floor) is False:
                continue  # below the CUDA major's floor: SC101's finding
            yield self.finding(
                f"{pair.label()} supports the {pair.gpu.name} (compute capability "
                f"{pair.compute_capability}) only in a build that needs driver >= {need}; the "
                f"driver is {driver.version}.",
                [*driver.evidence, *pair.cudnn.evidence, *pair.gpu.evidence[:1]],
                severity=self.capped(pair.release.unsure),
            )
