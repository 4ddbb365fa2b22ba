"""Family ``fleet-drift``: nodes of one fleet that differ, and nodes that did not answer.

A multi-node job runs at the speed of its slowest node and hangs on its most different one.
These rules compare the fleet's distinct stacks (never one snapshot: ``check`` finds nothing on
its own) and name the most common value and the nodes that differ from it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.fleet.context import Aspect, FleetContext, Share
from stackcheck.fleet.hostlist import compress
from stackcheck.fleet.model import DriftFinding, DriftValue, NodeFinding
from stackcheck.matrix.index import MatrixIndex
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.libraries import loaded_by_torch
from stackcheck.snapshot.model import ComponentName, Evidence, Snapshot

NCCL_MISMATCH = (
    "https://github.com/NVIDIA/nccl/issues/1328 (NCCL's maintainer traces a 'receiving N bytes "
    "instead of M' failure to a version or configuration mismatch between two ranks, and "
    "advises looking for variables set on one rank but not the other)"
)
NET_MISMATCH = (
    "https://github.com/NVIDIA/nccl/issues/2428 (ranks with different RDMA device sets trip "
    "NCCL's net mismatch check; with the check silenced the job hangs without an error)"
)


MAX_NAMED = 5  # odd values named in a message; the finding's ``values`` has every one


class FleetRule(Rule):
    """A rule over the whole fleet. One snapshot has nothing to compare with, so ``check``
    finds nothing; ``check_fleet`` does the work."""

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        return ()

    @abstractmethod
    def check_fleet(self, fleet: FleetContext) -> Iterable[Finding]: ...


class DriftRule(FleetRule):
    """Compares aspects of the stacks; one finding per aspect whose value differs."""

    @abstractmethod
    def aspects(self, fleet: FleetContext) -> Iterable[tuple[str, str, Aspect]]:
        """(aspect ID, what it is called in a message, how to read it from a snapshot)."""

    def check_fleet(self, fleet: FleetContext) -> Iterable[Finding]:
        for aspect, label, read in self.aspects(fleet):
            shares = fleet.spread(read)
            if len(shares) > 1:
                yield self.drift(fleet, aspect, label, shares)

    def drift(self, fleet: FleetContext, aspect: str, label: str, shares: list[Share]) -> Finding:
        common, odd = shares[0], shares[1:]
        compared = sum(s.count for s in shares)
        values = [
            DriftValue(value=s.value, count=s.count, nodes=compress(s.nodes())) for s in shares
        ]
        if common.count == odd[0].count:  # a tie: no value is the fleet's, so name every node
            lead = f"{label} differs between nodes, with no value on most of them: "
            named = values
        else:
            lead = (
                f"{label} differs between nodes: {common.value} on {common.count} of {compared} "
                "nodes; "
            )
            named = values[1:]
        shown = "; ".join(f"{v.value} on {v.count}: {v.nodes}" for v in named[:MAX_NAMED])
        if len(named) > MAX_NAMED:
            more = named[MAX_NAMED:]
            shown += f"; and {len(more)} more values on {sum(v.count for v in more)} nodes"
        evidence = [e for s in (*odd[:MAX_NAMED], common) for e in s.evidence[:1]]
        base = self.finding(f"{lead}{shown}.", evidence)
        return DriftFinding(**dict(base), aspect=aspect, values=values)


Reading = tuple[str, Sequence[Evidence]]


def _component(name: ComponentName) -> Callable[[Snapshot], Reading]:
    def read(snapshot: Snapshot) -> Reading:
        installations = snapshot.installations(name)
        found = sorted({i.version or "version unknown" for i in installations})
        evidence = [e for i in installations for e in i.evidence[:1]]
        return (", ".join(found) or "not found"), evidence

    return read


def _nccl_in_use(matrix: MatrixIndex) -> Aspect:
    """The NCCL that PyTorch's CUDA builds load, where the probe resolved it; else every NCCL
    found (an unused system copy next to the wheel is not drift that breaks a job)."""
    every = _component(ComponentName.NCCL)

    def read(snapshot: Snapshot) -> Reading:
        ctx = CheckContext(snapshot, matrix)
        used: dict[str, Sequence[Evidence]] = {}
        for torch in ctx.torch_cuda_builds:
            if torch.properties.get("loads_nccl") == "static":
                used[f"static in PyTorch {torch.version}"] = torch.evidence[:1]
                continue
            loaded = loaded_by_torch(ctx, torch, "nccl", ComponentName.NCCL)
            if loaded is not None:
                used[loaded.version or "version unknown"] = loaded.evidence[:1]
        if not used:
            return every(snapshot)
        return ", ".join(sorted(used)), [e for found in used.values() for e in found]

    return read


class NcclDrift(DriftRule):
    id = "SC702"
    name = "nccl-drift"
    family = "fleet-drift"
    severity = Severity.ERROR
    title = "NCCL differs between nodes"
    doc = RuleDoc(
        what="Compares, across the nodes of the fleet, the NCCL that PyTorch loads (as the "
        "loader would resolve it), or every NCCL found where no PyTorch says.",
        why="Every rank of a job talks NCCL's wire protocol to every other; ranks on different "
        "NCCL releases can disagree on buffer sizes and protocols, and the job fails with size "
        "mismatch errors or hangs in its first collective. The job starts fine, so nobody sees "
        "it until it does.",
        example="63 nodes with the nvidia-nccl-cu12 2.27.7 wheel and one node whose venv was "
        "rebuilt with 2.21.5.",
        fix="Install the same NCCL on every node (the same image, or the same wheel pinned in "
        "the venv), then drain and re-image the odd nodes: `scontrol update nodename=NODES "
        "state=drain reason=nccl-drift`.",
        references=(NCCL_MISMATCH,),
    )

    def aspects(self, fleet: FleetContext) -> Iterable[tuple[str, str, Aspect]]:
        yield "component nccl", "NCCL", _nccl_in_use(fleet.matrix)


_OTHER_COMPONENTS = tuple(c for c in ComponentName if c is not ComponentName.NCCL)


class ComponentDrift(DriftRule):
    id = "SC703"
    name = "component-drift"
    family = "fleet-drift"
    severity = Severity.WARNING
    title = "A stack component differs between nodes"
    doc = RuleDoc(
        what="Compares the versions of the driver, CUDA toolkit and runtime, cuDNN, the EFA "
        "installer, libfabric, aws-ofi-nccl and PyTorch across the nodes of the fleet.",
        why="A job runs at the speed of its slowest node: one node with an older driver, "
        "libfabric or aws-ofi-nccl can make every collective slower, and a different PyTorch "
        "or aws-ofi-nccl can change the protocol a rank speaks.",
        example="A node missed the last AMI roll-out and still has driver 535.161.07 where the "
        "other 63 nodes run 580.95.05.",
        fix="Bring the odd nodes to the fleet's version (re-image them from the same AMI or "
        "image), or drain them until then.",
    )

    def aspects(self, fleet: FleetContext) -> Iterable[tuple[str, str, Aspect]]:
        for name in _OTHER_COMPONENTS:
            yield f"component {name.value}", name.display_name, _component(name)


def _env(name: str) -> Aspect:
    def read(snapshot: Snapshot) -> Reading:
        var = snapshot.env.get(name)
        return ("unset", ()) if var is None else (var.value, (var.evidence,))

    return read


class EnvDrift(DriftRule):
    id = "SC704"
    name = "env-drift"
    family = "fleet-drift"
    severity = Severity.WARNING
    title = "An NCCL, libfabric, CUDA or PyTorch variable differs between nodes"
    doc = RuleDoc(
        what="Compares the environment variables stackcheck records (NCCL_*, FI_*, CUDA_*, "
        "TORCH_*, LD_LIBRARY_PATH, ... and /etc/nccl.conf) across the nodes; a variable set on "
        "some nodes and not on others differs too.",
        why="NCCL reads its settings on each rank: a stray NCCL_P2P_DISABLE=1 or NCCL_PROTO in "
        "one node's profile or /etc/nccl.conf makes that node slow, and settings that change "
        "the protocol on one rank only can make the job fail or hang.",
        example="/etc/nccl.conf on one node still sets NCCL_P2P_DISABLE=1 from an old debugging "
        "session.",
        fix="Set these variables in the job script (srun exports it to every task), not in "
        "per-node files; remove the stray setting from the odd nodes.",
        references=(NCCL_MISMATCH,),
    )

    def aspects(self, fleet: FleetContext) -> Iterable[tuple[str, str, Aspect]]:
        names = sorted({name for stack in fleet.stacks for name in stack.snapshot.env})
        for name in names:
            yield f"env {name}", name, _env(name)


def _gpus(snapshot: Snapshot) -> Reading:
    devices = snapshot.gpus.devices
    counts: dict[str, int] = {}
    for gpu in devices:
        counts[gpu.name] = counts.get(gpu.name, 0) + 1
    value = ", ".join(f"{n}x {name}" for name, n in sorted(counts.items())) or "no GPU found"
    return value, [e for d in devices[:1] for e in d.evidence[:1]]


def _efa_devices(snapshot: Snapshot) -> Reading | None:
    devices = snapshot.runtime.efa_devices
    if devices is None:
        return None
    evidence = [e for e in snapshot.runtime.evidence if "infiniband" in e.source]
    return f"{len(devices)} EFA devices", evidence[:1]


def _instance_type(snapshot: Snapshot) -> Reading | None:
    instance = snapshot.instance
    return None if instance.type is None else (instance.type, instance.evidence[:1])


class HardwareDrift(DriftRule):
    id = "SC705"
    name = "hardware-drift"
    family = "fleet-drift"
    severity = Severity.WARNING
    title = "GPUs, EFA devices or the instance type differ between nodes"
    doc = RuleDoc(
        what="Compares the GPU models and counts, the number of EFA devices and the EC2 "
        "instance type across the nodes.",
        why="A node with a GPU fallen off the bus or an EFA device missing runs fewer ranks or "
        "sends over fewer rails; NCCL checks that ranks see matching network devices, and when "
        "that check is silenced the job hangs. Mixed instance types make the job run at the "
        "slowest type's speed.",
        example="63 nodes with 32 EFA devices and one node with 31 after a device failed.",
        fix="Drain the odd nodes and have them repaired or replaced "
        "(`scontrol update nodename=NODES state=drain reason=hardware-drift`).",
        references=(NET_MISMATCH,),
    )

    def aspects(self, fleet: FleetContext) -> Iterable[tuple[str, str, Aspect]]:
        yield "gpus", "The GPUs", _gpus
        yield "efa-devices", "The number of EFA devices", _efa_devices
        yield "instance-type", "The instance type", _instance_type


def _shm(snapshot: Snapshot) -> Reading | None:
    size = snapshot.runtime.shm_bytes
    return None if size is None else (f"{size // (1024 * 1024)} MiB", ())


def _memlock(snapshot: Snapshot) -> Reading | None:
    limit = snapshot.runtime.memlock_bytes
    if limit is None:
        return None
    return ("unlimited" if limit < 0 else f"{limit // 1024} KiB"), ()


class LimitsDrift(DriftRule):
    id = "SC706"
    name = "limits-drift"
    family = "fleet-drift"
    severity = Severity.WARNING
    title = "/dev/shm or the locked-memory limit differs between nodes"
    doc = RuleDoc(
        what="Compares the size of /dev/shm and the soft RLIMIT_MEMLOCK the probe ran with "
        "across the nodes.",
        why="NCCL puts intra-node buffers in /dev/shm and libfabric's EFA provider registers "
        "locked memory; a node with a smaller /dev/shm or a 64 KiB memlock limit fails or falls "
        "back to slower paths while the others run normally.",
        example="One node's slurmd was started without `LimitMEMLOCK=infinity`, so its jobs "
        "get memlock 64 KiB.",
        fix="Give every node the same limits (slurmd's unit file, /etc/security/limits.conf, the "
        "container runtime's --shm-size and --ulimit memlock=-1).",
    )

    def aspects(self, fleet: FleetContext) -> Iterable[tuple[str, str, Aspect]]:
        yield "shm", "The size of /dev/shm", _shm
        yield "memlock", "The locked-memory limit", _memlock


def _os(snapshot: Snapshot) -> Reading | None:
    platform = snapshot.platform
    return None if platform.os is None else (platform.os, platform.evidence[:1])


def _kernel(snapshot: Snapshot) -> Reading | None:
    platform = snapshot.platform
    if platform.kernel is None:
        return None
    said = [e for e in platform.evidence if platform.kernel in (e.detail or "")]
    return platform.kernel, said[:1]


class PlatformDrift(DriftRule):
    id = "SC707"
    name = "platform-drift"
    family = "fleet-drift"
    severity = Severity.INFO
    title = "The OS release or kernel differs between nodes"
    doc = RuleDoc(
        what="Compares the OS release and the kernel version across the nodes.",
        why="Not a fault by itself, but a node on another OS or kernel was built or updated "
        "differently, and the driver's kernel module and EFA's kernel driver follow the kernel.",
        example="Two nodes rebooted into a newer kernel after unattended upgrades.",
        fix="Re-image the odd nodes from the fleet's AMI, or hold kernel upgrades on all nodes.",
    )

    def aspects(self, fleet: FleetContext) -> Iterable[tuple[str, str, Aspect]]:
        yield "os", "The OS release", _os
        yield "kernel", "The kernel", _kernel


class NodeNoAnswer(FleetRule):
    id = "SC701"
    name = "node-no-answer"
    family = "fleet-drift"
    severity = Severity.ERROR
    title = "A node gave no snapshot"
    doc = RuleDoc(
        what="Lists the nodes that were asked but gave no snapshot: the probe timed out, "
        "failed, printed something that is not a snapshot, the node is missing from the "
        "output, or the scheduler says it cannot run anything.",
        why="A node that was not checked may have any of the faults the others were checked "
        "for, and a node whose probe hangs often hangs jobs too (a stuck NFS mount, a GPU "
        "that does not answer NVML).",
        example="`stackcheck fleet --slurm --nodes 64` where one node's probe hangs on a stale "
        "NFS mount and the per-node timeout fires.",
        fix="Read the reason given for each node. timeout: log in and run `stackcheck probe` "
        "there; failed: check that the remote command (--remote-command) exists on the node; "
        "garbage: the node runs another stackcheck or prints to stdout from a shell profile; "
        "unavailable: resume or repair the node in Slurm.",
    )

    def check_fleet(self, fleet: FleetContext) -> Iterable[Finding]:
        if not fleet.silent:
            return
        by_reason: dict[str, list[str]] = {}
        for silent in fleet.silent:
            by_reason.setdefault(silent.reason, []).append(silent.node)
        parts = "; ".join(f"{reason} on {compress(nodes)}" for reason, nodes in by_reason.items())
        nodes = [s.node for s in fleet.silent]
        base = self.finding(f"{len(nodes)} of {fleet.total} nodes gave no snapshot: {parts}.")
        yield NodeFinding(**dict(base), count=len(nodes), out_of=fleet.total, nodes=compress(nodes))
