"""Probes read the stack from a view into a snapshot; ``probe_host``/``probe_root`` run them all."""

from __future__ import annotations

import os
from collections.abc import Mapping

from stackcheck.live.host import LiveHost
from stackcheck.probes.base import Probe
from stackcheck.probes.context import CONTEXT_NEEDS, ProbeContext
from stackcheck.probes.cuda import CudaProbe
from stackcheck.probes.cudnn import CudnnProbe
from stackcheck.probes.driver import DriverProbe
from stackcheck.probes.efa import EfaProbe
from stackcheck.probes.environment import EnvironmentProbe
from stackcheck.probes.fabric_manager import FabricManagerProbe
from stackcheck.probes.gdr import GdrProbe
from stackcheck.probes.gpus import GpuProbe
from stackcheck.probes.hardware import HardwareProbe
from stackcheck.probes.instance import InstanceProbe
from stackcheck.probes.nccl import NcclProbe
from stackcheck.probes.ofi_nccl import OfiNcclProbe
from stackcheck.probes.platform import PlatformProbe
from stackcheck.probes.torch import TorchProbe
from stackcheck.snapshot.model import ProbeNote, Snapshot, SnapshotSource, SourceKind
from stackcheck.views.base import FileView
from stackcheck.views.directory import DirectoryView
from stackcheck.views.needs import Needs

# Order matters only for cost: cheap probes first; each reads the view independently.
PROBES: tuple[Probe, ...] = (
    PlatformProbe(),
    InstanceProbe(),
    DriverProbe(),
    GpuProbe(),
    CudaProbe(),
    CudnnProbe(),
    NcclProbe(),
    EfaProbe(),
    OfiNcclProbe(),
    TorchProbe(),
    EnvironmentProbe(),
    FabricManagerProbe(),
    GdrProbe(),
    HardwareProbe(),
)

# Everything the probes read: what an image's layer walk keeps.
NEEDS = Needs.union([CONTEXT_NEEDS, *(probe.needs for probe in PROBES)])


def run_probes(ctx: ProbeContext, kind: SourceKind, target: str) -> Snapshot:
    """Every probe over one context, into the snapshot of a ``kind`` source named ``target``.
    A probe that breaks leaves a note, never a traceback."""
    snapshot = Snapshot(source=SnapshotSource(kind=kind, target=target))
    for probe in PROBES:
        try:
            probe.run(ctx, snapshot)
        except Exception as exc:  # a probe bug must not cost the user the whole report
            snapshot.notes.append(ProbeNote(probe=probe.name, message=f"failed: {exc!r}"))
    snapshot.notes.extend(ProbeNote(probe="view", message=m) for m in ctx.view.problems)
    return snapshot


def probe_host(live: LiveHost | None = None, env: Mapping[str, str] | None = None) -> Snapshot:
    """The live host: its root filesystem, process environment, NVML and commands."""
    ctx = ProbeContext(
        view=DirectoryView("/"),
        env=dict(os.environ if env is None else env),
        live=live or LiveHost(),
    )
    return run_probes(ctx, "host", os.uname().nodename)


def probe_root(root: str, env: Mapping[str, str] | None = None) -> Snapshot:
    """A filesystem tree (a mounted AMI volume, an extracted rootfs): files only, nothing run."""
    view: FileView = DirectoryView(root)
    ctx = ProbeContext(view=view, env=dict(env or {}))
    return run_probes(ctx, "root", str(root))


__all__ = ["NEEDS", "PROBES", "Probe", "ProbeContext", "probe_host", "probe_root", "run_probes"]
