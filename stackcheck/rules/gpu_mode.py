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
        "and nvidia-container-cli's `driver error: timed out` / `driver rpc error: timed out`, "
        "which a driver re-initialising the GPUs at each container start causes (a warning).",
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
        timeouts = ctx.snapshot.observations("driver-init-timeout")
        if timeouts:
            # Not a slow start but a failed one: the container was never created.
            yield self.finding(
                "The driver took too long to initialise the GPUs for a container "
                f"({(timeouts[0].value or '')[:100]}): persistence mode is off and "
                "nvidia-persistenced is not running.",
                [o.evidence for o in timeouts[:2]],
                severity=Severity.WARNING,
            )
        off = [g for g in ctx.snapshot.hardware.gpus if g.persistence_mode is False]
        if off:
            yield self.finding(
                f"Persistence mode is off on {len(off)} GPU{'s' if len(off) > 1 else ''}: "
                + ", ".join(gpu_label(g) for g in off[:4])
                + (" ..." if len(off) > 4 else "")
                + ".",
                [e for g in off[:2] for e in g.evidence[:1]],
                severity=Severity.INFO,
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
        "MIG-...`, `nvidia.com/mig-1g.10gb`, the device plugin's `migStrategy: mixed`): MIG is "
        "meant to be on there.",
        why="With MIG enabled a process sees GPU instances, not the GPU: a training job gets a "
        "slice of the memory and SMs, and NCCL cannot use NVLink or P2P between MIG instances. "
        "A node left in MIG mode after inference work trains far slower, or its jobs fail to "
        "find the GPUs they expect.",
        example="`nvidia-smi -q` shows `MIG Mode / Current : Enabled` on one of the 8 GPUs of a "
        "training node.",
        fix="Disable it where a full GPU is expected: `sudo nvidia-smi -i N -mig 0`, then reset "
        "the GPU or reboot.",
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        selected = ctx.snapshot.observations("mig-selected")
        level = Severity.INFO if selected else None
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
