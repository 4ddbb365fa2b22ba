"""Family ``numa-affinity``: GPUs with no EFA device on their NUMA node, where the machine has
EFA devices on several nodes (so it pairs them locally)."""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.hardware_facts import device_label


class GpuNicAcrossNuma(Rule):
    id = "SC1130"
    name = "gpu-nic-across-numa"
    family = "numa-affinity"
    severity = Severity.WARNING
    title = "A GPU has no EFA device on its NUMA node"
    doc = RuleDoc(
        what="Where EFA devices sit on more than one NUMA node (p4d, p5: the instance pairs "
        "each GPU with NICs on its own socket), reports GPUs whose NUMA node has none.",
        why="The GPU's inter-node traffic then crosses the socket interconnect to reach a NIC, "
        "adding latency and contending with the other socket's traffic; on these instance "
        "types it means a device is missing or was attached to the wrong node. On instances "
        "with a single EFA device (g5) this is the design and the rule stays silent.",
        example="A p5 whose EFA devices on NUMA node 1 are all missing, so GPUs 4-7 send "
        "through node 0's.",
        fix="Check that every EFA interface was attached (see efa-devices-missing); pin each "
        "rank to its GPU's NUMA node (`numactl --cpunodebind`).",
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        devices = ctx.snapshot.hardware.devices
        nodes = {d.numa_node for d in devices if d.kind == "efa" and d.numa_node is not None}
        if len(nodes) < 2:
            return
        for gpu in devices:
            if gpu.kind == "gpu" and gpu.numa_node is not None and gpu.numa_node not in nodes:
                yield self.finding(
                    f"{device_label(gpu)} has no EFA device on its NUMA node; EFA devices are "
                    f"on node{'s' if len(nodes) > 1 else ''} "
                    f"{', '.join(map(str, sorted(nodes)))}.",
                    gpu.evidence[:1],
                )
