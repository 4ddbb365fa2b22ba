"""Family ``efa-link``: EFA ports down, and fewer EFA devices than the instance type has.

aws-ofi-nccl spreads each GPU's traffic over the EFA devices beside it; a port that is down or
a device that is missing leaves that GPU fewer rails, and NCCL's inter-node bandwidth drops on
that node, or NCCL's check that all ranks see the same devices fails the job.
"""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.hardware_facts import device_label, serves

HEALTHCHECK = (
    "aws-samples/awsome-distributed-training@23b53f64977b7ad2dc404bc23664fed77e5c668b:"
    "4.validation_and_observability/2.gpu-cluster-healthcheck/instance-profiles.conf (EFA "
    "devices expected per instance type: 4 on p4d, 32 on p5)"
)


class EfaPortDown(Rule):
    id = "SC1110"
    name = "efa-port-down"
    family = "efa-link"
    severity = Severity.WARNING
    lowest = Severity.INFO  # error 4126: the security group or the peer, not the link
    title = "An EFA (RDMA) port is not active"
    doc = RuleDoc(
        what="Reads each RDMA port's state (`/sys/class/infiniband/*/ports/*/state` and "
        "`phys_state`, or `ibv_devinfo`) and reports ports that are not `ACTIVE`, and EFA "
        "devices on the PCI bus that have no RDMA device at all (the efa driver did not "
        "register them), naming the device, its NUMA node and the GPUs behind the same PCIe "
        "switch. The Linux EFA driver reports its port ACTIVE whenever the device is "
        "registered (efa_query_port sets the state), so for EFA the missing registration is "
        "the signal a host gives; a mlx5 port reports its real state. Also notes (info) "
        "libfabric's error 4126, `Unresponsive receiver (reachable by EFA device but handshake "
        "failed)`: the security group or the peer, not the link.",
        why="On p5 each GPU sends over the four EFA devices on its PCIe switch (100 Gb/s each); "
        "with one down, that GPU's share of inter-node traffic runs on three, about a quarter "
        "slower, and every collective waits for it. NCCL does not fail.",
        example="`/sys/class/infiniband/rdmap86s0/ports/1/state` reads `1: DOWN` on a p5.48xlarge.",
        fix="Check `ibv_devinfo -d DEVICE` and the kernel log (`dmesg | grep -i efa`); reload "
        "the efa module or reboot. A port that stays down is a hardware fault: on EC2 stop and "
        "start the instance, or drain the node.",
        references=(HEALTHCHECK,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        yield from self._states(ctx)
        yield from self._unregistered(ctx)
        for unanswered in ctx.snapshot.observations("efa-peer-unresponsive")[:1]:
            # The link works (the device reached the peer); the handshake is the cloud's or the
            # peer's, not this host's stack: advice.
            yield self.finding(
                "An EFA peer was reachable but never answered the handshake (libfabric error "
                "4126): check that the security group allows all traffic to and from itself in "
                "both directions (EFA matches only such rules, not CIDR ones), and that the "
                "peer process is still running.",
                [unanswered.evidence],
                severity=Severity.INFO,
            )

    def _unregistered(self, ctx: CheckContext) -> Iterable[Finding]:
        snapshot = ctx.snapshot
        hardware = snapshot.hardware
        if snapshot.partial or hardware.unknown:
            return
        registered = {p.address for p in hardware.ports if p.address}
        missing = [d for d in hardware.devices if d.kind == "efa" and d.address not in registered]
        if not missing:
            return
        if not registered:
            yield self.finding(
                f"None of the {len(missing)} EFA devices on the PCI bus is registered as an "
                "RDMA device: the efa driver is not loaded or failed to probe them.",
                [*hardware.evidence[:1], *missing[0].evidence[:1]],
            )
            return
        for device in missing:
            yield self.finding(
                f"{device_label(device)}{serves(hardware, device)}: on the PCI bus but not "
                "registered as an RDMA device: its port is unusable.",
                device.evidence[:1],
            )

    def _states(self, ctx: CheckContext) -> Iterable[Finding]:
        hardware = ctx.snapshot.hardware
        for port in hardware.ports:
            if port.up is not False:
                continue
            device = hardware.device(port.address) if port.address else None
            where = (
                device_label(device) + serves(hardware, device)
                if device is not None
                else f"RDMA device {port.device}"
            )
            state = port.state or "?"
            if port.phys_state:
                state += f", physical {port.phys_state}"
            yield self.finding(
                f"{where}: port {port.port} is {state}, not ACTIVE.",
                [*port.evidence[:2], *(device.evidence[:1] if device else [])],
            )


class EfaDevicesMissing(Rule):
    id = "SC1111"
    name = "efa-devices-missing"
    family = "efa-link"
    severity = Severity.WARNING
    title = "Fewer EFA devices on the bus than the instance type has"
    doc = RuleDoc(
        what="Counts the EFA devices on the PCI bus (vendor 1d0f, devices efa0-efa3) and "
        "compares them with the EFA interfaces of the instance type in the matrix.",
        why="A missing EFA device is a rail fewer for the GPUs on its PCIe switch, and NCCL's "
        "check that every rank sees the same network devices may fail the job or, silenced, "
        "hang it. It happens when an interface was not attached at launch or the device failed.",
        example="A p5.48xlarge with 31 EFA devices on the bus.",
        fix="Launch with all EFA network interfaces (a launch template with 32 interfaces, "
        "network card index 0-31 on p5); if the device failed, stop and start the instance.",
        references=(HEALTHCHECK,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        snapshot = ctx.snapshot
        hardware = snapshot.hardware
        instance = ctx.matrix.instance(snapshot.instance.type)
        # A pasted text shows what it shows; only a probed bus can be counted.
        if snapshot.partial or hardware.unknown or instance is None or not hardware.devices:
            return
        found = [d for d in hardware.devices if d.kind == "efa"]
        if len(found) < instance.efa_interfaces:
            yield self.finding(
                f"{len(found)} EFA devices on the PCI bus; {instance.type} has "
                f"{instance.efa_interfaces}.",
                [*hardware.evidence[:1], *snapshot.instance.evidence[:1]],
                severity=self.capped(instance.unsure),
            )
