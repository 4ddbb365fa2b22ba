"""NVIDIA Fabric Manager and the NVSwitches it drives.

On NVSwitch systems (HGX A100/H100/H200/B200: p4d, p5, p6) CUDA fails with error 802 until
``nv-fabricmanager`` of exactly the driver's version has configured the fabric. The probe reads,
never runs: the binary and the Debian package for the version, ``/proc/*/comm`` for whether it
runs (live hosts only), and the NVSwitch devices from ``/proc/driver/nvidia-nvswitch`` or PCI IDs.
"""

from __future__ import annotations

import posixpath
import re

from stackcheck.probes.base import Probe, add_installation, set_unknown
from stackcheck.probes.context import ProbeContext
from stackcheck.probes.sysfs import PCI_DEVICES
from stackcheck.snapshot.model import ComponentName, Evidence, Installation, Snapshot

# Debian/RPM packages install the binary in /usr/bin; Bottlerocket ships it under libexec
# (bottlerocket-os/bottlerocket#3873 shows the running unit).
BINARIES = ("/usr/bin/nv-fabricmanager", "/usr/libexec/nvidia/tesla/bin/nv-fabricmanager")
NVSWITCH_PROC = "/proc/driver/nvidia-nvswitch/devices"
# NVSwitch PCI device IDs the AWS ParallelCluster cookbook keys fabric manager on (A100, H100).
NVSWITCH_PCI_IDS = frozenset({"0x1af1", "0x22a3"})
_PACKAGE = re.compile(r"^(?:nvidia-fabricmanager(?:-\d{3})?|cuda-drivers-fabricmanager-\d{3})$")
_COMM = "nv-fabricmanage"  # /proc/<pid>/comm keeps 15 characters of "nv-fabricmanager"


class FabricManagerProbe(Probe):
    name = "fabric-manager"

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        self._nvswitches(ctx, snapshot)
        binary = next((b for b in BINARIES if ctx.view.is_file(b)), None)
        installation = Installation(path=binary or BINARIES[0], origin="system")
        if binary is not None:
            installation.evidence.append(ctx.file_evidence(binary, "present"))
        for package, version in ctx.dpkg.items():
            if _PACKAGE.match(package):
                installation.version = installation.version or version.split("-")[0]
                installation.evidence.append(
                    Evidence(
                        kind="package",
                        source="/var/lib/dpkg/status",
                        detail=f"{package} {version}",
                    )
                )
        if not installation.evidence:
            set_unknown(
                snapshot,
                ComponentName.FABRIC_MANAGER,
                f"no {' or '.join(BINARIES)} and no nvidia-fabricmanager package",
            )
            return
        if ctx.live is not None:
            running = self._running(ctx)
            installation.properties["running"] = "yes" if running else "no"
            installation.evidence.append(
                Evidence(
                    kind="file",
                    source="/proc/*/comm",
                    detail="nv-fabricmanager running" if running else "no nv-fabricmanager process",
                )
            )
        add_installation(snapshot, ComponentName.FABRIC_MANAGER, installation)

    @staticmethod
    def _running(ctx: ProbeContext) -> bool:
        for pid in ctx.view.listdir("/proc"):
            if pid.isdigit():
                comm = ctx.view.read_text(f"/proc/{pid}/comm", 64) or ""
                if comm.strip() == _COMM:
                    return True
        return False

    @staticmethod
    def _nvswitches(ctx: ProbeContext, snapshot: Snapshot) -> None:
        runtime = snapshot.runtime
        devices = ctx.view.listdir(NVSWITCH_PROC)
        if devices:
            runtime.nvswitch_count = len(devices)
            runtime.evidence.append(ctx.file_evidence(NVSWITCH_PROC, f"{len(devices)} nvswitch"))
            return
        found = []
        for device in ctx.view.listdir(PCI_DEVICES):
            base = posixpath.join(PCI_DEVICES, device)
            vendor = (ctx.view.read_text(f"{base}/vendor", 16) or "").strip()
            model = (ctx.view.read_text(f"{base}/device", 16) or "").strip()
            if vendor == "0x10de" and model in NVSWITCH_PCI_IDS:
                found.append(device)
        if found or ctx.view.is_dir(PCI_DEVICES):
            runtime.nvswitch_count = len(found)
            runtime.evidence.append(
                ctx.file_evidence(PCI_DEVICES, f"{len(found)} nvswitch (10de:1af1/22a3)")
            )
