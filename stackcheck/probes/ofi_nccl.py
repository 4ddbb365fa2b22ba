"""aws-ofi-nccl, the NCCL net plugin for EFA: where it is, its version, and whether NCCL finds it.

NCCL ``dlopen``s its net plugin by name (``libnccl-net.so``, or ``libnccl-net-<name>.so`` for
``NCCL_NET_PLUGIN=<name>``), so a plugin off the loader path, or one whose own dependencies do not
resolve, is silently skipped and NCCL uses TCP sockets. Both are recorded here.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from stackcheck.parsers.packages import efa_installed_packages, ofi_nccl_package_version
from stackcheck.probes.base import Probe, add_installation, set_unknown
from stackcheck.probes.context import ProbeContext
from stackcheck.probes.efa import EFA_PACKAGES
from stackcheck.snapshot.model import ComponentName, Evidence, Installation, Snapshot
from stackcheck.views.needs import BinaryNeed, Needs, Search

PLUGIN_DIRS = (
    "/opt/amazon/ofi-nccl/lib",
    "/opt/amazon/ofi-nccl/lib64",
    "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu",
    "/opt/amazon/ofi-nccl/lib/aarch64-linux-gnu",
    "/opt/amazon/aws-ofi-nccl/lib",
    "/opt/amazon/aws-ofi-nccl/lib64",
    "/opt/aws-ofi-nccl/lib",
    "/opt/aws-ofi-nccl/lib64",
)
_PLUGIN_FILE = re.compile(r"libnccl-net(?:-[\w.]+)?\.so(?:\.[0-9.]+)?$")
_VERSION = re.compile(rb"aws-ofi-nccl[ -](\d+\.\d+\.\d+(?:-aws)?)")
# Provided by glibc and the compiler runtime on any system that runs NCCL at all.
_BASE_LIBRARIES = re.compile(
    r"^(?:libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux[\w.-]*)\.so"
)


def plugin_names(env: Mapping[str, str]) -> list[str]:
    """The library names NCCL tries for its net plugin, in order; [] when plugins are off."""
    value = env.get("NCCL_NET_PLUGIN", "").strip()
    if not value:
        return ["libnccl-net.so"]
    if value.lower() == "none":
        return []
    names: list[str] = []
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        if "/" in part or part.endswith(".so"):
            names.append(part)
        else:
            names.extend([f"libnccl-net-{part}.so", part])
    return names


class OfiNcclProbe(Probe):
    name = "ofi-nccl"
    needs = Needs(
        contents=(EFA_PACKAGES,),
        binaries=(
            BinaryNeed(
                "libnccl-net*.so*", dynamic=True, searches=(Search(_VERSION, (b"aws-ofi-nccl",)),)
            ),
        ),
    )

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        seen: dict[str, str] = {}
        dirs = [*PLUGIN_DIRS, *(d.path for d in ctx.loader.system_dirs())]
        for directory in dict.fromkeys(dirs):
            for entry in ctx.view.listdir(directory):
                if _PLUGIN_FILE.match(entry):
                    path = posixpath.join(directory, entry)
                    real = ctx.view.resolve(path)
                    if real is not None and ctx.view.is_file(real):
                        seen.setdefault(real, path)
        package_version = self._package_version(ctx)
        for real, path in seen.items():
            installation = Installation(
                path=real,
                origin="vendor" if real.startswith("/opt/") else "system",
                evidence=[
                    Evidence(
                        kind="filename",
                        source=path,
                        detail=posixpath.basename(real),
                        layer=ctx.view.provenance(real),
                    )
                ],
            )
            match = ctx.view.search(real, _VERSION)
            if match is not None:
                installation.version = match.group(1).decode()
                installation.properties["plugin"] = "aws-ofi-nccl"
                installation.evidence.append(
                    Evidence(
                        kind="binary", source=real, detail=match.group(0).decode(errors="replace")
                    )
                )
            elif package_version is not None and real.startswith("/opt/amazon/"):
                installation.version = package_version
                installation.evidence.append(ctx.file_evidence(EFA_PACKAGES, package_version))
            self._dependencies(ctx, real, installation)
            add_installation(snapshot, ComponentName.OFI_NCCL, installation)
        self._discovery(ctx, snapshot)
        set_unknown(
            snapshot,
            ComponentName.OFI_NCCL,
            "no libnccl-net*.so under /opt/amazon, /opt/aws-ofi-nccl or on the loader path",
        )

    @staticmethod
    def _package_version(ctx: ProbeContext) -> str | None:
        text = ctx.view.read_text(EFA_PACKAGES, 1 << 16)
        for line in efa_installed_packages(text)[1] if text else []:
            version = ofi_nccl_package_version(line)
            if version:
                return version
        return None

    @staticmethod
    def _dependencies(ctx: ProbeContext, real: str, installation: Installation) -> None:
        dynamic = ctx.view.elf_dynamic(real)
        if dynamic is None:
            return
        missing = [
            name
            for name in dynamic.needed
            if not _BASE_LIBRARIES.match(name)
            and ctx.loader.resolve(ctx.view, name, real, dynamic) is None
        ]
        installation.properties["needs"] = ", ".join(dynamic.needed)
        if missing:
            installation.properties["unresolved"] = ", ".join(missing)

    @staticmethod
    def _discovery(ctx: ProbeContext, snapshot: Snapshot) -> None:
        """Mark the plugin NCCL would load, following NCCL_NET_PLUGIN and the loader path."""
        names = plugin_names(ctx.env)
        for name in names:
            found = ctx.loader.resolve(ctx.view, name)
            if found is None:
                continue
            real = ctx.view.resolve(found.path)
            for installation in snapshot.installations(ComponentName.OFI_NCCL):
                if installation.path == real:
                    installation.properties["loaded_by_nccl"] = f"{name} via {found.via.reason}"
                    installation.evidence.append(found.via.evidence)
            return
        for installation in snapshot.installations(ComponentName.OFI_NCCL):
            installation.properties["loaded_by_nccl"] = "no"
