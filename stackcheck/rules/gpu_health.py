"""Family ``gpu-health``: GPUs that are throttled, have memory errors waiting on a reset, or
logged an Xid that says their memory, bus or NVLink is failing."""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.hardware_facts import gpu_label
from stackcheck.snapshot.hardware import GpuHealth, XidEvent, normalise_bus_id

XID_CATALOG = "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"
_PID = re.compile(r"\bpid=(\d{1,10})\b")
_MANY_PROCESSES = 3  # distinct processes one GPU logged a program-level Xid for
GPU_DEBUG = (
    "stas00/ml-engineering@62d4359e484937e002469057f809c4149f02734d:compute/accelerator/nvidia/"
    "debug.md (Xid 63 and the Pending remapped row in nvidia-smi -q; reset to activate)"
)


class GpuThrottled(Rule):
    id = "SC1115"
    name = "gpu-throttled"
    family = "gpu-health"
    severity = Severity.WARNING
    title = "A GPU's clocks are held down by a hardware or thermal slowdown"
    doc = RuleDoc(
        what="Reads each GPU's active clock event (throttle) reasons from NVML or `nvidia-smi "
        "-q` and reports HW Slowdown, HW Thermal Slowdown, HW Power Brake Slowdown and SW "
        "Thermal Slowdown. Idle, application clocks, sync boost and the software power cap (a "
        "GPU at its power limit under load) are normal and left alone.",
        why="NVML's own description: HW Slowdown reduces the core clocks by a factor of 2 or "
        "more. A GPU held there runs every kernel at half speed or less, and in a data-parallel "
        "job every other GPU waits for it at each step. Causes are heat (failed fan, blocked "
        "airflow), the power supply asserting power brake, or a failing board.",
        example="`nvidia-smi -q` shows `HW Slowdown : Active` and `HW Power Brake Slowdown : "
        "Active` under Clocks Event Reasons.",
        fix="Check temperatures and power (`nvidia-smi -q -d TEMPERATURE,POWER,PERFORMANCE`); "
        "if the slowdown stays under a normal load, drain the node and have its cooling or "
        "power checked.",
        references=("https://github.com/kubeflow/kubeflow/issues/68 (nvml.h on HW Slowdown)",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for gpu in ctx.snapshot.hardware.gpus:
            if gpu.throttle_reasons:
                yield self.finding(
                    f"{gpu_label(gpu)}: clocks held down by {', '.join(gpu.throttle_reasons)}.",
                    gpu.evidence[:3],
                )


def _memory_problems(gpu: GpuHealth) -> tuple[list[str], bool]:
    """What is wrong with the GPU's memory, and whether it is an error (not just pending)."""
    said: list[str] = []
    error = False
    if gpu.remap_failure:
        said.append("a row remapping failed")
        error = True
    if gpu.ecc_uncorrectable_volatile:
        said.append(
            f"{gpu.ecc_uncorrectable_volatile} uncorrectable ECC errors since the last reset"
        )
        error = True
    if gpu.remap_pending:
        said.append("remapped rows are pending (a reset activates them)")
    if gpu.retired_pages_pending:
        said.append("retired pages are pending (a reset retires them)")
    return said, error


class GpuMemoryErrors(Rule):
    id = "SC1116"
    name = "gpu-memory-errors"
    family = "gpu-health"
    severity = Severity.ERROR
    lowest = Severity.WARNING  # remaps pending, no uncorrectable error yet
    title = "A GPU has uncorrectable memory errors or remaps waiting for a reset"
    doc = RuleDoc(
        what="Reads each GPU's ECC counters and row remapping state (NVML or `nvidia-smi -q`: "
        "ECC Errors, Remapped Rows, Retired Pages). Uncorrectable errors since the last reset "
        "or a failed remapping are errors; pending remaps or page retirements are warnings. Also "
        "reads CUDA's `uncorrectable ECC error encountered` (error 214).",
        why="An uncorrectable ECC error kills the process that read the memory and, until the "
        "GPU is reset, can strike again; a pending remap means a bad row is still in use until "
        "then. A failed remapping means the GPU has run out of spare rows and needs replacing.",
        example="`nvidia-smi -q` shows `Remapped Rows / Pending : Yes` after an Xid 63.",
        fix="Drain the node, reset the GPU (`nvidia-smi -r -i N`) or reboot so the remapping "
        "takes effect, then run `dcgmi diag -r 2`; a remapping failure or errors that return "
        "mean the GPU needs an RMA.",
        references=(GPU_DEBUG,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        reported = ctx.snapshot.observations("ecc-uncorrectable")
        if reported and not any(_memory_problems(g)[1] for g in ctx.snapshot.hardware.gpus):
            # CUDA's own error 214 (or the report's words), where no ECC counter was shown.
            yield self.finding(
                "A GPU's memory had an uncorrectable ECC error, as the text reports: "
                f"{(reported[0].value or '')[:100]}.",
                [o.evidence for o in reported[:2]],
            )
        for gpu in ctx.snapshot.hardware.gpus:
            said, error = _memory_problems(gpu)
            if said:
                yield self.finding(
                    f"{gpu_label(gpu)}: {'; '.join(said)}.",
                    gpu.evidence[:3],
                    severity=Severity.ERROR if error else Severity.WARNING,
                )


class GpuXid(Rule):
    id = "SC1117"
    name = "gpu-xid"
    family = "gpu-health"
    severity = Severity.ERROR
    lowest = Severity.INFO  # the matrix's xid table: error, warning, or info (program faults)
    title = "The driver logged an Xid that says a GPU is failing"
    doc = RuleDoc(
        what="Reads `NVRM: Xid` lines of the kernel log (the probe reads the tail of "
        "/var/log/kern.log; triage reads pasted dmesg and journal lines) and reports the codes "
        "the matrix's `xid` table names: 48 (double-bit ECC), 63/64 (row remapping event and "
        "failure), 74 (NVLink), 79 (fallen off the bus), 92 (high single-bit rate), 94/95 "
        "(contained/uncontained ECC), 119/120 (GSP timeout, GSP error), 154 (recovery action: "
        "reset required), 62 (micro-controller halt), 78 (vGPU start error: a VM's guest "
        "driver not of the host's vGPU release) and 140 (unrecovered ECC). "
        "Severity comes from the table; 13, 31 and 43 (usually the application's "
        "own faults) are advice, and a warning where one GPU logs one of them for three or more "
        "different processes on a machine with another GPU known (the GPU is then the common "
        "factor; with one GPU, every program's fault lands on it); other codes are left alone. "
        "Also read where no NVRM Xid "
        "line is pasted: NVRM's `has fallen off the bus` and NVML's `GPU is lost` (79), "
        "`NV_ERR_RESET_REQUIRED` (154), the GSP's RPC timeout (119), an Xid "
        "named elsewhere (`XidCriticalError: Xid=48`), the k8s device plugin marking a GPU "
        "unhealthy for an Xid (a warning), NVRM's `RmInitAdapter failed!` (a GPU the driver "
        "could not initialise: an error; advice where the report names the firmware's Above 4G "
        "Decoding or Resizable BAR, which a large-BAR GPU needs on; left to SC1327 where the "
        "report shows no NVIDIA kernel module can run the GPU: missing for the kernel, failed "
        "to build, or refusing the GPU), and nvidia-smi's `Unable to determine "
        "the device handle ... Unknown Error` (a warning).",
        why="These codes mean the GPU's memory, PCIe link or NVLink failed. A job on it crashed "
        "or will; restarted on the same GPU without a reset it fails again, often hours into the "
        "run.",
        example="`NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus` in dmesg.",
        fix="Follow the action the finding names (reset the GPU, reboot, or drain the node for "
        "service); check `nvidia-smi -q` for the GPU's ECC and remapping state afterwards.",
        references=(XID_CATALOG,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        xids = {event.code for event in ctx.snapshot.hardware.xids}
        unreachable = ctx.snapshot.observations("gpu-unreachable")
        if unreachable and 79 not in xids:
            # nvidia-smi's "Unknown Error" for one GPU: often Xid 79 (the kernel log tells), also
            # a container that lost a device node; a warning until the log says which.
            yield self.finding(
                f"NVML cannot reach a GPU the driver lists ({(unreachable[0].value or '')[:80]}): "
                "it may have fallen off the bus; look for Xid 79 in the kernel log.",
                [o.evidence for o in unreachable[:2]],
                severity=Severity.WARNING,
            )
        yield from self._said_by_others(ctx, xids)
        groups: dict[tuple[int, str], list[XidEvent]] = {}
        for event in ctx.snapshot.hardware.xids:
            groups.setdefault((event.code, event.bus_id or "?"), []).append(event)
        gpus = {g.bus_id: g for g in ctx.snapshot.hardware.gpus}
        # "The GPU is the common factor" needs another GPU to compare with: on a machine known
        # to have one GPU, every program's fault lands on it.
        known_gpus = set(gpus) | {normalise_bus_id(bus) for _, bus in groups if bus != "?"}
        for (code, bus), events in groups.items():
            known = ctx.matrix.xid(code)
            if known is None:
                continue
            gpu = gpus.get(normalise_bus_id(bus)) if bus != "?" else None
            where = gpu_label(gpu) if gpu is not None else f"GPU {bus}" if bus != "?" else "A GPU"
            times = f" ({len(events)} times)" if len(events) > 1 else ""
            severity = self.capped(known.unsure, Severity(known.severity))
            # An Xid programs usually cause, logged on one GPU for many different processes:
            # the GPU, not a program, is the common factor.
            pids = {p for e in events for p in _PID.findall(e.text or "")}
            suspect = (
                severity is Severity.INFO
                and bus != "?"
                and len(known_gpus) >= 2
                and len(pids) >= _MANY_PROCESSES
            )
            yield self.finding(
                f"{where}: Xid {code}{times}, {known.meaning}. "
                + (
                    f"It was logged for {len(pids)} different processes on this GPU alone: "
                    "suspect the GPU. "
                    if suspect
                    else ""
                )
                + known.action,
                [e.evidence for e in events[:3]],
                severity=Severity.WARNING if suspect else severity,
            )

    def _said_by_others(self, ctx: CheckContext, xids: set[int]) -> Iterable[Finding]:
        """A GPU the driver could not initialise (NVRM's RmInitAdapter failed), and one the k8s
        device plugin took out of service for an Xid the matrix does not name (a named one is
        reported below with its meaning)."""
        failed = ctx.snapshot.observations("gpu-init-failed")
        firmware = ctx.snapshot.observations("firmware-bar-off")
        if ctx.snapshot.observations("driver-module-unusable"):
            failed = []  # the kernel module refused the GPU: SC1327 names why
        if failed and firmware:
            # A large-BAR GPU cannot be mapped while the firmware's 64-bit BAR settings are off:
            # a platform setting, not a failing GPU or driver.
            yield self.finding(
                f"The driver could not initialise a GPU ({(failed[0].value or '')[:80]}), and "
                f"the report names the firmware setting ({(firmware[0].value or '')[:40]}): with "
                "Above 4G Decoding or Resizable BAR off the driver cannot map a large-BAR GPU. "
                "Enable both in the BIOS.",
                [failed[0].evidence, firmware[0].evidence],
                severity=Severity.INFO,
            )
        elif failed:
            yield self.finding(
                f"The driver could not initialise a GPU ({(failed[0].value or '')[:80]}): nothing "
                "on the machine can use it, and nvidia-smi lists one GPU fewer. Reboot; if it "
                "repeats, check the GPU's power and seating, or have it replaced.",
                [o.evidence for o in failed[:2]],
            )
        for marked in ctx.snapshot.observations("gpu-marked-unhealthy")[:1]:
            code = re.match(r"Xid (\d+)", marked.value or "")
            if (
                code is not None
                and int(code.group(1)) in xids
                and ctx.matrix.xid(int(code.group(1)))
            ):
                continue
            yield self.finding(
                f"The Kubernetes device plugin marked a GPU unhealthy ({marked.value}): it is out "
                "of the node's allocatable GPUs until it is reset and the plugin restarted.",
                [marked.evidence],
                severity=Severity.WARNING,
            )
