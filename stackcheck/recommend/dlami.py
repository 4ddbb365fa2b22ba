"""Ranking DLAMIs: the AMI families and CPU architecture must fit, the AMI's driver must still
support the GPU (Volta ends with R580) and run the PyTorch build in use; then the PyTorch DLAMI
for the release asked for, else Base DLAMIs (no framework version imposed), newest first."""

from __future__ import annotations

import re
from datetime import date

from stackcheck import versions
from stackcheck.check.model import Recommendation
from stackcheck.matrix.index import MatrixIndex, instance_family
from stackcheck.matrix.models import Dlami
from stackcheck.matrix.requirements import driver_needs
from stackcheck.recommend.changes import changes
from stackcheck.recommend.target import Target

_TORCH_IN_NAME = re.compile(r"PyTorch (\d+\.\d+)")


def torch_line(dlami: Dlami) -> str | None:
    match = _TORCH_IN_NAME.search(dlami.name)
    return versions.release(dlami.torch, 2) or (match.group(1) if match else None)


def newest_releases(dlamis: list[Dlami]) -> list[Dlami]:
    """The newest release of each DLAMI (name and architecture)."""
    newest: dict[tuple[str, str], Dlami] = {}
    for dlami in dlamis:
        key = (dlami.name, dlami.arch)
        if key not in newest or dlami.release > newest[key].release:
            newest[key] = dlami
    return list(newest.values())


def _gpu_families(target: Target, index: MatrixIndex) -> set[str]:
    """The instance families that carry the target's GPUs (empty: none known)."""
    names = {g.known.name for g in target.gpus if g.known}
    return {
        family
        for i in index.matrix.instance
        if i.gpu in names and (family := instance_family(i.type))
    }


def fits(dlami: Dlami, target: Target, index: MatrixIndex) -> bool:
    if target.cpu_arch and dlami.arch != target.cpu_arch:
        return False
    if target.family and target.family not in dlami.instances:
        return False
    families = _gpu_families(target, index)
    if not target.family and families and not families & set(dlami.instances):
        return False  # AWS does not list an instance with this GPU for the AMI
    branch = versions.major(dlami.driver)
    for gpu in target.gpus:
        last = gpu.known.last_driver_branch if gpu.known else None
        if last is not None and branch is not None and branch > last:
            return False
    floor = driver_needs(index, target.cuda).floor if target.cuda else None
    return not (floor and versions.key(dlami.driver) < versions.key(floor))


def _cautions(dlami: Dlami, index: MatrixIndex, today: date) -> list[str]:
    cautions = []
    branch = index.driver_branch(dlami.driver)
    if branch is not None and branch.eol is not None and branch.eol < today:
        cautions.append(f"driver branch R{branch.branch} reached end of life on {branch.eol}")
    if dlami.unsure:
        cautions.append("rests on matrix facts marked unsure")
    return cautions


def rank_dlamis(target: Target, index: MatrixIndex) -> list[Dlami]:
    """The newest release of every DLAMI that fits, best first."""
    wanted = target.torch_line

    def rank(dlami: Dlami) -> tuple[bool, bool, str]:
        line = torch_line(dlami)
        # The PyTorch DLAMI asked for; else a Base DLAMI, which imposes no framework version.
        return (wanted is not None and line == wanted, line is None, dlami.release)

    fitting = [d for d in newest_releases(index.matrix.dlami) if fits(d, target, index)]
    return sorted(fitting, key=rank, reverse=True)


def dlami_recommendation(
    dlami: Dlami, target: Target, index: MatrixIndex, today: date
) -> Recommendation:
    where = f"{target.family} instances" if target.family else "this stack"
    line = torch_line(dlami)
    what = f"PyTorch {line} DLAMI" if line else "Base DLAMI"
    pattern = f"; AMI name {dlami.ami_name_pattern!r}" if dlami.ami_name_pattern else ""
    return Recommendation(
        kind="dlami",
        name=f"{dlami.name} {dlami.release}",
        reason=f"newest {what} in the matrix for {where} ({dlami.os}, {dlami.arch}): driver "
        f"{dlami.driver}, CUDA {', '.join(dlami.cuda) or 'n/a'}, EFA {dlami.efa or 'n/a'}, "
        f"aws-ofi-nccl {dlami.ofi_nccl or 'n/a'}{pattern}",
        changes=changes(
            ("driver", target.driver, dlami.driver),
            ("EFA installer", target.efa, dlami.efa),
            ("aws-ofi-nccl", target.ofi_nccl, dlami.ofi_nccl),
        ),
        cautions=_cautions(dlami, index, today),
        unsure=dlami.unsure,
        source=dlami.source,
    )
