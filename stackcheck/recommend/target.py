"""What a recommendation is for: the instance, CPU, GPUs, driver and PyTorch, from a snapshot or
from the command line (which overrides the snapshot)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from stackcheck import versions
from stackcheck.check.context import CheckContext
from stackcheck.errors import StackcheckError
from stackcheck.matrix.index import MatrixIndex, instance_family
from stackcheck.matrix.models import Gpu as MatrixGpu
from stackcheck.snapshot.model import ComponentName


@dataclass(frozen=True)
class TargetGpu:
    name: str
    compute_capability: str | None
    known: MatrixGpu | None


@dataclass(frozen=True)
class Target:
    instance_type: str | None = None
    cpu_arch: str | None = None
    gpus: tuple[TargetGpu, ...] = ()
    driver: str | None = None
    torch: str | None = None  # the PyTorch in use or asked for: "2.5.1+cu124", "2.5"
    cuda: str | None = None  # the CUDA that PyTorch is built for
    nccl: str | None = None
    efa: str | None = None
    ofi_nccl: str | None = None
    image: bool = False  # the stack is an image: images are what it can change first

    @property
    def family(self) -> str | None:
        return instance_family(self.instance_type)

    @property
    def torch_line(self) -> str | None:
        return versions.release(self.torch, 2)

    @property
    def last_driver_branch(self) -> int | None:
        """The newest driver branch every GPU of the target is supported by (R580 for a V100)."""
        limits = [g.known.last_driver_branch for g in self.gpus if g.known]
        return min((b for b in limits if b), default=None)

    def driver_past_gpus(self, driver: str | None) -> bool:
        """Whether ``driver``'s branch is newer than a target GPU's last (SC1406's case)."""
        last, branch = self.last_driver_branch, versions.major(driver)
        return last is not None and branch is not None and branch > last

    def describe(self) -> str:
        parts = [self.instance_type or "any instance"]
        if self.gpus:
            parts.append(", ".join(g.name for g in self.gpus))
        parts.append(self.cpu_arch or "any CPU")
        parts.append(f"driver {self.driver}" if self.driver else "driver unknown")
        if self.torch:
            parts.append(f"PyTorch {self.torch}")
        return ", ".join(parts)


def _first(ctx: CheckContext, name: ComponentName) -> str | None:
    return next((i.version for i in ctx.installations(name) if i.version), None)


def _gpu(known: MatrixGpu) -> TargetGpu:
    return TargetGpu(known.name, known.compute_capability, known)


def target_from_context(ctx: CheckContext) -> Target:
    gpus = tuple(TargetGpu(g.name, g.compute_capability, g.known) for g in ctx.gpus)
    instance = ctx.matrix.instance(ctx.snapshot.instance.type)
    if not gpus and instance is not None and instance.gpu:
        known = ctx.matrix.gpu(instance.gpu)
        gpus = (_gpu(known),) if known else ()
    torch = next((t for t in ctx.installations(ComponentName.TORCH) if t.version), None)
    return Target(
        instance_type=ctx.snapshot.instance.type,
        cpu_arch=ctx.cpu_arch,
        gpus=gpus,
        driver=ctx.driver.version if ctx.driver else None,
        torch=torch.version if torch else None,
        cuda=torch.cuda if torch else None,
        nccl=_first(ctx, ComponentName.NCCL),
        efa=_first(ctx, ComponentName.EFA_INSTALLER),
        ofi_nccl=_first(ctx, ComponentName.OFI_NCCL),
        image=ctx.snapshot.source.kind == "image",
    )


def _version_argument(option: str, value: str) -> str:
    if versions.parse(value) is None:
        raise StackcheckError(f"{option} {value!r} is not a version")
    return value


def with_overrides(
    target: Target,
    index: MatrixIndex,
    *,
    instance: str | None = None,
    gpu: str | None = None,
    driver: str | None = None,
    torch: str | None = None,
) -> Target:
    """``target`` with what the command line says instead; one clear error for unknown values."""
    if instance is not None:
        entry = index.instance(instance)
        if entry is None:
            raise StackcheckError(
                f"instance type {instance!r} is not in the matrix; `stackcheck matrix instance` "
                "lists the known ones"
            )
        known = index.gpu(entry.gpu)
        gpus = (_gpu(known),) if known else ()
        target = replace(target, instance_type=entry.type, cpu_arch=entry.arch, gpus=gpus)
    if gpu is not None:
        known = index.gpu(gpu)
        if known is None:
            raise StackcheckError(
                f"GPU {gpu!r} is not in the matrix; `stackcheck matrix gpu` lists the known ones"
            )
        target = replace(target, gpus=(_gpu(known),))
    if driver is not None:
        target = replace(target, driver=_version_argument("--driver", driver))
    if torch is not None:
        # The CUDA of the PyTorch in use says nothing about the release asked for.
        target = replace(target, torch=_version_argument("--torch", torch), cuda=None)
    return target
