"""The ELF reader against libraries gcc built for the test and the system's own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stackcheck.binary import elf
from tests.support.elfbuild import ElfFactory


def reader(path: Path) -> elf.ReadAt:
    data = path.read_bytes()
    return lambda offset, size: data[offset : offset + size]


def test_dynamic_section_of_a_built_library(tmp_path: Path, elves: ElfFactory) -> None:
    lib = elves.build(
        tmp_path / "libtorch_cuda.so",
        soname="libtorch_cuda.so",
        needed=["libnccl.so.2", "libcudnn.so.9"],
        rpath="$ORIGIN/../../nvidia/nccl/lib:$ORIGIN",
    )
    dynamic = elf.read_dynamic(reader(lib))
    assert dynamic.soname == "libtorch_cuda.so"
    assert {"libnccl.so.2", "libcudnn.so.9"} <= set(dynamic.needed)
    assert dynamic.rpath == ["$ORIGIN/../../nvidia/nccl/lib", "$ORIGIN"]
    assert dynamic.runpath == []


def test_runpath_is_told_apart_from_rpath(tmp_path: Path, elves: ElfFactory) -> None:
    lib = elves.build(tmp_path / "libx.so", runpath="/opt/amazon/efa/lib")
    dynamic = elf.read_dynamic(reader(lib))
    assert dynamic.runpath == ["/opt/amazon/efa/lib"]
    assert dynamic.rpath == []


def test_search_reads_only_the_rodata_section(tmp_path: Path, elves: ElfFactory) -> None:
    lib = elves.build(tmp_path / "libnccl.so.2", strings=["NCCL version 2.21.5+cuda12.4"])
    size = lib.stat().st_size
    pattern = re.compile(rb"NCCL version (\d+\.\d+\.\d+)\+cuda(\d+\.\d+)")
    match = elf.search_section(reader(lib), size, ".rodata", pattern)
    assert match is not None
    assert match.group(1) == b"2.21.5"
    bounds = elf.section_range(reader(lib), ".rodata")
    assert bounds is not None
    assert bounds[0] <= match.start() + bounds[0] < bounds[0] + bounds[1] + 256


def test_system_libc_parses() -> None:
    libc = Path("/lib/x86_64-linux-gnu/libc.so.6")
    if not libc.exists():
        pytest.skip("no x86_64 glibc here")
    dynamic = elf.read_dynamic(reader(libc.resolve()))
    assert dynamic.soname == "libc.so.6"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not an elf",
        b"\x7fELF" + b"\x02\x01" + b"\x00" * 10,
        b"\x7fELF\x02\x01" + b"\xff" * 100,
    ],
)
def test_garbage_raises_elf_error(data: bytes) -> None:
    with pytest.raises(elf.ElfError):
        elf.read_dynamic(lambda offset, size: data[offset : offset + size])
