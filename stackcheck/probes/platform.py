"""The operating system, kernel and CPU architecture, and a live host's limits."""

from __future__ import annotations

import os
import re

from stackcheck.parsers.source import os_release
from stackcheck.probes.base import Probe
from stackcheck.probes.context import ProbeContext
from stackcheck.snapshot.model import Evidence, Snapshot
from stackcheck.views.needs import Needs

_MULTIARCH = {"x86_64": "/usr/lib/x86_64-linux-gnu", "aarch64": "/usr/lib/aarch64-linux-gnu"}
# Files container engines create, and cgroup paths of their processes.
_CONTAINER_FILES = ("/.dockerenv", "/run/.containerenv")
_CONTAINER_CGROUP = re.compile(r"docker|kubepods|containerd|libpod|lxc")


def in_container(ctx: ProbeContext) -> Evidence | None:
    """Why the running process is in a container, or None when nothing says so."""
    for path in _CONTAINER_FILES:
        if ctx.view.exists(path):
            return ctx.file_evidence(path, "present")
    if ctx.env.get("KUBERNETES_SERVICE_HOST"):
        return Evidence(kind="env", source="KUBERNETES_SERVICE_HOST")
    cgroup = ctx.view.read_text("/proc/1/cgroup", 65536) or ""
    found = _CONTAINER_CGROUP.search(cgroup)
    return ctx.file_evidence("/proc/1/cgroup", found.group(0)) if found else None


class PlatformProbe(Probe):
    name = "platform"
    needs = Needs(contents=("/etc/os-release", "/usr/lib/os-release", "/proc/sys/kernel/osrelease"))

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        platform = snapshot.platform
        for path in ("/etc/os-release", "/usr/lib/os-release"):
            text = ctx.view.read_text(path, 16384)
            if text:
                fields = os_release(text)
                platform.os = fields.get("PRETTY_NAME") or fields.get("NAME")
                platform.evidence.append(ctx.file_evidence(path, platform.os))
                break
        if ctx.live is not None:
            uname = os.uname()
            platform.kernel, platform.machine = uname.release, uname.machine
            platform.evidence.append(
                Evidence(kind="command", source="uname", detail=f"{uname.release} {uname.machine}")
            )
            container = in_container(ctx)
            platform.container = container is not None
            if container is not None:
                platform.evidence.append(container)
            runtime = snapshot.runtime
            runtime.memlock_bytes = ctx.live.memlock_bytes()
            runtime.shm_bytes = ctx.live.shm_bytes()
            runtime.evidence.append(
                Evidence(
                    kind="command",
                    source="getrlimit(RLIMIT_MEMLOCK)",
                    detail=str(runtime.memlock_bytes),
                )
            )
            if runtime.shm_bytes is not None:
                runtime.evidence.append(
                    Evidence(
                        kind="command", source="statvfs(/dev/shm)", detail=str(runtime.shm_bytes)
                    )
                )
            return
        kernel = ctx.view.read_text("/proc/sys/kernel/osrelease", 256)
        platform.kernel = kernel.strip() if kernel else None
        platform.machine = next((m for m, d in _MULTIARCH.items() if ctx.view.is_dir(d)), None)
