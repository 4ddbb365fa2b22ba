"""What a CUDA version asks of the driver, derived from the matrix's CUDA tables.

A runtime runs at full feature set on a driver at or above its release's minimum, and through
minor-version compatibility on any driver at or above its major's floor (CUDA 11.0, older than
the 11.x floor, ran on its own GA driver; before CUDA 11 there was no minor-version
compatibility, so each release needs its own driver).
"""

from __future__ import annotations

from dataclasses import dataclass

from stackcheck import versions
from stackcheck.matrix.index import MatrixIndex


@dataclass(frozen=True)
class DriverNeeds:
    floor: str | None  # the lowest driver that runs it (minor-version compatibility)
    full: str | None  # the release's own minimum (full compatibility)
    unsure: bool


def driver_needs(index: MatrixIndex, cuda: str | None) -> DriverNeeds:
    major = index.cuda_major(versions.major(cuda))
    release = index.cuda_release(cuda)
    floor = major.min_driver if major else None
    full = release.min_driver if release else None
    if floor and full and versions.key(floor) > versions.key(full):
        floor = full
    if major is not None and not major.minor_version_compatible and full is not None:
        floor = full  # before CUDA 11 each release needs its own driver
    return DriverNeeds(floor, full, bool((major and major.unsure) or (release and release.unsure)))
