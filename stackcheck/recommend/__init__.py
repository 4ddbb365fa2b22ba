"""Recommendations: the DLAMI, AWS DLC image and NGC image that fit this GPU, instance and driver.

Candidates come from the matrix alone. Each says why it fits and what it would change.
"""

from __future__ import annotations

import re

from packaging.version import Version

from stackcheck import versions
from stackcheck.archs import runs_on
from stackcheck.check.context import CheckContext
from stackcheck.check.model import Recommendation
from stackcheck.matrix.models import ContainerImage, Dlami
from stackcheck.snapshot.model import ComponentName

_FAMILY = re.compile(r"^([a-z0-9]+(?:-[a-z0-9]+)?)\.")


def instance_family(instance_type: str | None) -> str | None:
    """``p5en.48xlarge`` -> ``p5en``; ``p6-b200.48xlarge`` -> ``p6-b200``."""
    match = _FAMILY.match((instance_type or "").lower())
    return match.group(1) if match else None


def _first_version(ctx: CheckContext, name: ComponentName) -> str | None:
    return next((i.version for i in ctx.installations(name) if i.version), None)


def _change(label: str, have: str | None, get: str | None, missing: str) -> str | None:
    if not get or have == get:
        return None
    return f"{label} {have or missing} -> {get}"


def _dlami(ctx: CheckContext, family: str | None, arch: str | None) -> Recommendation | None:
    fitting: list[Dlami] = [
        d
        for d in ctx.matrix.matrix.dlami
        if (arch is None or d.arch == arch) and (family is None or family in d.instances)
    ]
    if not fitting:
        return None
    best = max(fitting, key=lambda d: (d.release, "Base" in d.name))
    driver = ctx.driver.version if ctx.driver else None
    missing = "unknown" if ctx.snapshot.partial else "none"  # a text's silence is not absence
    changes = [
        c
        for c in (
            _change("driver", driver, best.driver, missing),
            _change(
                "EFA installer",
                _first_version(ctx, ComponentName.EFA_INSTALLER),
                best.efa,
                missing,
            ),
            _change(
                "aws-ofi-nccl", _first_version(ctx, ComponentName.OFI_NCCL), best.ofi_nccl, missing
            ),
        )
        if c
    ]
    where = f"{family} instances" if family else "this architecture"
    return Recommendation(
        kind="dlami",
        name=f"{best.name} {best.release}",
        reason=f"newest DLAMI in the matrix for {where}: driver {best.driver}, "
        f"CUDA {', '.join(best.cuda) or 'n/a'}, EFA {best.efa or 'n/a'}",
        changes=changes,
        source=best.source,
    )


def _image(ctx: CheckContext, kind: str, images: list[ContainerImage]) -> Recommendation | None:
    driver = ctx.driver.version if ctx.driver else None
    ccs = [g.compute_capability for g in ctx.gpus if g.compute_capability]

    def fits(image: ContainerImage) -> bool:
        need = image.min_driver
        if need is None and image.cuda:
            major = ctx.matrix.cuda_major(versions.major(image.cuda))
            need = major.min_driver if major else None
        if driver and need and ctx.version_at_least(driver, need) is False:
            return False
        return not (image.archs and any(runs_on(image.archs, cc) == "none" for cc in ccs))

    fitting = [i for i in images if fits(i)]
    if not fitting:
        return None
    best = max(
        fitting, key=lambda i: (versions.parse(i.torch) or Version("0"), i.released or i.checked)
    )
    return Recommendation(
        kind=kind,
        name=f"{best.repository}:{best.tag}",
        reason=f"newest {kind.upper()} PyTorch image in the matrix that "
        + ("this driver runs" if driver else "fits")
        + f": PyTorch {best.torch or '?'}, CUDA {best.cuda or '?'}, NCCL {best.nccl or '?'}",
        source=best.source,
    )


def recommend(ctx: CheckContext) -> list[Recommendation]:
    snapshot = ctx.snapshot
    if snapshot.partial and not (snapshot.instance.type or ctx.gpus or ctx.driver):
        return []  # a text that names no machine: any AMI or image would be a guess
    family = instance_family(snapshot.instance.type)
    arch = snapshot.platform.machine
    found = [
        _dlami(ctx, family, arch),
        _image(ctx, "dlc", list(ctx.matrix.matrix.dlc)),
        _image(ctx, "ngc", list(ctx.matrix.matrix.ngc)),
    ]
    return [r for r in found if r is not None]
