"""GPUDirect RDMA on a live host: is a peer-memory module loaded (``/sys/module``)?"""

from __future__ import annotations

from stackcheck.probes.base import Probe
from stackcheck.probes.context import ProbeContext
from stackcheck.snapshot.model import Snapshot

PEERMEM_MODULES = ("nvidia_peermem", "nv_peer_mem")


class GdrProbe(Probe):
    name = "gdr"

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        if ctx.live is None:
            return  # a tree's /sys says nothing about the machine it will run on
        runtime = snapshot.runtime
        loaded = [m for m in PEERMEM_MODULES if ctx.view.is_dir(f"/sys/module/{m}")]
        runtime.peermem_loaded = bool(loaded)
        runtime.evidence.append(
            ctx.file_evidence(
                "/sys/module/nvidia_peermem", ", ".join(loaded) or "no peer-memory module loaded"
            )
        )
