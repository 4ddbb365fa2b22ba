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


# nvcc's arch flags: `-gencode arch=compute_61,code=sm_61` (or `code=[sm_70,compute_70]`) names
# what is embedded; `-arch=sm_70` alone is shorthand for sm_70 plus compute_70 PTX.
_CODE = re.compile(r"\bcode=\[?((?:(?:sm|compute)_\d{2,3}[af]?,?){1,8})\]?")
_ARCH_FLAG = re.compile(r"(?:^|\s)--?arch(?:=|\s{1,2})(sm|compute)_(\d{2,3}[af]?)\b")


def flag_archs(flags: str) -> list[str]:
    """The architectures (sm_61, compute_70) that nvcc flags build code for, in order."""
    found: list[str] = []
    for code in _CODE.finditer(flags):
        found.extend(a for a in code.group(1).split(",") if a)
    for arch in _ARCH_FLAG.finditer(flags):
        found.extend((f"{arch.group(1)}_{arch.group(2)}", f"compute_{arch.group(2)}"))
    return list(dict.fromkeys(found))


# Variables that hold a build's nvcc flags (mmcv's MMCV_CUDA_ARGS, NCCL's NVCC_GENCODE, CMake's
# CUDA_NVCC_FLAGS, nvcc's NVCC_APPEND_FLAGS): the message catalogue's `nvcc-gencode-flags-setting`
# reads them in any text; a Dockerfile's ENV is read through this.
BUILD_FLAGS_NAME = re.compile(
    r"(?:NVCC_GENCODE|NVCC_FLAGS|NVCC_APPEND_FLAGS|NVCC_PREPEND_FLAGS|CUDA_ARGS|CUDA_FLAGS)$"
)


_LIST_ITEM = re.compile(r"^(\d{1,2})\.(\d)(\+PTX)?$")


def arch_list_archs(value: str) -> list[str] | None:
    """The architectures a TORCH_CUDA_ARCH_LIST (`6.0 6.1 7.0+PTX`, `8.0;8.6`) builds for; None
    where it holds a name (`Ampere`, `All`) or nothing this reads."""
    found: list[str] = []
    for item in re.split(r"[\s;,]+", value.strip()):
        if not item:
            continue
        match = _LIST_ITEM.match(item)
        if match is None:
            return None
        found.append(f"sm_{match.group(1)}{match.group(2)}")
        if match.group(3):
            found.append(f"compute_{match.group(1)}{match.group(2)}")
    return found or None
