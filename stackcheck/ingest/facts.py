"""What a piece of pasted text states, one fact per statement, each with the line that said it.

Parsers produce facts; ``assemble`` turns them into a partial snapshot. Keeping this middle step
lets ``triage --show-parsed`` show what was understood from each segment, and keeps parsers free
of snapshot bookkeeping (merging, evidence, unknowns).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from stackcheck import versions
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName, ObservationKind, RunSpec

# The python_env of packages and PyTorch stated by a report: one environment, the reporter's.
REPORTED_ENV = "the reported Python environment"


@dataclass
class Fact:
    line: Line

    def describe(self) -> str:
        raise NotImplementedError


@dataclass
class ComponentFact(Fact):
    component: ComponentName
    version: str | None = None
    cuda: str | None = None
    path: str | None = None
    archs: list[str] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    python_env: str | None = None

    def describe(self) -> str:
        parts = [self.component.display_name, self.version or "(version not stated)"]
        if self.cuda:
            parts.append(f"CUDA {self.cuda}")
        if self.archs:
            parts.append(" ".join(self.archs))
        parts.extend(f"{k}={v}" for k, v in self.properties.items())
        if self.path:
            parts.append(self.path)
        return " ".join(parts)


def toolkit_fact(
    line: Line, version: str, path: str | None = None, **properties: str
) -> ComponentFact:
    """The default CUDA toolkit (the nvcc on PATH, /usr/local/cuda): a CUDA consumer."""
    return ComponentFact(
        line,
        ComponentName.CUDA_TOOLKIT,
        version=version,
        cuda=versions.release(version, 2),
        path=path,
        properties={"default": "yes", **properties},
    )


@dataclass
class GpuFact(Fact):
    name: str
    index: int | None = None
    compute_capability: str | None = None
    memory_mib: int | None = None

    def describe(self) -> str:
        where = "GPU" if self.index is None else f"GPU {self.index}"
        cc = f" (compute capability {self.compute_capability})" if self.compute_capability else ""
        return f"{where}: {self.name}{cc}"


@dataclass
class EnvFact(Fact):
    name: str
    value: str

    def describe(self) -> str:
        return f"environment {self.name}={self.value}"


@dataclass
class InstanceFact(Fact):
    type: str

    def describe(self) -> str:
        return f"instance type {self.type}"


RuntimeField = Literal["shm_bytes", "memlock_bytes", "peermem_loaded", "efa_devices"]


@dataclass
class RuntimeFact(Fact):
    field: RuntimeField
    value: int | bool | list[str]

    def describe(self) -> str:
        return f"runtime {self.field} = {self.value}"


@dataclass
class ObservationFact(Fact):
    kind: ObservationKind
    value: str | None = None

    def describe(self) -> str:
        return f"observed {self.kind}" + (f": {self.value}" if self.value else "")


@dataclass
class RunSpecFact(Fact):
    spec: RunSpec
    lines: list[Line] = field(default_factory=list)

    def describe(self) -> str:
        spec = self.spec
        said = [f"image {spec.image or '?'}"]
        said.append(f"gpus {spec.gpus}" if spec.gpus else "no GPU request")
        if spec.shm_bytes is not None:
            said.append(f"shm {spec.shm_bytes >> 20} MiB")
        if spec.memlock_bytes is not None:
            said.append(
                "memlock " + ("unlimited" if spec.memlock_bytes < 0 else f"{spec.memlock_bytes} B")
            )
        for label, value in (
            ("ipc", spec.ipc),
            ("efa", spec.efa_requested),
            ("entrypoint", spec.entrypoint),
        ):
            if value is not None:
                said.append(f"{label} {value}")
        if spec.devices:
            said.append("devices " + ",".join(spec.devices))
        return f"{spec.kind} spec: " + ", ".join(said)


@dataclass
class PlatformFact(Fact):
    os: str

    def describe(self) -> str:
        return f"OS {self.os}"


@dataclass
class ContainerFact(Fact):
    """The text says the process it reports on ran in a container."""

    said: str

    def describe(self) -> str:
        return f"in a container: {self.said}"
