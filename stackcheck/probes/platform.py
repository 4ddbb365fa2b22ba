"""The operating system, kernel and CPU architecture, and a live host's limits."""

from __future__ import annotations

import os

from stackcheck.parsers.source import os_release
from stackcheck.probes.base import Probe
from stackcheck.probes.context import ProbeContext
from stackcheck.snapshot.model import Evidence, Snapshot
from stackcheck.views.needs import Needs

_MULTIARCH = {"x86_64": "/usr/lib/x86_64-linux-gnu", "aarch64": "/usr/lib/aarch64-linux-gnu"}


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
