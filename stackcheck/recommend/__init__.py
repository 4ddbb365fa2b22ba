"""Recommendations: the DLAMI, AWS DLC image and NGC image that fit this GPU, instance and driver.

Candidates come from the matrix alone. Each says why it fits and what it would change; the
host and image reports end with the best of each kind, and `stackcheck recommend` lists more.
"""

from __future__ import annotations

from datetime import date

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Recommendation
from stackcheck.matrix.index import MatrixIndex
from stackcheck.recommend.dlami import dlami_recommendation, rank_dlamis
from stackcheck.recommend.images import rank_images
from stackcheck.recommend.target import Target, target_from_context, with_overrides
from stackcheck.snapshot.model import Snapshot

KINDS = ("dlami", "dlc", "ngc")


def recommend_for(
    target: Target, index: MatrixIndex, today: date, limit: int = 3
) -> dict[str, list[Recommendation]]:
    """Up to ``limit`` recommendations of each kind, best first."""
    dlamis = rank_dlamis(target, index)[:limit]
    # Images the host driver cannot run say which DLAMI brings a driver that can.
    driver_source = (
        (f"DLAMI {dlamis[0].name} {dlamis[0].release}", dlamis[0].driver) if dlamis else None
    )
    return {
        "dlami": [dlami_recommendation(d, target, index, today) for d in dlamis],
        "dlc": rank_images("dlc", index.matrix.dlc, target, index, today, limit, driver_source),
        "ngc": rank_images("ngc", index.matrix.ngc, target, index, today, limit, driver_source),
    }


def no_gpu_stack(snapshot: Snapshot) -> bool:
    """A host (or tree) with no GPU and no known instance type: a GPU AMI or image fits nothing
    that was found."""
    return (
        snapshot.source.kind in ("host", "root")
        and not snapshot.gpus.devices
        and not snapshot.instance.type
    )


def recommend(ctx: CheckContext, today: date) -> list[Recommendation]:
    """The best of each kind for a checked snapshot: images first for an image, else the AMI."""
    snapshot = ctx.snapshot
    if snapshot.partial and not (snapshot.instance.type or ctx.gpus or ctx.driver):
        return []  # a text that names no machine: any AMI or image would be a guess
    if no_gpu_stack(snapshot):
        return []
    target = target_from_context(ctx)
    found = recommend_for(target, ctx.matrix, today, limit=1)
    order = ("dlc", "ngc", "dlami") if target.image else KINDS
    return [r for kind in order for r in found[kind]]


__all__ = [
    "KINDS",
    "Target",
    "no_gpu_stack",
    "recommend",
    "recommend_for",
    "target_from_context",
    "with_overrides",
]
