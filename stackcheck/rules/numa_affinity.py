"""Family ``numa-affinity``: GPUs with no EFA device (or, from ``nvidia-smi topo -m``, no RDMA
NIC) on their NUMA node, where the machine has them on several nodes (so it pairs them
locally)."""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.hardware_facts import device_label
from stackcheck.snapshot.hardware import GpuNicPath

# topo -m paths that stay within one NUMA node; SYS crosses the SMP interconnect between nodes.
_LOCAL = frozenset({"PIX", "PXB", "PHB", "NODE"})


class GpuNicAcrossNuma(Rule):
    id = "SC1130"
    name = "gpu-nic-across-numa"
    family = "numa-affinity"
    severity = Severity.WARNING
    title = "A GPU has no EFA device on its NUMA node"
    doc = RuleDoc(
        what="Where EFA devices sit on more than one NUMA node (p4d, p5: the instance pairs "
        "each GPU with NICs on its own socket), reports GPUs whose NUMA node has none. From a "
        "pasted `nvidia-smi topo -m`, a NIC's node is that of the GPUs it reaches without "
        "crossing nodes (PIX, PXB, PHB, NODE), and a GPU that reaches every NIC only through "
        "SYS, on a machine whose NICs sit on several nodes, is reported the same way.",
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
        yield from self._topology(ctx.snapshot.hardware.paths)
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

    def _topology(self, paths: list[GpuNicPath]) -> Iterable[Finding]:
        nodes = {p.gpu_numa_node for p in paths if p.path in _LOCAL and p.gpu_numa_node is not None}
        if len(nodes) < 2:
            return
        rows: dict[int, list[GpuNicPath]] = {}
        for path in paths:
            rows.setdefault(path.gpu_index, []).append(path)
        for gpu, row in sorted(rows.items()):
            numa = row[0].gpu_numa_node
            if numa is None or numa in nodes or any(p.path in _LOCAL for p in row):
                continue
            yield self.finding(
                f"GPU {gpu} (NUMA node {numa}) reaches every NIC across NUMA nodes (SYS in "
                f"nvidia-smi topo -m); the NICs are on nodes {', '.join(map(str, sorted(nodes)))}.",
                [row[0].evidence] if row[0].evidence is not None else [],
            )
