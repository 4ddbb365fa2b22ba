"""Ranking container images (AWS DLC, NGC) for a driver: the target's own, or the driver of the
DLAMI recommended beside them, so that the AMI and the images make one stack.

An image fits when it is built for the CPU architecture, carries code for every GPU (its own arch
list, or that of the official PyTorch wheel it ships), has a CUDA major the GPU still supports and
an NCCL at least the first release for the GPU. Among those, an image with an older PyTorch than
the one asked for is offered only when no image has that release or a newer one, and an image
past its end of patch only when no patched one (or one without a date) fits; either is said so.
Then: images the driver runs before ones that need a newer driver; no known issue of severity
warning or error on this instance before one (an issue the matrix marks unsure is a caution, not
ranked on); natively before CUDA minor-version compatibility;
the PyTorch release asked for; the newest PyTorch; the newest image.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from stackcheck.recommend.issues import stack_issues
from stackcheck.recommend.target import Target
from stackcheck.snapshot.model import ComponentName

NATIVE, MINOR_VERSION, NEEDS_DRIVER = 2, 1, 0


@dataclass(frozen=True)
class Basis:
    """The driver images are ranked for, and where it comes from."""

    driver: str | None
    origin: str  # "the current driver", "DLAMI <name>", ...
    changes_driver: bool = False  # the driver comes with the recommended DLAMI, not the host


@dataclass
class _Fit:
    image: ContainerImage
    level: int  # NATIVE, MINOR_VERSION or NEEDS_DRIVER
    torch_match: bool
    severe_issue: bool
    past_patch: date | None
    min_driver: str | None
    needs_driver: str | None = None
    cautions: list[str] = field(default_factory=list)
    past_gpus: bool = False  # the driver is newer than a GPU's last branch: no image runs on it

    def rank(self) -> tuple[bool, bool, int, bool, bool, Version, date]:
        image = self.image
        return (
            self.level > NEEDS_DRIVER,
            not self.severe_issue,
            self.level,
            self.torch_match,
            self.past_patch is None,
            versions.key(image.torch),
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


def image_stack(image: ContainerImage) -> dict[str, str]:
    fields = {
        "torch": image.torch,
        "cuda": image.cuda,
        "cudnn": image.cudnn,
        "nccl": image.nccl,
        "efa_installer": image.efa,
        "ofi_nccl": image.ofi_nccl,
    }
    return {key: value for key, value in fields.items() if value}


def _fit(
    image: ContainerImage, target: Target, basis: Basis, index: MatrixIndex, past: date | None
) -> _Fit | None:
    """``past``: the image's end of patch when it has passed, else None."""
    if target.cpu_arch and target.cpu_arch not in image.platforms:
        return None
    cautions = _gpu_fit(image, target, index)
    if cautions is None:
        return None
    needs = driver_needs(index, image.cuda)
    full = image.min_driver or needs.full
    level, needs_driver = NATIVE, None
    past_gpus = target.driver_past_gpus(basis.driver)
    if past_gpus:
        # The driver does not drive the GPU at all (SC1406): no image runs on it, whatever CUDA.
        level = NEEDS_DRIVER
    elif basis.driver and needs.floor:
        have = versions.key(basis.driver)
        if have < versions.key(needs.floor):
            level, needs_driver = NEEDS_DRIVER, needs.floor
        elif full and have < versions.key(full):
            level = MINOR_VERSION
            cautions.append(
                f"runs through CUDA minor-version compatibility on driver {basis.driver} (full "
                f"support from {full})"
            )
    found = stack_issues(
        {
            ComponentName.NCCL: image.nccl,
            ComponentName.OFI_NCCL: image.ofi_nccl,
            ComponentName.EFA_INSTALLER: image.efa,
        },
        target,
        index,
    )
    cautions += [f"known issue: {i.describe()}" for i in found]
    if image.unsure or needs.unsure:
        cautions.append("rests on matrix facts marked unsure")
    wanted = target.torch_line
    torch_match = wanted is not None and versions.release(image.torch, 2) == wanted
    return _Fit(
        image,
        level,
        torch_match,
        any(i.severe for i in found),
        past,
        full or needs.floor,
        needs_driver,
        cautions,
        past_gpus,
    )


