"""GPU code compatibility: which compiled architectures run on which compute capability."""

from __future__ import annotations

import re

_ARCH = re.compile(r"^(sm|compute)_(\d+)(\d)([af]?)$")


def _arch_parts(arch: str) -> tuple[str, int, int, str] | None:
    match = _ARCH.match(arch)
    if match is None:
        return None
    return match.group(1), int(match.group(2)), int(match.group(3)), match.group(4)


def runs_on(archs: list[str], compute_capability: str) -> str:
    """'sass' when a cubin runs on the GPU, 'ptx' when only JIT from PTX would, else 'none'.

    A cubin for sm_XY runs on CC X.Z for Z >= Y (same major); arch-specific cubins (sm_90a)
    run only on their exact CC. PTX for compute_XY JIT-compiles for any CC >= X.Y.
    """
    major, minor = (int(p) for p in compute_capability.split(".")[:2])
    ptx = False
    for arch in archs:
        parts = _arch_parts(arch)
        if parts is None:
            continue
        kind, a_major, a_minor, suffix = parts
        if kind == "sm":
            exact = (a_major, a_minor) == (major, minor)
            if exact or (not suffix and a_major == major and a_minor <= minor):
                return "sass"
        elif (a_major, a_minor) <= (major, minor):
            ptx = True
    return "ptx" if ptx else "none"
