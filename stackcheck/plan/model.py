"""The plan report: the machine-readable contract of `stackcheck plan --format json`.

Every memory figure carries its formula in symbols and with the numbers put in, and every
instance figure the matrix source it came from, so that a plan can be checked by hand.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from stackcheck import __version__
from stackcheck.check.model import Finding
from stackcheck.plan.layout import JobLayout
from stackcheck.plan.request import PlanRequest, Precision
from stackcheck.plan.shape import ModelShape
from stackcheck.plan.steptime import StepTime

PLAN_SCHEMA_VERSION = (
    2  # 2: --model (request.params may be null), "tight", step_time, effective_precision
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Figure(_Model):
    """A number of bytes and how it was computed."""

    key: str
    label: str
    bytes: float
    gib: float
    formula: str  # in symbols: "w * P / (TP * PP)"
    expression: str  # the same with the numbers: "2 * 70000000000 / (8 * 2)"


class Symbol(_Model):
    name: str
    value: float
    meaning: str


class MemoryBreakdown(_Model):
    """Memory per GPU of one layout, against the GPU's memory."""

    layout: JobLayout
    terms: list[Figure]
    total: Figure
    capacity: Figure
    headroom_gib: float
    fits: bool  # with at least 5% of GPU memory to spare
    tight: bool  # fits, with less than 5% to spare
    activations_without_checkpointing: Figure
    activations_with_checkpointing: Figure
    symbols: list[Symbol]


class InstanceFacts(_Model):
    """The matrix entry the plan used, with its sources."""

    type: str
    gpu: str | None
    gpu_count: int
    gpu_memory_gib: float | None
    nvlink_domain_gpus: int | None
    nvlink_bandwidth_gb_s: float | None
    efa_interfaces: int
    efa_bandwidth_gb_s: float | None
    source: str
    nvlink_source: str | None
    unsure: bool


class Change(_Model):
    flag: str
    reason: str
    total_gib: float
    fits: bool


Status = Literal["fits", "tight", "fits-with-changes", "will-oom"]


class Verdict(_Model):
    status: Status
    summary: str
    changes: list[Change] = Field(
        default_factory=list, description="The smallest change (or set, applied in order) that fits"
    )


class Candidate(_Model):
    """An instance type the job fits on, with the fewest instances and the layout chosen."""

    instance: InstanceFacts
    nodes: int
    gpus: int
    layout: JobLayout
    total_gib: float
    headroom_gib: float
    tight: bool = False
    effective_precision: Precision
    step_time: StepTime | None = None
    equivalents: list[str] = Field(
        default_factory=list, description="Other sizes with the same GPUs per instance and links"
    )


class ScaleAdvice(_Model):
    regime: Literal["scale-up", "scale-out", "nvlink-domain"]
    summary: str
    reasons: list[str]


class PlanReport(_Model):
    schema_version: int = PLAN_SCHEMA_VERSION
    stackcheck_version: str = __version__
    matrix_version: str
    request: PlanRequest
    model: ModelShape
    zero_stage: int
    effective_precision: Precision
    precision_notes: list[str] = Field(default_factory=list)
    instance: InstanceFacts | None = None
    memory: MemoryBreakdown | None = None
    step_time: StepTime | None = None  # of the layout shown
    step_time_unknown: str | None = None  # why the layout shown has no step time
    verdict: Verdict
    candidates: list[Candidate] = Field(default_factory=list)
    scale: ScaleAdvice
    findings: list[Finding] = Field(default_factory=list)
