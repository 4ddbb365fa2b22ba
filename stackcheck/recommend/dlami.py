"""Ranking DLAMIs: the AMI families and CPU architecture must fit, the AMI's driver must still
support the GPU (Volta ends with R580) and run the PyTorch build in use, and a PyTorch DLAMI must
not bring an older PyTorch than the one asked for. Then: releases without a known issue of
severity warning or error on this instance, the PyTorch DLAMI for the release asked for,
releases without any known bug, Base DLAMIs (no framework version imposed), newest first."""

from __future__ import annotations

import re
from datetime import date

from stackcheck import versions
from stackcheck.check.model import Recommendation
from stackcheck.matrix.index import MatrixIndex, instance_family
from stackcheck.matrix.models import Dlami
from stackcheck.matrix.requirements import driver_needs
from stackcheck.recommend.changes import changes
from stackcheck.recommend.issues import StackIssue, stack_issues
from stackcheck.recommend.target import Target
from stackcheck.snapshot.model import ComponentName

_TORCH_IN_NAME = re.compile(r"PyTorch (\d+\.\d+)")
# AWS documentation copies in other languages: a locale path segment, or the China mirror.
_TRANSLATED = re.compile(r"docs\.amazonaws\.cn/|docs\.aws\.amazon\.com/[a-z]{2}_[a-z]{2}/")


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


def fits(dlami: Dlami, target: Target, families: set[str], floor: str | None) -> bool:
    """``families``: the instance families with the target's GPUs (``_gpu_families``);
    ``floor``: the lowest driver the target's CUDA needs. Both depend on the target only."""
    if target.cpu_arch and dlami.arch != target.cpu_arch:
        return False
    if target.family and target.family not in dlami.instances:
        return False
    if not target.family and families and not families & set(dlami.instances):
        return False  # AWS does not list an instance with this GPU for the AMI
    if target.driver_past_gpus(dlami.driver):
        return False
    if floor and versions.key(dlami.driver) < versions.key(floor):
        return False
    line, wanted = torch_line(dlami), target.torch_line
    return not (line and wanted and versions.key(line) < versions.key(wanted))


def issues(dlami: Dlami, target: Target, index: MatrixIndex) -> list[StackIssue]:
    stack = {ComponentName.EFA_INSTALLER: dlami.efa, ComponentName.OFI_NCCL: dlami.ofi_nccl}
    return stack_issues(stack, target, index)


def _cautions(dlami: Dlami, target: Target, index: MatrixIndex, today: date) -> list[str]:
    cautions = [f"known issue: {i.describe()}" for i in issues(dlami, target, index)]
    branch = index.driver_branch(dlami.driver)
    if branch is not None and branch.eol is not None and branch.eol < today:
        cautions.append(f"driver branch R{branch.branch} reached end of life on {branch.eol}")
    if dlami.unsure:
        cautions.append("rests on matrix facts marked unsure")
    if _TRANSLATED.search(dlami.source):
        cautions.append("the matrix read this release from a translated copy of AWS's page")
    return cautions


def rank_dlamis(target: Target, index: MatrixIndex) -> list[Dlami]:
    """The newest release of every DLAMI that fits, best first."""
    wanted = target.torch_line

    def rank(dlami: Dlami) -> tuple[bool, bool, bool, bool, bool, str]:
        line = torch_line(dlami)
        found = issues(dlami, target, index)
        # Where nothing names the CPU architecture, x86_64 first: every GPU instance family but
        # g5g and the Grace ones is, and an ARM AMI may not even boot where the text came from.
        # Then the PyTorch DLAMI asked for; else a Base DLAMI, which imposes no framework version.
        return (
            target.cpu_arch is not None or dlami.arch == "x86_64",
            not any(i.severe for i in found),
            wanted is not None and line == wanted,
            not found,
            line is None,
            dlami.release,
        )

    families = _gpu_families(target, index)
    floor = driver_needs(index, target.cuda).floor if target.cuda else None
    releases = newest_releases(index.matrix.dlami)
    fitting = [d for d in releases if fits(d, target, families, floor)]
    return sorted(fitting, key=rank, reverse=True)


def ami_name(dlami: Dlami) -> str:
    """The exact AMI name: the DLAMI's name and its release date, as AWS names them."""
    return f"{dlami.name} {dlami.release}"


def get_command(dlami: Dlami) -> str:
    """How to find the AMI ID: its SSM public parameter (the newest release), else by exact
    name (this release)."""
    if dlami.ssm_parameter:
        return (
            f"aws ssm get-parameter --name {dlami.ssm_parameter} --query Parameter.Value "
            f"--output text  (the newest release; the matrix read {dlami.release})"
        )
    return (
        "aws ec2 describe-images --owners amazon --filters "
        f"'Name=name,Values={ami_name(dlami)}' --query 'Images[].ImageId' --output text"
    )


def dlami_stack(dlami: Dlami) -> dict[str, str]:
    cuda = dlami.cuda_default or (dlami.cuda[-1] if dlami.cuda else None)
    fields = {
        "driver": dlami.driver,
        "cuda": cuda,
        "torch": dlami.torch,
        "efa_installer": dlami.efa,
        "ofi_nccl": dlami.ofi_nccl,
    }
    return {key: value for key, value in fields.items() if value}


def dlami_recommendation(
    dlami: Dlami, target: Target, index: MatrixIndex, today: date
) -> Recommendation:
    where = f"{target.family} instances" if target.family else "this stack"
    line = torch_line(dlami)
    what = f"PyTorch {line} DLAMI" if line else "Base DLAMI"
    return Recommendation(
        kind="dlami",
        name=ami_name(dlami),
        reason=f"{what} for {where} ({dlami.os}, {dlami.arch}): driver "
        f"{dlami.driver}, CUDA {', '.join(dlami.cuda) or 'n/a'}, EFA {dlami.efa or 'n/a'}, "
        f"aws-ofi-nccl {dlami.ofi_nccl or 'n/a'}",
        changes=changes(
            ("driver", target.driver, dlami.driver),
            ("EFA installer", target.efa, dlami.efa),
            ("aws-ofi-nccl", target.ofi_nccl, dlami.ofi_nccl),
        ),
        cautions=_cautions(dlami, target, index, today),
        unsure=dlami.unsure,
        source=dlami.source,
        stack=dlami_stack(dlami),
        get=get_command(dlami),
    )
