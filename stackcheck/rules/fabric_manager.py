"""Family ``fabric-manager``: on NVSwitch systems (p4d, p5, p6 and other HGX boards) CUDA does not
start until nvidia-fabricmanager, of exactly the driver's version, has set up the NVLink fabric."""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.runtime_facts import runtime_evidence
from stackcheck.snapshot.model import ComponentName, Evidence

_READY_STATES = ("completed", "n/a", "not supported")
# HGX/DGX boards of NVLink 5, whose fabric manager needs NVLSM (not GB200/GB300 racks' trays)
_NVL5_BOARD = re.compile(r"(?<![A-Za-z])B(?:100|200|300)\b")


def _nvswitch_evidence(ctx: CheckContext) -> list[Evidence]:
    """Why this machine needs a fabric manager; [] when nothing says it does."""
    if ctx.snapshot.runtime.nvswitch_count:
        return runtime_evidence(ctx, "nvswitch", "10de")[:1] or ctx.snapshot.runtime.evidence[:1]
    instance = ctx.matrix.instance(ctx.snapshot.instance.type)
    if instance is not None and instance.fabric_manager:
        return ctx.snapshot.instance.evidence[:1]
    return []


class FabricManagerNotRunning(Rule):
    id = "SC521"
    name = "fabric-manager-not-running"
    family = "fabric-manager"
    severity = Severity.ERROR
    lowest = Severity.INFO  # NVLS failing where cuMem is named off (the service: a warning)
    title = "NVSwitch fabric not initialised (fabric manager missing or not running)"
    doc = RuleDoc(
        what="On a machine with NVSwitches (or an instance type that has them), checks that "
        "nvidia-fabricmanager is installed and running; and reads what says the fabric is not "
        "up: CUDA error 802 (`system not yet initialized`, `cudaErrorSystemNotReady`) and "
        "`nvidia-smi -q` showing the fabric state other than Completed, or (R550+) its Status "
        "other than Success (`Insufficient Resources`: the GPU's fabric registration failed); "
        "and the service's "
        "failure (systemd's `Job for nvidia-fabricmanager.service failed`, a report saying it "
        "was killed): an error where NVSwitches are known, else a warning; and NCCL failing to "
        "set up NVLink SHARP multicast (`Failed to bind NVLink SHARP (NVLS) Multicast memory`, "
        "`transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'`); that failure "
        "where the report names NCCL_CUMEM_ENABLE (off, or a setting the workers lacked) and "
        "shows no NVSwitch is advice: NVLS needs NCCL's cuMem allocations.",
        why="Until the fabric manager has configured the NVSwitches, `cudaGetDeviceCount()` fails "
        "with error 802 and `torch.cuda.is_available()` is False, although `nvidia-smi` lists "
        "every GPU (pytorch/pytorch#35710, dstackai/dstack#2348).",
        example="An 8x H100 instance from a custom AMI where nvidia-fabricmanager was never "
        "installed, or stopped after a driver upgrade.",
        fix="Install nvidia-fabricmanager of exactly the driver's version (Ubuntu: "
        "`cuda-drivers-fabricmanager-<branch>`), then `systemctl enable --now "
        "nvidia-fabricmanager`; wait for `nvidia-smi -q` to show the fabric State Completed.",
        references=(
            "https://github.com/pytorch/pytorch/issues/35710",
            "https://github.com/dstackai/dstack/issues/2348",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        snapshot = ctx.snapshot
        errors = [o for o in snapshot.observations("cuda-error") if o.value == "802"]
        states = [
            o
            for o in snapshot.observations("fabric-state")
            if (o.value or "").lower() not in _READY_STATES
        ]
        needs = _nvswitch_evidence(ctx)
        down = snapshot.observations("fabric-manager-down")
        harmless = snapshot.observations("fabric-manager-no-nvswitch")
        if down and not (errors or states or harmless):
            # The service failed: fatal where NVSwitches are known, a warning where not shown
            # (without NVSwitches it fails harmlessly, which NV_WARN_NOTHING_TO_DO tells: SC1201).
            yield self.finding(
                f"The fabric manager is not running ({(down[0].value or '')[:100]})"
                + (
                    ": this machine has NVSwitches, so CUDA will fail with error 802."
                    if needs
                    else "; on a machine with NVSwitches CUDA fails with error 802."
                ),
                [o.evidence for o in down[:2]] + needs,
                severity=None if needs else Severity.WARNING,
            )
            return
        nvls = snapshot.observations("nvls-multicast-failed")
        cumem = snapshot.observations("nccl-cumem-named")
        if nvls and cumem and not (errors or states or needs):
            # NVLS binds cuMem allocations to a multicast object: a process whose NCCL runs with
            # cuMem off (a framework's NCCL_CUMEM_ENABLE=0, a setting its workers did not get)
            # fails there on a healthy fabric. Nothing shows an NVSwitch fabric at fault.
            yield self.finding(
                f"NCCL could not set up NVLink SHARP multicast ({(nvls[0].value or '')[:100]}), "
                f"and the report names {(cumem[0].value or '')[:60]}: NVLS needs NCCL's cuMem "
                "allocations, so a process running with NCCL_CUMEM_ENABLE=0 (or without the "
                "setting its framework gives the others) fails there on a healthy fabric. Give "
                "every process, workers included, the same NCCL_CUMEM_ENABLE and NCCL_NVLS_ENABLE; "
                "if it fails with cuMem on, check the fabric manager.",
                [nvls[0].evidence, cumem[0].evidence],
                severity=Severity.INFO,
            )
            return
        if nvls and not (errors or states):
            yield self.finding(
                f"NCCL could not set up NVLink SHARP multicast ({(nvls[0].value or '')[:100]}): "
                "the NVSwitches' multicast groups are the fabric manager's, and NCCL names a "
                "fabric manager or NVSwitch configuration error as the usual cause.",
                [o.evidence for o in nvls[:2]] + needs,
                fix="Restart the fabric manager in its documented order (stop the GPU clients, "
                "restart nvidia-fabricmanager, check `nvidia-smi -q` shows the fabric State "
                "Completed), or reboot the node; NCCL_NVLS_ENABLE=0 only avoids NVLS.",
            )
            return
        if errors or states:
            what = (
                "CUDA error 802 (system not yet initialized)"
                if errors
                else (f"the NVLink fabric state is {states[0].value!r}")
            )
            yield self.finding(
                f"{what}: the NVSwitch fabric is not up, which means nvidia-fabricmanager is not "
                "running (or not of the driver's version).",
                [o.evidence for o in [*errors[:2], *states[:1]]] + needs,
            )
            return
        if not needs or snapshot.platform.container:
            return  # the fabric manager runs on the host, out of a container's sight
        managers = ctx.installations(ComponentName.FABRIC_MANAGER)
        if not managers and not snapshot.partial:
            yield self.finding(
                "This machine has NVSwitches but nvidia-fabricmanager is not installed: CUDA "
                "will fail with error 802.",
                needs,
            )
        for manager in managers:
            if manager.properties.get("running") == "no":
                yield self.finding(
                    f"nvidia-fabricmanager {manager.version or ''} is installed but not running: "
                    "CUDA will fail with error 802.",
                    [*manager.evidence, *needs],
                )


class FabricManagerVersionMismatch(Rule):
    id = "SC522"
    name = "fabric-manager-version-mismatch"
    family = "fabric-manager"
    severity = Severity.ERROR
    title = "Fabric manager and driver versions differ"
    doc = RuleDoc(
        what="Compares the nvidia-fabricmanager package's version with the NVIDIA driver's, and "
        "reads the fabric manager's own complaint (`fabric manager NVIDIA GPU driver interface "
        "version ... don't match with driver version ...`).",
        why="The fabric manager must be exactly the driver's version; otherwise it exits at "
        "start and the fabric stays down (CUDA error 802). It happens when the driver is "
        "upgraded (or installed from a .run file) and the fabric manager package is not.",
        example="Driver 550.90.07 with nvidia-fabricmanager-550 550.54.15 after an `apt upgrade` "
        "of the driver alone (NVIDIA/gpu-operator#544).",
        fix="Install the fabric manager of the driver's exact version and hold both packages "
        "together (`apt-mark hold`), as AWS ParallelCluster does.",
        references=("https://github.com/NVIDIA/gpu-operator/issues/544",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for mismatch in ctx.snapshot.observations("fabric-manager-mismatch"):
            yield self.finding(
                f"The fabric manager refused to start: its version and the driver's differ "
                f"({mismatch.value}).",
                [mismatch.evidence],
            )
        driver = ctx.driver
        if driver is None or driver.version is None:
            return
        for manager in ctx.installations(ComponentName.FABRIC_MANAGER):
            if manager.version and manager.version != driver.version:
                yield self.finding(
                    f"nvidia-fabricmanager {manager.version} does not match driver "
                    f"{driver.version}: it will refuse to start.",
                    [*manager.evidence, *driver.evidence[:1]],
                )


class FabricManagerWithoutNvswitch(Rule):
    id = "SC1201"
    name = "fabric-manager-without-nvswitch"
    family = "fabric-manager"
    severity = Severity.ERROR  # where the instance type has NVSwitches
    lowest = Severity.WARNING
    title = "Fabric manager started on a system without NVSwitch"
    doc = RuleDoc(
        what="Reads the fabric manager's own complaint that it found no NVSwitch to manage "
        "(`request to query NVSwitch device information from NVSwitch driver failed with "
        "error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]`). On an NVLink 5 board (HGX "
        "B100/B200/B300, or where its start script says `Detected NVL5+ system`) the same "
        "line means the NVLink Subnet Manager is not running: an error.",
        why="nvidia-fabricmanager only serves NVSwitch systems (HGX boards: DGX-2, A100/H100/"
        "B200 SXM). On PCIe GPUs, including pairs joined by an NVLink bridge, it has nothing to "
        "do and exits with an error, so its service shows as failed although the GPUs work "
        "without it (NVIDIA/gpu-operator#610).",
        example="Two A40s with an NVLink bridge; `systemctl start nvidia-fabricmanager` fails "
        "with NV_WARN_NOTHING_TO_DO.",
        fix="Disable and remove the fabric manager on this machine (`systemctl disable --now "
        "nvidia-fabricmanager`); NVLink bridges need no fabric manager. If the machine does have "
        "NVSwitches, check that the NVSwitch kernel driver is loaded.",
        references=("https://github.com/NVIDIA/gpu-operator/issues/610",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        said = ctx.snapshot.observations("fabric-manager-no-nvswitch")
        if not said:
            return
        blackwell = [g for g in ctx.snapshot.gpus.devices if _NVL5_BOARD.search(g.name)]
        detected = [
            o for o in ctx.snapshot.observations("fabric-nvlink-generation") if o.value == "NVL5+"
        ]
        if blackwell or detected:
            board = blackwell[0].name if blackwell else "system its start script found NVL5+"
            # On NVLink 5 boards the fabric manager reports nothing to do when NVLSM is not
            # running beside it (NVIDIA's fabric manager user guide, fourth-generation NVSwitch).
            yield self.finding(
                f"The fabric manager found no NVSwitch (NV_WARN_NOTHING_TO_DO) on a {board}: "
                "on NVLink 5 boards (HGX B100/B200/B300) that means the "
                "NVLink Subnet Manager (nvlsm) is not running with it, so the fabric stays down "
                "and CUDA fails with error 802.",
                [
                    said[0].evidence,
                    *(blackwell[0].evidence[:1] if blackwell else []),
                    *(o.evidence for o in detected[:1]),
                ],
                fix="Install nvlsm (and load ib_umad) and start the fabric manager through "
                "nvidia-fabricmanager-start.sh, which starts NVLSM on the NVSwitch management "
                "port first; then `nvidia-smi -q` shows the fabric State Completed.",
            )
            return
        needs = _nvswitch_evidence(ctx)
        if needs:
            yield self.finding(
                "The fabric manager found no NVSwitch (NV_WARN_NOTHING_TO_DO), yet this machine "
                "should have NVSwitches: the NVSwitch driver does not see them, so the fabric "
                "cannot come up.",
                [said[0].evidence, *needs],
            )
            return
        yield self.finding(
            "The fabric manager found no NVSwitch to manage (NV_WARN_NOTHING_TO_DO): this "
            "machine does not need it; the failing service can be disabled.",
            [said[0].evidence],
            severity=Severity.WARNING,
        )


class NvlsmPortGuessed(Rule):
    id = "SC1334"
    name = "nvlsm-port-guessed"
    family = "fabric-manager"
    severity = Severity.WARNING
    title = "The NVLink Subnet Manager's NVSwitch port was picked among several candidates"
    doc = RuleDoc(
        what="Reads the fabric manager wrapper of Talos' nvidia-fabricmanager extension listing "
        "the NVSwitch LPF ports it found (`nvidia-fabricmanager-wrapper: found NVSwitch LPF: "
        "device=mlx5_10 guid=0x...`) and warns where it lists two or more: that wrapper picks "
        "one without the SM-disabled check NVIDIA's `nvidia-fabricmanager-start.sh` makes.",
        why="On NVLink 5 systems (HGX/DGX B200, B300) the fabric manager needs NVLSM running on "
        "the NVSwitch management port; on a port whose subnet manager is disabled the NVSwitch "
        "fabric never comes up, and CUDA fails with error 802 (siderolabs/extensions#893).",
        example="Four `found NVSwitch LPF` lines (mlx5_8 to mlx5_11) on an HGX B200, then `using "
        "NVSwitch management port GUID: 0x...630`, and the GPUs' fabric stays In Progress.",
        fix="Use a wrapper that skips LPF ports whose isSMDisabled flag is set (the Talos "
        "extension after siderolabs/extensions#893 was fixed), or NVIDIA's "
        "nvidia-fabricmanager-start.sh; check with `ibstat` which port manages the NVSwitch.",
        references=("https://github.com/siderolabs/extensions/issues/893",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        found = ctx.snapshot.observations("nvswitch-lpf-candidate")
        ports = list(dict.fromkeys(o.value or "" for o in found))
        if len(ports) < 2:
            return
        yield self.finding(
            f"The fabric manager wrapper found {len(ports)} NVSwitch LPF ports "
            f"({', '.join(ports[:6])}) and picked one without checking which may run the "
            "subnet manager: on a port that cannot manage the NVSwitch, NVLSM never brings the "
            "fabric up.",
            [o.evidence for o in found[:2]],
        )