def _patch_ended(
    images: Sequence[ContainerImage], today: date
) -> Callable[[ContainerImage], date | None]:
    """When an image's patches ended, if they have. Older lines carry no date in the matrix; one
    older than a line whose patches ended has ended too (a newer line outlives an older one)."""
    ended = [i for i in images if i.end_of_patch is not None and i.end_of_patch < today]

    def when(image: ContainerImage) -> date | None:
        if image.end_of_patch is not None:
            return image.end_of_patch if image.end_of_patch < today else None
        if image.torch is None:
            return None
        mine = versions.key(image.torch)
        later = [i.end_of_patch for i in ended if i.end_of_patch and versions.key(i.torch) >= mine]
        return min(later, default=None)

    return when


def _not_older(fit: _Fit, wanted: str | None) -> bool:
    line = versions.release(fit.image.torch, 2)
    return wanted is None or line is None or versions.key(line) >= versions.key(wanted)


def _recommendation(
    kind: str, fit: _Fit, target: Target, basis: Basis, notes: list[str]
) -> Recommendation:
    image = fit.image
    stack = image_stack(image)
    shown = ", ".join(
        f"{label} {stack[key]}"
        for key, label in (
            ("torch", "PyTorch"),
            ("cuda", "CUDA"),
            ("cudnn", "cuDNN"),
            ("nccl", "NCCL"),
            ("efa_installer", "EFA"),
            ("ofi_nccl", "aws-ofi-nccl"),
        )
        if key in stack
    )
    last = target.last_driver_branch
    if fit.past_gpus:
        how = f"does not run on driver {basis.driver} ({basis.origin}): past the GPU's R{last}"
    elif fit.level == NEEDS_DRIVER:
        how = f"needs driver >= {fit.needs_driver}"
    elif basis.driver:
        how = f"runs {'natively' if fit.level == NATIVE else ''} on driver {basis.driver}"
        how = " ".join(how.split()) + f" ({basis.origin})"
    else:
        how = "fits (driver not known)"
    driver_change = []
    up_to = f"; the GPU is supported up to driver branch R{last}" if last else ""
    if fit.needs_driver:
        driver_change = [f"driver {basis.driver} -> >= {fit.needs_driver}{up_to}"]
    elif fit.past_gpus:
        floor = f">= {fit.min_driver} " if fit.min_driver else ""
        driver_change = [
            f"driver {basis.driver} -> {floor}on branch R{last} or older (the GPU's last)"
        ]
    cautions = list(fit.cautions)
    if fit.past_patch:
        when = image.end_of_patch or f"by {fit.past_patch}, as a newer PyTorch line's image was"
        cautions.append(f"past end of patch ({when}): offered because no patched image fits")
    return Recommendation(
        kind=kind,
        name=f"{image.repository}:{image.tag}",
        reason="; ".join([shown, how, *notes]),
        changes=[
            *driver_change,
            *changes(
                ("PyTorch", target.torch, image.torch),
                ("CUDA", target.cuda, image.cuda),
                ("NCCL", target.nccl, image.nccl),
            ),
        ],
        cautions=cautions,
        unsure=image.unsure,
        source=image.source,
        stack=stack,
        min_driver=fit.min_driver,
    )


def rank_images(
    kind: str,
    images: Sequence[ContainerImage],
    target: Target,
    index: MatrixIndex,
    today: date,
    limit: int,
    basis: Basis,
) -> list[Recommendation]:
    """The best ``limit`` images for ``basis``'s driver, best first."""
    ended = _patch_ended(images, today)
    # A base image without PyTorch (the DLC base images) is something to build on, not a
    # training image to run: it is never proposed.
    every = [
        fit
        for image in images
        if image.torch is not None
        and (fit := _fit(image, target, basis, index, ended(image))) is not None
    ]
    wanted = target.torch_line
    fits = [f for f in every if _not_older(f, wanted)] or every
    fits = [f for f in fits if f.level > NEEDS_DRIVER] or fits
    fits = [f for f in fits if f.past_patch is None] or fits
    notes = []
    if wanted and every and not any(f.torch_match for f in fits):
        if any(f.torch_match for f in every):
            notes.append(f"the {kind.upper()} image with PyTorch {wanted} is past end of patch")
        else:
            notes.append(f"no {kind.upper()} image in the matrix that fits has PyTorch {wanted}")
        if not any(_not_older(f, wanted) for f in fits):
            notes.append(f"none has PyTorch {wanted} or newer: an older one")
    chosen = sorted(fits, key=_Fit.rank, reverse=True)[:limit]
    return [_recommendation(kind, f, target, basis, notes) for f in chosen]
