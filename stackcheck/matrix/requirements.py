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


@dataclass(frozen=True)
class CudaFit:
    """Whether code built for one CUDA runs on a driver known only by the CUDA it reports."""

    runs: bool
    unsure: bool  # the matrix does not list the major, or marks it unsure


def cuda_runs_on(index: MatrixIndex, have: str | None, need: str | None) -> CudaFit | None:
    """Code built for CUDA ``need`` where the driver reports CUDA ``have``: it runs at or below
    ``have``; above it, only within the same major where that major has minor-version
    compatibility (CUDA 11 on). None where either version has no major."""
    have_major, need_major = versions.major(have), versions.major(need)
    if have is None or need is None or have_major is None or need_major is None:
        return None
    major = index.cuda_major(need_major)
    unsure = major is None or major.unsure
    if versions.key(need) <= versions.key(have):
        return CudaFit(True, unsure)
    compatible = need_major == have_major and (major is None or major.minor_version_compatible)
    return CudaFit(compatible, unsure)
