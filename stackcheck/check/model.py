"""Findings and the report: what the check stage hands to every output format."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

from stackcheck import __version__
from stackcheck.snapshot.model import Evidence, Snapshot

REPORT_SCHEMA_VERSION = 1


class Severity(str, Enum):
    """``error``: will fail or is known-broken. ``warning``: a silent performance or correctness
    risk. ``info``: advice."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANK[self]

    def at_least(self, threshold: Severity) -> bool:
        return self.rank >= threshold.rank


_RANK = {Severity.INFO: 1, Severity.WARNING: 2, Severity.ERROR: 3}


class Finding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    family: str
    severity: Severity
    title: str
    message: str
    evidence: list[Evidence] = Field(default_factory=list)
    fix: str
    docs: str


def failing(findings: Iterable[Finding], fail_on: str) -> list[Finding]:
    """The findings at or above ``fail_on`` (none for ``never``), in their order: what fails the
    run (exit 1), an NPD condition and a Slurm drain alike."""
    if fail_on == "never":
        return []
    threshold = Severity(fail_on)
    return [f for f in findings if f.severity.at_least(threshold)]


class Recommendation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str  # "dlami", "dlc", "ngc"
    name: str  # what to use: an AMI name, an image URI with tag
    reason: str
    changes: list[str] = Field(default_factory=list)  # "driver 535.161.07 -> 580.105.08"
    cautions: list[str] = Field(default_factory=list)  # "past end of patch (2026-01-29)"
    unsure: bool = False  # rests on a matrix fact marked unsure
    source: str | None = None
    # What it brings, by component: driver (a DLAMI's), cuda, torch, cudnn, nccl, efa_installer,
    # ofi_nccl; only what the matrix knows.
    stack: dict[str, str] = Field(default_factory=dict)
    min_driver: str | None = None  # an image: the lowest driver that runs it natively
    get: str | None = None  # a DLAMI: the command that finds its AMI ID


class Suppressed(BaseModel):
    """A finding kept out of the gate by configuration or a baseline; listed, never dropped."""

    model_config = ConfigDict(extra="forbid")

    finding: Finding
    reason: str  # "ignored by .stackcheck.toml", "in baseline base.json", "inline ignore at …"


class Notice(BaseModel):
    """Something about the check itself rather than the stack, e.g. a stale matrix."""

    model_config = ConfigDict(extra="forbid")

    code: str  # "matrix-stale"
    message: str


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = REPORT_SCHEMA_VERSION
    stackcheck_version: str = __version__
    matrix_version: str
    matrix_built: date | None = None
    warnings: list[Notice] = Field(default_factory=list)
    snapshot: Snapshot
    findings: list[Finding] = Field(default_factory=list)
    recommendations: list[Recommendation] = Field(default_factory=list)
    suppressed: list[Suppressed] = Field(default_factory=list)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)
