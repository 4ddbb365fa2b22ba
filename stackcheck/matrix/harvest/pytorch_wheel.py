"""A PyTorch wheel as published (PyPI or download.pytorch.org): the arch list compiled into
``torch/lib/libtorch_python.so`` (what ``torch.cuda.get_arch_list()`` returns) and the CUDA,
cuDNN and NCCL the wheel's METADATA pins. This reads the variant the wheel is, not the build
script that meant to make it, so it settles what a release branch's script left unsure."""

from __future__ import annotations

import re
import zipfile
from datetime import date
from pathlib import Path

from stackcheck.errors import StackcheckError
from stackcheck.matrix.harvest.rows import Harvest, Row, version_in

_LIBRARY = "torch/lib/libtorch_python.so"
_MAX_MEMBER = 256 * 1024 * 1024  # libtorch_python.so is ~30 MB; bound what we inflate
# The CUDA_ARCH_FLAGS string: "sm_50 sm_60 ... compute_90", NUL-terminated in .rodata.
_ARCHS = re.compile(rb"\x00((?:sm|compute)_\d+[a-z]?(?: (?:sm|compute)_\d+[a-z]?)+)\x00")
# The CUDA runtime pin: nvidia-cuda-runtime-cu12==12.4.127 (CUDA 12), cuda-toolkit[...]==13.0.3.
_CUDA = (
    r"Requires-Dist: nvidia-cuda-runtime-cu\d+ ?\(?==(\d+\.\d+)",
    r"Requires-Dist: cuda-toolkit\[[^\]]*\] ?\(?==(\d+\.\d+)",
)


def _member(wheel: zipfile.ZipFile, suffix: str) -> bytes:
    names = [n for n in wheel.namelist() if n.endswith(suffix)]
    if not names:
        raise StackcheckError(f"no {suffix} in the wheel")
    info = wheel.getinfo(names[0])
    if info.file_size > _MAX_MEMBER:
        raise StackcheckError(f"{names[0]} is {info.file_size} bytes, over {_MAX_MEMBER}")
    return wheel.read(info)


def arch_list(library: bytes) -> list[str]:
    """The one arch string of ``libtorch_python.so``; none or several is an error, not a guess."""
    found = sorted({m.group(1).decode() for m in _ARCHS.finditer(library)})
    if len(found) != 1:
        raise StackcheckError(f"expected one arch string in {_LIBRARY}, found {len(found)}")
    return found[0].split()


def variant(metadata: str, library: bytes) -> tuple[str, Row]:
    """(the PyTorch minor line, the variant row) of one wheel."""
    version = version_in(metadata, r"(?m)^Version: (\d+\.\d+)\.\d+")
    cuda = next((v for p in _CUDA if (v := version_in(metadata, p))), None)
    if version is None or cuda is None:
        raise StackcheckError("the wheel's METADATA names no torch version or CUDA runtime pin")
    row: Row = {
        "cuda": cuda,
        "cudnn": version_in(metadata, r"Requires-Dist: nvidia-cudnn-cu\d+ ?\(?==([\d.]+)"),
        "nccl": version_in(metadata, r"Requires-Dist: nvidia-nccl-cu\d+ ?\(?==([\d.]+)"),
        "archs": arch_list(library),
    }
    return version, row


def harvest(path: Path, day: date, source: str | None = None) -> Harvest:
    try:
        with zipfile.ZipFile(path) as wheel:
            metadata = _member(wheel, ".dist-info/METADATA").decode("utf-8")
            library = _member(wheel, _LIBRARY)
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise StackcheckError(f"cannot read {path}: {exc}") from None
    line, row = variant(metadata, library)
    full = version_in(metadata, r"(?m)^Version: (\S+)")
    row["source"] = source or f"https://pypi.org/project/torch/{full}/ ({path.name})"
    return Harvest(
        "torch",
        [{"version": line, "variants": [row], "source": row["source"], "checked": day}],
    )
