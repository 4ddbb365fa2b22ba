"""Family ``gpu-mode``: GPU settings that do not suit a training host: persistence mode off,
MIG left enabled."""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.hardware_facts import gpu_label

DCGM_SOFTWARE = (
    "NVIDIA/DCGM nvvs/src/Software.cpp (the Persistence Mode check of dcgmi diag's deployment "
    "tests)"
)


class PersistenceModeOff(Rule):
    id = "SC1120"
    name = "persistence-mode-off"
    family = "gpu-mode"
    severity = Severity.WARNING  # when a container failed to start because of it
    lowest = Severity.INFO
    title = "GPU persistence mode is off"
    doc = RuleDoc(
        what="Reads each GPU's persistence mode (NVML or `nvidia-smi -q` `Persistence Mode`), "
        "the `Persistence-M` cell of `nvidia-smi`'s table, a report's sentence that says it was "
        "off or that turning it on fixed the problem, a health check's verdict that it is off "
        "(CycleCloud's healthagent, DCGM's deployment test), and nvidia-container-cli's "
        "`driver error: timed out` / `driver rpc error: timed out`, which a driver "
        "re-initialising the GPUs at "
        "each container start causes. A warning where the report says it was off, on the "
        "timeout, or where a table shows it off and the report says nvidia-smi takes minutes; "
        "advice otherwise (off is the default on many hosts).",
        why="Without it (and without nvidia-persistenced) the driver tears the GPUs down when "
        "the last process exits and initialises them again for the next: every job, every "
        "`nvidia-smi` and every health check pays seconds of start-up, and state such as "
        "application clocks is lost between jobs. `dcgmi diag` warns about it.",
        example="`nvidia-smi -q` shows `Persistence Mode : Disabled` on a training node.",
        fix="Run nvidia-persistenced (`systemctl enable --now nvidia-persistenced`), or `sudo "
        "nvidia-smi -pm 1` at boot.",
        references=(DCGM_SOFTWARE,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        snapshot = ctx.snapshot
        off = [g for g in snapshot.hardware.gpus if g.persistence_mode is False]
        on = [g for g in snapshot.hardware.gpus if g.persistence_mode]
        stated = [] if on and not off else snapshot.observations("persistence-off-stated")
        timeouts = snapshot.observations("driver-init-timeout")
        slow = snapshot.observations("gpu-init-slow-stated") if off else []
        if timeouts:
            # Not a slow start but a failed one: the container was never created. Persistence
            # mode off is the usual cause, named as such where the text also shows or says it.
            shown = bool(stated or off)
            yield self.finding(
                "The driver took too long to initialise the GPUs for a container "
                f"({(timeouts[0].value or '')[:100]}): "
                + (
                    "persistence mode is off and nvidia-persistenced is not running."
                    if shown
                    else "most likely persistence mode is off and nvidia-persistenced is not "
                    "running."
                ),
                [o.evidence for o in timeouts[:2]] + [o.evidence for o in stated[:1]],
                severity=Severity.WARNING,
            )
            return
        if stated:
            yield self.finding(
                f"The report says persistence mode was off ({(stated[0].value or '')[:80]}): the "
                "driver initialises the GPUs anew for every client, slowly on large GPUs.",
                [stated[0].evidence],
                severity=Severity.WARNING,
            )
            return
        if off:
            cause = (
                f"; the report says nvidia-smi is slow ({(slow[0].value or '')[:60]}), which "
                "re-initialising the GPUs for every client causes"
                if slow
                else ""
            )
            yield self.finding(
                f"Persistence mode is off on {len(off)} GPU{'s' if len(off) > 1 else ''}: "
                + ", ".join(gpu_label(g) for g in off[:4])
                + (" ..." if len(off) > 4 else "")
                + cause
                + ".",
                [e for g in off[:2] for e in g.evidence[:1]] + [o.evidence for o in slow[:1]],
                severity=Severity.WARNING if slow else Severity.INFO,
            )


class MigEnabled(Rule):
    id = "SC1121"
    name = "mig-enabled"
    family = "gpu-mode"
    severity = Severity.WARNING
    lowest = Severity.INFO  # where the text gives a process MIG instances by name
    title = "MIG is enabled on a GPU"
    doc = RuleDoc(
        what="Reads each GPU's MIG mode (NVML `nvmlDeviceGetMigMode`, `nvidia-smi -q` "
        "`MIG Mode / Current`, the `MIG M.` column and `MIG devices:` table of `nvidia-smi`, "
        "MIG instances under a GPU in `nvidia-smi -L`, `nvidia-smi -mig 1`'s `Enabled MIG Mode "
        "for GPU`), or a report's sentence that says the GPUs are in MIG mode. Advice (info) "
        "where the text hands a process or pod MIG instances by name (`CUDA_VISIBLE_DEVICES="
        "MIG-...`, `nvidia.com/mig-1g.10gb`, the device plugin's `migStrategy: mixed`, a MIG UUID "
        "a program failed to parse as a device index): MIG is "
        "meant to be on there, unless the report says one job runs across several MIG "
        "instances. Also reads a MIG mode change left pending (nvidia-smi's `MIG mode "
        "is in pending enable state`, mig-parted's `Mode change pending: true`, a sentence that "
        "says enabling MIG needs a reboot): a warning. A device list naming two or more MIG "
        "devices for one process (`CUDA_VISIBLE_DEVICES=MIG-...,MIG-...`) is advice, and a "
        "warning where the report says the program saw a single device: a CUDA process "
        "enumerates only one MIG device.",
        why="With MIG enabled a process sees GPU instances, not the GPU: a training job gets a "
        "slice of the memory and SMs, and NCCL cannot use NVLink or P2P between MIG instances. "
        "A node left in MIG mode after inference work trains far slower, or its jobs fail to "
        "find the GPUs they expect.",
        example="`nvidia-smi -q` shows `MIG Mode / Current : Enabled` on one of the 8 GPUs of a "
        "training node.",
        fix="Disable it where a full GPU is expected: `sudo nvidia-smi -i N -mig 0`, then reset "
        "the GPU or reboot. A pending change takes effect after `nvidia-smi -r -i N` (no process "
        "on the GPU) or a reboot.",
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        listed = ctx.snapshot.observations("mig-several-listed")
        seen_one = ctx.snapshot.observations("one-device-seen-stated")
        if listed:
            # A warning where the report says the program then saw one device; the list alone
            # may be a demonstration of the rule (pytorch#92315's verification).
            yield self.finding(
                "One device list names several MIG devices "
                f"({(listed[0].value or '')[:90]}...): a CUDA process enumerates only one MIG "
                "device (MIG User Guide, CUDA 11/R450 and 12/R525), so it sees the first alone. "
                "Run one process per MIG device, or disable MIG where one process must use "
                "several GPUs.",
                [listed[0].evidence, *(o.evidence for o in seen_one[:1])],
                severity=Severity.WARNING if seen_one else Severity.INFO,
            )
            return
        pending = ctx.snapshot.observations("mig-pending")
        if pending:
            yield self.finding(
                f"A MIG mode change is pending ({(pending[0].value or '')[:100]}): the GPU keeps "
                "its old mode until it is reset or the machine reboots, and MIG configurations "
                "cannot be applied meanwhile.",
                [o.evidence for o in pending[:2]],
                severity=Severity.WARNING,
            )
        # A MIG UUID a program failed to parse as a device index was handed to it as its device:
        # MIG is meant to be on there too.
        selected = ctx.snapshot.observations("mig-selected") or [
            o
            for o in ctx.snapshot.observations("device-uuid-unparsed")
            if (o.value or "").startswith("MIG")
        ]
        # One job spread over several MIG instances is at odds with MIG whatever names them.
        spanned = ctx.snapshot.observations("mig-spanned-stated")
        level = Severity.INFO if selected and not spanned else None
        meant = f"; the text hands out MIG instances ({selected[0].value})" if selected else ""
        on = [g for g in ctx.snapshot.hardware.gpus if g.mig_mode]
        if on:
            yield self.finding(
                "MIG is enabled on " + ", ".join(gpu_label(g) for g in on[:4]) + meant + ".",
                [e for g in on[:2] for e in g.evidence[:1]],
                severity=level,
            )
            return
        stated = ctx.snapshot.observations("mig-stated")
        # Only where no GPU's own MIG state is shown: a table saying Disabled outweighs prose.
        if stated and not any(g.mig_mode is False for g in ctx.snapshot.hardware.gpus):
            yield self.finding(
                f"The report says the GPUs are in MIG mode ({stated[0].value}): a process sees "
                "MIG instances, not whole GPUs (CUDA enumerates one instance per process)"
                + meant
                + ".",
                [stated[0].evidence],
                severity=level,
            )


class ComputeModeExclusive(Rule):
    id = "SC1322"
    name = "compute-mode-exclusive"
    family = "gpu-mode"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "A GPU's compute mode lets only one process use it, or none"
    doc = RuleDoc(
        what="Reads the `Compute M.` cell of `nvidia-smi`'s table (`E. Process`, `E. Thread`, "
        "`Prohibited`) and CUDA's error 46 (`all CUDA-capable devices are busy or unavailable`, "
        "`CUDA-capable device(s) is/are busy or unavailable`). A warning where error 46 comes "
        "with a GPU in an exclusive mode, or where a GPU is Prohibited; advice where only one of "
        "them is shown (exclusive mode is a common cluster policy; error 46 also follows a GPU "
        "that needs a reset).",
        why="In Exclusive_Process mode a GPU takes one CUDA context: a second process (another "
        "job, a DataLoader worker or evaluation process that touches CUDA, a stray notebook "
        "kernel) fails with error 46 at its first CUDA call. Prohibited lets no process use it.",
        example="`Check failed: error == cudaSuccess (46 vs. 0)  all CUDA-capable devices are busy "
        "or unavailable` next to `nvidia-smi` showing `E. Process` (NVIDIA/DIGITS#2005).",
        fix="Find the process holding the GPU (`nvidia-smi --query-compute-apps=pid,name "
        "--format=csv`) and stop it, use another GPU, or set the default mode where sharing is "
        "meant: `sudo nvidia-smi -i N -c DEFAULT` (MPS is the way to share an exclusive GPU).",
        references=("https://github.com/NVIDIA/DIGITS/issues/2005",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        modes = ctx.snapshot.observations("compute-mode-exclusive")
        busy = ctx.snapshot.observations("devices-unavailable")
        prohibited = [o for o in modes if "Prohibited" in (o.value or "")]
        shown = "; ".join(dict.fromkeys((o.value or "") for o in modes[:4]))
        if busy and modes:
            yield self.finding(
                f"CUDA found the GPUs busy or unavailable ({(busy[0].value or '')[:80]}) and "
                f"nvidia-smi shows an exclusive compute mode ({shown}): another process holds "
                "the GPU.",
                [busy[0].evidence, *(o.evidence for o in modes[:2])],
                severity=Severity.WARNING,
            )
        elif prohibited:
            yield self.finding(
                f"A GPU's compute mode is Prohibited ({shown}): no process can use it.",
                [o.evidence for o in prohibited[:2]],
                severity=Severity.WARNING,
            )
        elif modes:
            yield self.finding(
                f"GPUs are in an exclusive compute mode ({shown}): one CUDA process per GPU; a "
                "second one fails with 'busy or unavailable'.",
                [o.evidence for o in modes[:2]],
                severity=Severity.INFO,
            )
        elif busy and not ctx.snapshot.hardware.xids:  # (an Xid, e.g. 154, says why: SC1117's)
            yield self.finding(
                f"CUDA found the GPUs busy or unavailable ({(busy[0].value or '')[:80]}): an "
                "exclusive compute mode with another process on the GPU, or a GPU that needs a "
                "reset; `nvidia-smi` shows which.",
                [busy[0].evidence],
                severity=Severity.INFO,
            )
