"""The snapshot data model and its JSON form."""

from stackcheck.snapshot.io import dump_snapshot, load_snapshot
from stackcheck.snapshot.model import (
    SCHEMA_VERSION,
    Component,
    ComponentName,
    EnvVar,
    Evidence,
    Gpu,
    Installation,
    Observation,
    RunSpec,
    Snapshot,
    SnapshotSource,
)

__all__ = [
    "SCHEMA_VERSION",
    "Component",
    "ComponentName",
    "EnvVar",
    "Evidence",
    "Gpu",
    "Installation",
    "Observation",
    "RunSpec",
    "Snapshot",
    "SnapshotSource",
    "dump_snapshot",
    "load_snapshot",
]
