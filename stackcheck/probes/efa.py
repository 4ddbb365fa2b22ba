"""EFA: the installer's record, libfabric, and the RDMA devices the kernel exposes.

libfabric's file name is its libtool version (``libfabric.so.1.20.0`` holds release 1.17.0), so the
release comes from the EFA installer's package list (``libfabric-aws-1.22.0amzn4.0``), the Debian
package, ``fi_info --version`` on a live host, or an ``amzn`` version string inside the library.
"""

from __future__ import annotations

import posixpath
import re

from stackcheck.parsers.packages import efa_installed_packages, libfabric_package_version
from stackcheck.probes.base import Probe, add_installation, libraries, origin_of, set_unknown
from stackcheck.probes.context import ProbeContext
from stackcheck.probes.sysfs import SYS_INFINIBAND
from stackcheck.snapshot.model import ComponentName, Evidence, Installation, Snapshot
from stackcheck.views.needs import BinaryNeed, Needs, Search

EFA_PACKAGES = "/opt/amazon/efa_installed_packages"
EFA_LIB_DIRS = ("/opt/amazon/efa/lib", "/opt/amazon/efa/lib64")
DEV_INFINIBAND = "/dev/infiniband"
# libfabric keeps its release as a bare string in .rodata ("1.17.0", "2.1.0amzn5.0").
_BINARY_LIBFABRIC = re.compile(rb"\x00(\d{1,2}\.\d{1,3}\.\d{1,3}(?:amzn\d+\.\d+)?)\x00")
_FI_INFO = re.compile(r"^libfabric:\s*(\S+)", re.M)
_DEBIAN_PACKAGES = ("libfabric1", "libfabric-aws", "libfabric-bin")


class EfaProbe(Probe):
    name = "efa"
    needs = Needs(
        contents=(EFA_PACKAGES,),
        binaries=(BinaryNeed("libfabric.so*", searches=(Search(_BINARY_LIBFABRIC),)),),
    )

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        text = ctx.view.read_text(EFA_PACKAGES, 1 << 16)
        packages: list[str] = []
        if text is not None:
            version, packages = efa_installed_packages(text)
            add_installation(
                snapshot,
                ComponentName.EFA_INSTALLER,
                Installation(
                    version=version,
                    path="/opt/amazon",
                    origin="vendor",
                    evidence=[
                        ctx.file_evidence(EFA_PACKAGES, f"# EFA installer version: {version}")
                    ],
                ),
            )
        set_unknown(snapshot, ComponentName.EFA_INSTALLER, f"{EFA_PACKAGES} absent")
        self._libfabric(ctx, snapshot, packages)
        self._devices(ctx, snapshot)

    def _libfabric(self, ctx: ProbeContext, snapshot: Snapshot, packages: list[str]) -> None:
        dirs = [*EFA_LIB_DIRS, *(d.path for d in ctx.loader.system_dirs())]
        for real, names in libraries(ctx, dirs, "libfabric").items():
            installation = Installation(
                path=real,
                origin=origin_of(ctx, real),
                evidence=[
                    Evidence(
                        kind="filename",
                        source=names[0],
                        detail=posixpath.basename(real),
                        layer=ctx.view.provenance(real),
                    )
                ],
            )
            if real.startswith("/opt/amazon/"):
                for line in packages:
                    version = libfabric_package_version(line)
                    if version:
                        installation.version = version
                        installation.evidence.append(ctx.file_evidence(EFA_PACKAGES, line))
                        break
            if installation.version is None and installation.origin == "system":
                for package in _DEBIAN_PACKAGES:
                    if package in ctx.dpkg:
                        installation.version = ctx.dpkg[package].split("-")[0].split(":")[-1]
                        installation.evidence.append(
                            Evidence(
                                kind="package",
                                source="/var/lib/dpkg/status",
                                detail=f"{package} {ctx.dpkg[package]}",
                            )
                        )
                        break
            if installation.version is None:
                found = ctx.view.search(real, _BINARY_LIBFABRIC)
                if found is not None:
                    installation.version = found.group(1).decode()
                    installation.evidence.append(
                        Evidence(kind="binary", source=real, detail=installation.version)
                    )
            add_installation(snapshot, ComponentName.LIBFABRIC, installation)
        if ctx.live is not None and not any(
            i.version for i in snapshot.installations(ComponentName.LIBFABRIC)
        ):
            result = ctx.live.command(["fi_info", "--version"])
            match = _FI_INFO.search(result.stdout or "")
            if match:
                add_installation(
                    snapshot,
                    ComponentName.LIBFABRIC,
                    Installation(
                        version=match.group(1),
                        origin="system",
                        path="fi_info",
                        evidence=[
                            Evidence(
                                kind="command", source=result.command_line, detail=match.group(0)
                            )
                        ],
                    ),
                )
        set_unknown(
            snapshot,
            ComponentName.LIBFABRIC,
            "no libfabric.so in /opt/amazon/efa or on the loader path",
        )

    @staticmethod
    def _devices(ctx: ProbeContext, snapshot: Snapshot) -> None:
        runtime = snapshot.runtime
        if ctx.live is not None:
            # What this process can open: a container without --device sees none.
            runtime.uverbs_devices = sorted(
                d for d in ctx.view.listdir(DEV_INFINIBAND) if d.startswith("uverbs")
            )
            runtime.evidence.append(
                ctx.file_evidence(DEV_INFINIBAND, ", ".join(runtime.uverbs_devices) or "no uverbs")
            )
        if not ctx.view.is_dir(SYS_INFINIBAND):
            if ctx.live is not None:
                runtime.rdma_devices, runtime.efa_devices = [], []
                runtime.evidence.append(
                    Evidence(kind="file", source=SYS_INFINIBAND, detail="absent: no RDMA devices")
                )
            return
        rdma = ctx.view.listdir(SYS_INFINIBAND)
        efa = []
        for device in rdma:
            driver = ctx.view.resolve(posixpath.join(SYS_INFINIBAND, device, "device/driver"))
            if (driver and posixpath.basename(driver) == "efa") or device.startswith(
                ("rdmap", "efa")
            ):
                efa.append(device)
        runtime.rdma_devices, runtime.efa_devices = rdma, efa
        runtime.evidence.append(ctx.file_evidence(SYS_INFINIBAND, ", ".join(rdma) or "empty"))
