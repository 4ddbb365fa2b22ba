"""Recommendations: one target stack, the DLAMI and the AWS DLC and NGC images that run on it.

Candidates come from the matrix alone. The images are ranked for the driver of the DLAMI
recommended first, so that the AMI and the images make one stack; with ``keep_driver`` (the user
keeps their AMI) or no DLAMI that fits, for the current driver instead, and the advice says which.
The host and image reports end with the best of each kind, and `stackcheck recommend` lists more.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Recommendation
from stackcheck.matrix.index import MatrixIndex
from stackcheck.recommend.dlami import dlami_recommendation, rank_dlamis
from stackcheck.recommend.images import Basis, rank_images
from stackcheck.recommend.target import Target, target_from_context, with_overrides
from stackcheck.snapshot.model import Snapshot

KINDS = ("dlami", "dlc", "ngc")


@dataclass(frozen=True)
class Advice:
    basis: Basis  # the driver the images are ranked for
    found: dict[str, list[Recommendation]]  # kind -> recommendations, best first

    def __getitem__(self, kind: str) -> list[Recommendation]:
        return self.found[kind]


def _basis(target: Target, top: Recommendation | None, keep_driver: bool) -> Basis:
    if keep_driver or top is None or "driver" not in top.stack:
        origin = "the current driver, kept" if keep_driver else "the current driver"
        if top is None and not keep_driver:
            origin += "; no DLAMI in the matrix fits"
        return Basis(target.driver, origin)
    driver = top.stack["driver"]
    return Basis(driver, f"the driver of DLAMI {top.name}", driver != target.driver)


def recommend_for(
    target: Target,
    index: MatrixIndex,
    today: date,
    limit: int = 3,
    keep_driver: bool = False,
) -> Advice:
    """Up to ``limit`` recommendations of each kind, best first, as one stack."""
    # Only the DLAMIs shown are built (the top one decides the basis even when none is shown).
    shown = [] if keep_driver else rank_dlamis(target, index)[: max(limit, 1)]
    dlamis = [dlami_recommendation(d, target, index, today) for d in shown]
    basis = _basis(target, dlamis[0] if dlamis else None, keep_driver)
    return Advice(
        basis,
        {
            "dlami": dlamis[:limit],
            "dlc": rank_images("dlc", index.matrix.dlc, target, index, today, limit, basis),
            "ngc": rank_images("ngc", index.matrix.ngc, target, index, today, limit, basis),
        },
    )


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
    "Advice",
    "Target",
    "no_gpu_stack",
    "recommend",
    "recommend_for",
    "target_from_context",
    "with_overrides",
]
