"""The GPUs: NVML on a live host, else /proc/driver/nvidia/gpus, else nvidia-smi."""

from __future__ import annotations

import posixpath

from stackcheck.parsers.nvidia import GpuRecord, proc_gpu_information, smi_query_csv
from stackcheck.probes.base import Probe
from stackcheck.probes.context import ProbeContext
from stackcheck.probes.driver import nvml_present
from stackcheck.snapshot.model import Evidence, Gpu, Snapshot
from stackcheck.views.needs import Needs

PROC_GPUS = "/proc/driver/nvidia/gpus"
_SMI_FIELDS = ("index", "name", "memory.total", "pci.bus_id", "driver_version", "compute_cap")
_SMI_FIELDS_OLD = _SMI_FIELDS[:-1]  # drivers before R510 do not know compute_cap


def _gpu(record: GpuRecord, evidence: Evidence) -> Gpu:
    return Gpu(
        index=record.index,
        name=record.name,
        memory_mib=record.memory_mib,
        compute_capability=record.compute_capability,
        pci_bus_id=record.pci_bus_id,
        evidence=[evidence],
    )


class GpuProbe(Probe):
    name = "gpus"
    needs = Needs(contents=(f"{PROC_GPUS}/*/information",))

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        reasons: list[str] = []
        inventory = snapshot.gpus
        if ctx.live is not None and nvml_present(ctx):
            report = ctx.live.nvml()
            if report.gpus:
                inventory.devices = [
                    _gpu(
                        g, Evidence(kind="nvml", source="nvmlDeviceGetHandleByIndex", detail=g.name)
                    )
                    for g in report.gpus
                ]
                return
            reasons.append(report.reason or "NVML listed no GPU")

        for directory in ctx.view.glob(posixpath.join(PROC_GPUS, "*")):
            path = posixpath.join(directory, "information")
            record = proc_gpu_information(ctx.view.read_text(path, limit=16384) or "")
            if record is not None:
                inventory.devices.append(_gpu(record, ctx.file_evidence(path, record.name)))
        if inventory.devices:
            inventory.devices.sort(key=lambda g: (g.index is None, g.index, g.pci_bus_id))
            return
        reasons.append(f"no {PROC_GPUS}/*/information")

        if ctx.live is not None:
            for fields in (_SMI_FIELDS, _SMI_FIELDS_OLD):
                argv = [
                    "nvidia-smi",
                    f"--query-gpu={','.join(fields)}",
                    "--format=csv,noheader,nounits",
                ]
                result = ctx.live.command(argv)
                if result.stdout is not None:
                    evidence = Evidence(kind="command", source=result.command_line)
                    inventory.devices = [
                        _gpu(r, evidence) for r in smi_query_csv(result.stdout, fields)
                    ]
                    return
                if result.reason and "not found" in result.reason:
                    reasons.append(result.reason)
                    break
            else:
                reasons.append("nvidia-smi could not list GPUs")
        inventory.unknown = "; ".join(reasons)
