"""Family ``matrix-unknown``: versions the matrix does not know are reported, never guessed at."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from stackcheck import versions
from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.snapshot.model import ComponentName


class NotInMatrix(Rule):
    id = "SC901"
    name = "not-in-matrix"
    family = "matrix-unknown"
    severity = Severity.INFO
    title = "Version not in the compatibility matrix"
    doc = RuleDoc(
        what="Lists components whose version or model the bundled matrix has no entry for: a "
        "GPU model, a CUDA major or release, a PyTorch release or wheel variant, an instance "
        "type, an NCCL, cuDNN, aws-ofi-nccl or EFA installer release.",
        why="Rules that need a fact the matrix lacks stay silent rather than guess, so these "
        "parts of the stack went unchecked.",
        example="A GPU reported as `NVIDIA H20` while the matrix knows H100 and H200.",
        fix="Update stackcheck for a newer matrix, or add the facts in a user matrix "
        "directory (`--matrix-dir`, same TOML schema, each entry with its source).",
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for gpu in ctx.gpus:
            if gpu.known is None:
                yield self.finding(f"GPU {gpu.name!r} is not in the matrix.", gpu.evidence[:1])
        majors: set[int] = set()
        for consumer in ctx.cuda_consumers:
            major = versions.major(consumer.cuda)
            if major is not None and ctx.matrix.cuda_major(major) is None and major not in majors:
                majors.add(major)
                yield self.finding(
                    f"CUDA {major}.x is not in the matrix ({consumer.label}).",
                    consumer.evidence[:1],
                )
            elif ctx.matrix.cuda_release(consumer.cuda) is None:
                yield self.finding(
                    f"CUDA {consumer.cuda} has no release entry; only its major's floor was "
                    f"checked ({consumer.label}).",
                    consumer.evidence[:1],
                )
        for torch in ctx.installations(ComponentName.TORCH):
            if torch.version is None:
                continue
            if ctx.matrix.torch_release(torch.version) is None:
                yield self.finding(
                    f"PyTorch {torch.version} is not in the matrix.", torch.evidence[:1]
                )
            elif (
                torch.cuda
                and ctx.matrix.torch_variant(torch.version, torch.cuda) is None
                and not torch.archs
            ):
                yield self.finding(
                    f"PyTorch {torch.version} for CUDA {torch.cuda} is not a wheel variant the "
                    "matrix knows; its GPU architectures were not checked.",
                    torch.evidence[:1],
                )
        instance = ctx.snapshot.instance.type
        # a family known to carry no NVIDIA GPU (c5, inf1) is known, not missing
        known = ctx.matrix.instance(instance) or ctx.matrix.non_gpu_family(instance)
        if instance and known is None:
            yield self.finding(
                f"Instance type {instance} is not in the matrix.", ctx.snapshot.instance.evidence
            )
        yield from self._libraries(ctx)

    def _libraries(self, ctx: CheckContext) -> Iterable[Finding]:
        lookups: dict[ComponentName, Callable[[str | None], object]] = {
            ComponentName.NCCL: ctx.matrix.nccl_release,
            ComponentName.CUDNN: ctx.matrix.cudnn_release,
            ComponentName.OFI_NCCL: ctx.matrix.ofi_nccl_release,
            ComponentName.EFA_INSTALLER: ctx.matrix.efa_installer,
        }
        table = ctx.matrix.matrix
        series: dict[ComponentName, list[str]] = {
            ComponentName.NCCL: [e.version for e in table.nccl],
            ComponentName.OFI_NCCL: [e.version for e in table.ofi_nccl],
            ComponentName.EFA_INSTALLER: [e.version for e in table.efa_installer],
        }
        for name, lookup in lookups.items():
            seen: set[str] = set()
            releases = series.get(name, [])
            for installation in ctx.installations(name):
                version = installation.version
                if (
                    version
                    and version not in seen
                    and lookup(version) is None
                    and not _a_known_series(version, releases)
                ):
                    seen.add(version)
                    yield self.finding(
                        f"{name.display_name} {version} is not in the matrix; its known issues "
                        "and compatibility were not checked.",
                        installation.evidence[:1],
                    )


def _a_known_series(version: str, releases: Iterable[str]) -> bool:
    """``NCCL 2.19`` (no patch number) is that series: known where the table has one of its
    releases, whose known issues are then checked for the whole series."""
    parsed = versions.parse(version)
    if parsed is None or len(parsed.release) != 2:
        return False
    return any(
        (known := versions.parse(r)) is not None and known.release[:2] == parsed.release
        for r in releases
    )
