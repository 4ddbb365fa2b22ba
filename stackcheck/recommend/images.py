"""Ranking container images (AWS DLC, NGC).

An image fits when it is built for the CPU architecture, carries code for every GPU (its own arch
list, or that of the official PyTorch wheel it ships), has a CUDA major the GPU still supports and
an NCCL at least the first release for the GPU, and the host driver runs its CUDA: natively, or
through minor-version compatibility. Images whose CUDA the driver cannot run are offered only
when nothing else fits, with the driver they need. Then: the PyTorch release asked for, images
known to be still patched, the newest PyTorch, native before minor-version compatibility, the
newest image.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from packaging.version import Version

from stackcheck import versions
from stackcheck.archs import runs_on
from stackcheck.check.model import Recommendation
from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.models import ContainerImage
from stackcheck.matrix.requirements import driver_needs
from stackcheck.recommend.changes import changes
from stackcheck.recommend.target import Target

NATIVE, MINOR_VERSION, NEEDS_DRIVER = 2, 1, 0


@dataclass
class _Fit:
    image: ContainerImage
    level: int  # NATIVE, MINOR_VERSION or NEEDS_DRIVER
    torch_match: bool
    supported: bool
    needs_driver: str | None = None
    cautions: list[str] = field(default_factory=list)

    def rank(self) -> tuple[bool, bool, bool, Version, int, date]:
        image = self.image
        return (
            self.level > NEEDS_DRIVER,
            self.torch_match,
            self.supported,
            versions.key(image.torch),
            self.level,
            image.released or image.checked,
        )


def image_archs(image: ContainerImage, index: MatrixIndex) -> list[str]:
    """The GPU code the image's PyTorch carries: its own list, else the official wheel's."""
    if image.archs or image.torch_build != "official":
        return image.archs
    variant = index.torch_variant(image.torch, image.torch_cuda or image.cuda)
    return variant.archs if variant else []


def _gpu_fit(image: ContainerImage, target: Target, index: MatrixIndex) -> list[str] | None:
    """Cautions for the target's GPUs, or None when the image cannot run on one of them."""
    cautions = []
    archs = image_archs(image, index)
    cuda_major = versions.major(image.cuda)
    for gpu in target.gpus:
        known = gpu.known
        if known and known.last_cuda_major and cuda_major and cuda_major > known.last_cuda_major:
            return None
        first = index.nccl_first_for(known) if known else None
        if first and image.nccl and versions.key(image.nccl) < versions.key(first.version):
            return None
        if not gpu.compute_capability:
            continue
        code = runs_on(archs, gpu.compute_capability) if archs else None
        if code == "none":
            return None
        if code == "ptx":
            cautions.append(f"the {gpu.name} runs it only through PTX JIT compilation")
        elif code is None:
            cautions.append(f"the image's GPU architectures are not in the matrix ({gpu.name})")
    return cautions


def _fit(image: ContainerImage, target: Target, index: MatrixIndex, today: date) -> _Fit | None:
    if target.cpu_arch and target.cpu_arch not in image.platforms:
        return None
    cautions = _gpu_fit(image, target, index)
    if cautions is None:
        return None
    needs = driver_needs(index, image.cuda)
    full = image.min_driver or needs.full
    level, needs_driver = NATIVE, None
    if target.driver and needs.floor:
        have = versions.key(target.driver)
        if have < versions.key(needs.floor):
            level, needs_driver = NEEDS_DRIVER, needs.floor
        elif full and have < versions.key(full):
            level = MINOR_VERSION
            cautions.append(
                f"runs through CUDA minor-version compatibility on driver {target.driver} (full "
                f"support from {full})"
            )
    # Supported only when the matrix knows it is still patched; older lines carry no date.
    supported = image.end_of_patch is not None and image.end_of_patch >= today
    if image.end_of_patch is not None and not supported:
        cautions.append(f"past end of patch ({image.end_of_patch})")
    if image.unsure or needs.unsure:
        cautions.append("rests on matrix facts marked unsure")
    wanted = target.torch_line
    torch_match = wanted is not None and versions.release(image.torch, 2) == wanted
    return _Fit(image, level, torch_match, supported, needs_driver, cautions)


def _recommendation(
    kind: str, fit: _Fit, target: Target, driver_source: tuple[str, str] | None
) -> Recommendation:
    image = fit.image
    stack = ", ".join(
        f"{label} {value}"
        for label, value in (
            ("PyTorch", image.torch),
            ("CUDA", image.cuda),
            ("cuDNN", image.cudnn),
            ("NCCL", image.nccl),
            ("EFA", image.efa),
            ("aws-ofi-nccl", image.ofi_nccl),
        )
        if value
    )
    if fit.level == NEEDS_DRIVER:
        how = f"needs driver >= {fit.needs_driver}"
    elif target.driver:
        how = f"runs on driver {target.driver}"
    else:
        how = "fits (driver not known)"
    if target.torch_line and not fit.torch_match:
        how += f"; no {kind.upper()} image in the matrix has PyTorch {target.torch_line}"
    driver_change = []
    if fit.needs_driver:
        via = f" ({driver_source[0]} brings {driver_source[1]})" if driver_source else ""
        driver_change = [f"driver {target.driver} -> >= {fit.needs_driver}{via}"]
    return Recommendation(
        kind=kind,
        name=f"{image.repository}:{image.tag}",
        reason=f"{stack}; {how}",
        changes=[
            *driver_change,
            *changes(
                ("PyTorch", target.torch, image.torch),
                ("CUDA", target.cuda, image.cuda),
                ("NCCL", target.nccl, image.nccl),
            ),
        ],
        cautions=fit.cautions,
        unsure=image.unsure,
        source=image.source,
    )


def rank_images(
    kind: str,
    images: Sequence[ContainerImage],
    target: Target,
    index: MatrixIndex,
    today: date,
    limit: int,
    driver_source: tuple[str, str] | None = None,
) -> list[Recommendation]:
    """The best ``limit`` images, best first. ``driver_source`` names where a newer driver comes
    from (the top DLAMI and its driver), for images that need one."""
    fits = [f for f in (_fit(i, target, index, today) for i in images) if f is not None]
    runnable = [f for f in fits if f.level > NEEDS_DRIVER]
    chosen = sorted(runnable or fits, key=_Fit.rank, reverse=True)[:limit]
    return [_recommendation(kind, f, target, driver_source) for f in chosen]
