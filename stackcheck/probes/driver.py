"""The NVIDIA driver: kernel module and user-space libraries, which must be the same version.

Sources, most authoritative first: NVML (live host), /proc/driver/nvidia/version, the real file
names of libcuda.so.<version> and libnvidia-ml.so.<version>, and nvidia-smi as a last resort.
Sightings of one version merge into one installation; a kernel module and user-space libraries
of different versions stay apart, since that mismatch stops CUDA from starting.
"""

from __future__ import annotations

import posixpath

from stackcheck.parsers.nvidia import proc_driver_version, smi_driver_version
from stackcheck.probes.base import Probe, libraries, set_unknown, soname_version
from stackcheck.probes.context import ProbeContext
from stackcheck.snapshot.model import (
    ComponentName,
    Evidence,
    Installation,
    Origin,
    Snapshot,
)
from stackcheck.views.needs import Needs

PROC_VERSION = "/proc/driver/nvidia/version"
_USER_LIBRARIES = ("libcuda", "libnvidia-ml")
_SMI = ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader,nounits"]


def nvml_present(ctx: ProbeContext) -> bool:
    """Whether NVML's library is where dlopen would find it; if not, pynvml is not even loaded."""
    return ctx.loader.resolve(ctx.view, "libnvidia-ml.so.1") is not None


def _record(
    snapshot: Snapshot,
    version: str,
    origin: Origin,
    path: str,
    evidence: Evidence,
    cuda: str | None = None,
) -> None:
    for known in snapshot.installations(ComponentName.DRIVER):
        if known.version == version:
            if evidence not in known.evidence:
                known.evidence.append(evidence)
            known.cuda = known.cuda or cuda
            return
    snapshot.installations(ComponentName.DRIVER).append(
        Installation(version=version, origin=origin, path=path, cuda=cuda, evidence=[evidence])
    )


class DriverProbe(Probe):
    name = "driver"
    needs = Needs(contents=(PROC_VERSION,))

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        reasons: list[str] = []
        if ctx.live is not None and nvml_present(ctx):
            report = ctx.live.nvml()
            if report.driver_version:
                evidence = Evidence(
                    kind="nvml", source="nvmlSystemGetDriverVersion", detail=report.driver_version
                )
                _record(
                    snapshot,
                    report.driver_version,
                    "kernel",
                    PROC_VERSION,
                    evidence,
                    cuda=report.cuda_version,
                )
            else:
                reasons.append(report.reason or "NVML gave no driver version")
        elif ctx.live is not None:
            reasons.append("NVML: libnvidia-ml.so.1 is not on the loader path")

        text = ctx.view.read_text(PROC_VERSION, limit=4096) or ""
        version = proc_driver_version(text)
        if version:
            line = next(ln for ln in text.splitlines() if "NVRM" in ln).strip()
            _record(
                snapshot, version, "kernel", PROC_VERSION, ctx.file_evidence(PROC_VERSION, line)
            )
        else:
            reasons.append(f"{PROC_VERSION} absent (no NVIDIA kernel module loaded)")

        if not self._user_space(ctx, snapshot):
            reasons.append(
                "no libcuda.so.<version> or libnvidia-ml.so.<version> on the loader path"
            )

        if not snapshot.installations(ComponentName.DRIVER) and ctx.live is not None:
            result = ctx.live.command(_SMI)
            smi_version = smi_driver_version(result.stdout or "")
            if smi_version:
                evidence = Evidence(kind="command", source=result.command_line, detail=smi_version)
                _record(snapshot, smi_version, "kernel", PROC_VERSION, evidence)
            else:
                reasons.append(result.reason or "nvidia-smi printed no driver version")
        set_unknown(snapshot, ComponentName.DRIVER, "; ".join(reasons))

    @staticmethod
    def _user_space(ctx: ProbeContext, snapshot: Snapshot) -> bool:
        # The forward-compat libcuda (…/cuda/compat) is a different thing: see the CUDA probe.
        dirs = [d.path for d in ctx.loader.system_dirs() if "/compat" not in d.path]
        found = False
        for stem in _USER_LIBRARIES:
            for real, names in libraries(ctx, dirs, stem).items():
                version = soname_version(posixpath.basename(real), stem)
                if version:
                    found = True
                    evidence = Evidence(
                        kind="filename",
                        source=names[0],
                        detail=posixpath.basename(real),
                        layer=ctx.view.provenance(real),
                    )
                    _record(snapshot, version, "system", real, evidence)
        return found
