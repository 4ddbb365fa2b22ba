"""Family ``gdr``: does inter-node traffic go straight from GPU memory (GPUDirect RDMA), or is
it staged through host memory?"""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.runtime_facts import (
    efa_expected,
    infiniband_present,
    rdma_expected,
    runtime_evidence,
)

# NCCL's own IB transport, or the SHARP plugin's (`NET/IBext_v8/0`), on InfiniBand or RoCE
_IB_CHANNEL = re.compile(r"via NET/IB(?:ext\w{0,8})?/")


class GdrNotUsed(Rule):
    id = "SC431"
    name = "gdr-not-used"
    family = "gdr"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "Inter-node connections run without GPUDirect RDMA"
    doc = RuleDoc(
        what="Reads NCCL's connection lines: `via NET/AWS Libfabric/0/GDRDMA` uses GPUDirect "
        "RDMA, `via NET/AWS Libfabric/0` does not; and aws-ofi-nccl's `GDR disabled on "
        "GDR-supported instance type`. On instance types without GPUDirect RDMA over EFA "
        "(p3dn, g5, g6) this is expected and reported as info. Over InfiniBand/RoCE, NCCL "
        "turns GDR off by design where the NIC sits farther from the GPU than "
        "NCCL_NET_GDR_LEVEL (default PXB, e.g. across the CPU), so a log whose every IB "
        "connection lacks /GDRDMA is info unless something shows GDR was meant: another "
        "connection with /GDRDMA, a peer-memory module missing, or a setting turning it off.",
        why="Without GDR every inter-node transfer is copied through host memory: more latency, "
        "less bandwidth, CPU load (NVIDIA/nccl-tests#293 saw ~1.1 GB/s until GDR was on).",
        example="`Channel 00 : 12[1a0] -> 0[160] [receive] via NET/AWS Libfabric/0` on p4d.",
        fix="On instances that support it (p4d, p5, p6): use aws-ofi-nccl >= 1.7 with the EFA "
        "installer's libfabric, keep the EFA and NVIDIA drivers current (dma-buf, or the "
        "peer-memory module on older kernels), and do not set NCCL_NET_GDR_LEVEL low.",
        references=(
            "https://github.com/aws/aws-ofi-nccl/issues/104",
            "https://github.com/NVIDIA/nccl-tests/issues/293",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        snapshot = ctx.snapshot
        without = [o for o in snapshot.observations("net-gdr") if o.value == "no"]
        disabled = snapshot.observations("gdr-disabled")
        if not without and not disabled:
            return
        instance = ctx.matrix.instance(snapshot.instance.type)
        if not disabled and _topology_may_explain(ctx):
            yield self.finding(
                "Inter-node connections over InfiniBand/RoCE run without GPUDirect RDMA (no "
                "/GDRDMA); NCCL does this by design when the NIC is farther from the GPU than "
                "NCCL_NET_GDR_LEVEL (default PXB). If bandwidth is low, check `nvidia-smi topo "
                "-m` and that nvidia_peermem (or dma-buf) is available.",
                [o.evidence for o in without[:1]],
                severity=Severity.INFO,
            )
            return
        if instance is not None and not instance.gdr:
            yield self.finding(
                f"Connections run without GPUDirect RDMA; {instance.type} has none over EFA, so "
                "transfers are staged through host memory.",
                [o.evidence for o in [*without, *disabled][:2]] + snapshot.instance.evidence[:1],
                severity=Severity.INFO,
            )
            return
        what = (
            "aws-ofi-nccl disabled GPUDirect RDMA"
            if disabled
            else ("Inter-node connections run without GPUDirect RDMA (no /GDRDMA)")
        )
        yield self.finding(
            f"{what}: every transfer is staged through host memory.",
            [o.evidence for o in [*disabled, *without][:2]] + snapshot.instance.evidence[:1],
        )


class PeermemNotLoaded(Rule):
    id = "SC432"
    name = "peermem-not-loaded"
    family = "gdr"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "No GPUDirect RDMA peer-memory module is loaded"
    doc = RuleDoc(
        what="Where RDMA is in use, checks that `nvidia_peermem` (formerly `nv_peer_mem`) is "
        "loaded (/sys/module, or an `lsmod` listing).",
        why="On InfiniBand/RoCE without the module (and without dma-buf), NCCL cannot register "
        "GPU memory with the NIC and stages transfers through host memory. EFA can use dma-buf "
        "or the efa driver's own peer-memory support instead, so there it is advice.",
        example="`lsmod | grep nv` on a p3dn shows nvidia, nvidia_uvm, nvidia_drm but no "
        "peer-memory module (aws/aws-ofi-nccl#104).",
        fix="Load it (`modprobe nvidia-peermem`, shipped with the NVIDIA driver since R470) and "
        "make it load at boot; on EFA, a current EFA installer and kernel give dma-buf instead.",
        references=("https://github.com/aws/aws-ofi-nccl/issues/104",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        runtime = ctx.snapshot.runtime
        if runtime.peermem_loaded is not False:
            return
        # A module that failed to load, or is said not to be loaded, was meant to be used: that
        # is RDMA intended whatever else the text shows (Mellanox/nv_peer_memory#8, #46, #80).
        failed = ctx.snapshot.observations("peermem-load-failed")
        rdma = rdma_expected(ctx) or [o.evidence for o in failed[:1]]
        if not rdma:
            return
        efa = efa_expected(ctx)
        on_infiniband = (infiniband_present(ctx) or bool(failed)) and not efa
        yield self.finding(
            (
                "The GPUDirect RDMA peer-memory module did not load "
                f"({(failed[0].value or '')[:100]})"
                if failed
                else "No GPUDirect RDMA peer-memory module (nvidia_peermem) is loaded"
            )
            + ("" if on_infiniband else "; on EFA, GDR needs dma-buf support instead")
            + ".",
            [*runtime_evidence(ctx, "peermem", "nvidia")[:1], *rdma[:1]],
            severity=Severity.WARNING if on_infiniband else Severity.INFO,
        )


class GdrcopyUnusable(Rule):
    id = "SC1409"
    name = "gdrcopy-unusable"
    family = "gdr"
    severity = Severity.WARNING
    title = "gdrcopy cannot open gdrdrv or pin GPU memory"
    doc = RuleDoc(
        what="Reads gdrcopy's failures: `gdr_open error: Is gdrdrv driver installed and "
        "loaded?` (its tests), libgdrapi's version refusals between gdrdrv and the library, "
        "`gdr_pin_buffer` failing (its sanity test's assertion, UCX's or NCCL's message), "
        "gdrdrv's dmesg line when the driver refuses to pin (`nvidia_p2p_get_pages(...) failed "
        "[ret = -22]`) and UCX's `transport 'gdr_copy' is not available`.",
        why="gdrcopy maps GPU memory to the CPU through the gdrdrv module and the driver's "
        "GPUDirect RDMA interface; UCX's gdr_copy transport, NVSHMEM and NCCL use it for small "
        "copies. Without /dev/gdrdrv (the module loaded by a bare modprobe, which does not "
        "create the node, or not loaded) gdr_open fails; a gdrdrv older than the driver "
        "(gdrcopy 2.4.1 with the 560 driver) fails to pin. Users then fall back to slower "
        "copies or stop.",
        example="`gdr_open error: Is gdrdrv driver installed and loaded?` from gdrcopy's sanity "
        "test with gdrdrv listed by lsmod but no /dev/gdrdrv (NVIDIA/gdrcopy#234).",
        fix="Load gdrdrv with gdrcopy's `insmod.sh` (or its packaged service), which creates "
        "/dev/gdrdrv; keep gdrdrv and libgdrapi of one gdrcopy release, new enough for the "
        "driver (2.4.2+ for the 560 driver); check with `gdrcopy_sanity`.",
        references=(
            "https://github.com/NVIDIA/gdrcopy/issues/234",
            "https://github.com/NVIDIA/gdrcopy/issues/305",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        failed = ctx.snapshot.observations("gdrcopy-failed")
        if not failed:
            return
        yield self.finding(
            f"gdrcopy failed ({(failed[0].value or '')[:120]}): GPU memory cannot be mapped "
            "through gdrdrv, so its users (UCX gdr_copy, NVSHMEM, NCCL) fall back to slower "
            "copies or stop. Load gdrdrv with gdrcopy's insmod.sh (it creates /dev/gdrdrv) and "
            "keep gdrdrv, libgdrapi and the driver of matching releases.",
            [o.evidence for o in failed[:2]],
        )


def _topology_may_explain(ctx: CheckContext) -> bool:
    """True when every connection without GDR is NCCL's own IB transport and nothing shows GDR
    was meant. NCCL enables GDR only where the GPU-NIC path is within NCCL_NET_GDR_LEVEL
    (default PATH_PXB; NVIDIA/nccl src/graph/paths.cc, ncclTopoCheckGdr), so on a host whose
    NICs hang off the CPU no /GDRDMA is the normal state of that fabric."""
    snapshot = ctx.snapshot
    gdr = snapshot.observations("net-gdr")
    if any(o.value == "yes" for o in gdr) or efa_expected(ctx):
        return False
    if snapshot.runtime.peermem_loaded is False or snapshot.observations("peermem-load-failed"):
        return False
    # Only connection lines name their transport; a sentence saying GDR is off stays a warning.
    if not all(_IB_CHANNEL.search(o.evidence.detail or "") for o in gdr):
        return False
    return not any(name in ("NCCL_NET_GDR_LEVEL", "NCCL_IB_GDR_LEVEL") for name in snapshot.env)
