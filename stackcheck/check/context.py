"""What rules see: the snapshot, the matrix, and the derived facts several rules share."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from stackcheck import versions
from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.models import Gpu as MatrixGpu
from stackcheck.snapshot.model import ComponentName, Evidence, Gpu, Installation, Snapshot

if TYPE_CHECKING:
    from stackcheck.plan.layout import JobLayout


@dataclass(frozen=True)
class GpuFacts:
    """A GPU model present, with its compute capability from NVML or, failing that, the matrix."""

    name: str
    count: int
    compute_capability: str | None
    known: MatrixGpu | None
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class CudaConsumer:
    """Something that needs the driver to support a CUDA version: a torch build, a runtime."""

    label: str
    cuda: str
    evidence: tuple[Evidence, ...]


# OCI image architectures by the names `uname -m` and the matrix use.
_IMAGE_ARCHITECTURES = {"amd64": "x86_64", "arm64": "aarch64"}


class CheckContext:
    def __init__(
        self, snapshot: Snapshot, matrix: MatrixIndex, job: JobLayout | None = None
    ) -> None:
        self.snapshot = snapshot
        self.matrix = matrix
        self.job = job  # a planned job's parallel layout, for the `layout` rules

    def installations(self, name: ComponentName) -> list[Installation]:
        return self.snapshot.installations(name)

    @cached_property
    def driver(self) -> Installation | None:
        """The kernel module's version when known (it is what CUDA checks), else user space."""
        found = [i for i in self.installations(ComponentName.DRIVER) if i.version]
        kernel = [i for i in found if i.origin == "kernel"]
        return next(iter(kernel or found), None)

    @cached_property
    def driver_shown(self) -> Installation | None:
        """A driver the snapshot shows at all: `driver` where a version is known, else one shown
        only by the CUDA version it supports (conda's `__cuda=10.2`, nvidia-smi's `CUDA Version`
        said alone, PyTorch's `found version 12040`). Either way an NVIDIA driver is installed,
        which `has_nvidia_gpu` (GPUs or a versioned driver) does not count."""
        if self.driver is not None:
            return self.driver
        return next((i for i in self.installations(ComponentName.DRIVER) if i.cuda), None)

    @cached_property
    def gpus(self) -> list[GpuFacts]:
        by_name: dict[str, list[Gpu]] = {}
        for gpu in self.snapshot.gpus.devices:
            by_name.setdefault(gpu.name, []).append(gpu)
        facts = []
        for name, devices in by_name.items():
            known = self.matrix.gpu(name)
            cc = devices[0].compute_capability or (known.compute_capability if known else None)
            evidence = tuple(e for d in devices for e in d.evidence)
            facts.append(GpuFacts(name, len(devices), cc, known, evidence))
        return facts

    @cached_property
    def has_nvidia_gpu(self) -> bool:
        return bool(self.snapshot.gpus.devices) or self.driver is not None

    @cached_property
    def nvidia_host_evidence(self) -> list[Evidence]:
        """Where the snapshot shows an NVIDIA host: each GPU model's first evidence and the
        shown driver's (by version or by CUDA alone)."""
        evidence = [e for g in self.gpus for e in g.evidence[:1]]
        if self.driver_shown is not None:
            evidence.extend(self.driver_shown.evidence[:1])
        return evidence

    @cached_property
    def cuda_base(self) -> list[Installation]:
        """CUDA that an image's base stands for (a Dockerfile's FROM nvidia/cuda:…, a DLC or NGC
        tag), as opposed to CUDA found installed in files."""
        return [
            i
            for name in (ComponentName.CUDA_TOOLKIT, ComponentName.CUDA_RUNTIME)
            for i in self.installations(name)
            if i.origin == "image-config" and i.cuda
        ]

    @cached_property
    def built_for_gpus(self) -> list[Evidence]:
        """Why this stack is meant to run on NVIDIA GPUs: GPUs or a driver, a CUDA base image,
        or an image config that asks for CUDA (NVIDIA_REQUIRE_CUDA, CUDA_VERSION)."""
        evidence = list(self.nvidia_host_evidence)
        evidence.extend(e for i in self.cuda_base for e in i.evidence[:1])
        for name in ("NVIDIA_REQUIRE_CUDA", "CUDA_VERSION"):
            var = self.snapshot.env.get(name)
            if var is not None and var.evidence.kind == "image-config":
                evidence.append(var.evidence)
        return evidence

    @cached_property
    def torch_cuda_builds(self) -> list[Installation]:
        return [
            t
            for t in self.installations(ComponentName.TORCH)
            if t.properties.get("cpu_only") != "yes" and (t.cuda or t.archs)
        ]

    @cached_property
    def cuda_consumers(self) -> list[CudaConsumer]:
        """Torch CUDA builds, pip CUDA runtimes, and the default toolkit: what jobs run on."""
        consumers: list[CudaConsumer] = []
        for torch in self.torch_cuda_builds:
            if torch.cuda is None:
                continue  # known only by its GPU code (a report's arch list)
            consumers.append(
                CudaConsumer(
                    f"PyTorch {torch.version} ({torch.python_env})",
                    torch.cuda,
                    tuple(torch.evidence[:1]),  # version.py, where the CUDA build was read
                )
            )
        for runtime in self.installations(ComponentName.CUDA_RUNTIME):
            if runtime.origin == "pip" and runtime.cuda:
                consumers.append(
                    CudaConsumer(
                        f"CUDA runtime {runtime.version} ({runtime.path})",
                        runtime.cuda,
                        tuple(runtime.evidence),
                    )
                )
        for toolkit in self.installations(ComponentName.CUDA_TOOLKIT):
            if toolkit.properties.get("default") == "yes" and toolkit.version:
                where = f" ({toolkit.path})" if toolkit.path else ""
                consumers.append(
                    CudaConsumer(
                        f"CUDA toolkit {toolkit.version}{where}",
                        toolkit.version,
                        tuple(toolkit.evidence),
                    )
                )
        return consumers

    @cached_property
    def cpu_arch(self) -> str | None:
        """The stack's CPU architecture: the platform's, an image's, else the instance type's."""
        if self.snapshot.platform.machine:
            return self.snapshot.platform.machine
        image = self.snapshot.image
        if image is not None and image.architecture:
            return _IMAGE_ARCHITECTURES.get(image.architecture, image.architecture)
        instance = self.matrix.instance(self.snapshot.instance.type)
        return instance.arch if instance else None

    @cached_property
    def efa_available(self) -> bool | None:
        """True when the host has EFA devices (or the target instance type has EFA interfaces)."""
        devices = self.snapshot.runtime.efa_devices
        if devices is not None:
            return bool(devices)
        instance = self.matrix.instance(self.snapshot.instance.type)
        if instance is not None:
            return instance.efa_interfaces > 0
        return None

    @staticmethod
    def version_at_least(have: str | None, need: str | None) -> bool | None:
        a, b = versions.parse(have), versions.parse(need)
        if a is None or b is None:
            return None
        return a >= b
