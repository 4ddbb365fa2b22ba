"""The rule catalogue. IDs are stable: a rule's ID is never reused or renumbered."""

from __future__ import annotations

from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.driver_cuda import (
    DriverLibraryMismatch,
    DriverTooOld,
    ForwardCompatInUse,
    ForwardCompatUnsupportedGpu,
    MinorVersionCompatibility,
)
from stackcheck.rules.image_metadata import (
    EnvCudaMismatch,
    EnvCudnnMismatch,
    EnvNcclMismatch,
    RequireCudaUnsatisfied,
)
from stackcheck.rules.libraries import CudnnCudaMismatch, MultipleNccl
from stackcheck.rules.matrix_unknown import NotInMatrix
from stackcheck.rules.network import NetPluginMissing, NetPluginUnresolved
from stackcheck.rules.torch_build import CpuOnlyTorch, TorchMissingArch

RULES: tuple[Rule, ...] = (
    DriverTooOld(),
    MinorVersionCompatibility(),
    DriverLibraryMismatch(),
    ForwardCompatUnsupportedGpu(),
    ForwardCompatInUse(),
    CpuOnlyTorch(),
    TorchMissingArch(),
    CudnnCudaMismatch(),
    MultipleNccl(),
    EnvNcclMismatch(),
    EnvCudnnMismatch(),
    EnvCudaMismatch(),
    RequireCudaUnsatisfied(),
    NetPluginMissing(),
    NetPluginUnresolved(),
    NotInMatrix(),
)


def rule_by_id(rule_id: str) -> Rule | None:
    wanted = rule_id.strip().upper()
    return next((r for r in RULES if r.id == wanted or r.name == rule_id.strip().lower()), None)


__all__ = ["RULES", "Rule", "RuleDoc", "rule_by_id"]
