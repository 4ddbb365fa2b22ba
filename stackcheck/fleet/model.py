"""The fleet report: a versioned JSON contract of its own, embedding one report per stack.

Node names are Slurm hostlists (``node[01-16,18-64]``) wherever a group of nodes is named;
``nodes`` maps every node to its stack's ID or to ``"no-answer"``, so a consumer never has to
expand a hostlist to find one node.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from stackcheck import __version__
from stackcheck.check.model import Finding, Report
from stackcheck.fleet.sources.base import Silence

FLEET_SCHEMA_VERSION = 1
NO_ANSWER = "no-answer"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # built when first used


class NodeFinding(Finding):
    """A per-node finding, once for all the nodes that have it: ``count`` of ``out_of``."""

    count: int
    out_of: int
    nodes: str


class DriftValue(_Model):
    value: str
    count: int
    nodes: str


class DriftFinding(Finding):
    """Nodes that differ: ``values[0]`` is the most common value, the rest are the odd ones."""

    aspect: str
    values: list[DriftValue]


class Silent(_Model):
    """Nodes that gave no snapshot for the same reason."""

    reason: Silence
    detail: str
    count: int
    nodes: str


class StackReport(_Model):
    """One distinct stack, the nodes that have it, and the report of its first node."""

    id: str
    count: int
    nodes: str
    report: Report


class FleetSummary(_Model):
    nodes: int
    answered: int
    no_answer: int
    stacks: int
    errors: int
    warnings: int
    infos: int


class FleetReport(_Model):
    kind: Literal["stackcheck-fleet-report"] = "stackcheck-fleet-report"
    schema_version: int = FLEET_SCHEMA_VERSION
    stackcheck_version: str = __version__
    matrix_version: str
    source: str
    summary: FleetSummary
    drift: list[DriftFinding] = Field(default_factory=list)
    findings: list[NodeFinding] = Field(default_factory=list)
    no_answer: list[Silent] = Field(default_factory=list)
    stacks: list[StackReport] = Field(default_factory=list)
    nodes: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    def all_findings(self) -> list[Finding]:
        return [*self.drift, *self.findings]
