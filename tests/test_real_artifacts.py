"""Probes on real NVIDIA and PyTorch wheels from the package index, and Debian's libfabric.

scripts/prepare-artifacts.sh puts them in place; CI requires them (STACKCHECK_REQUIRE_ARTIFACTS).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.matrix import Matrix
from stackcheck.probes import probe_root
from stackcheck.probes.nccl import VERSION_STRING
from stackcheck.snapshot import ComponentName
from stackcheck.views import DirectoryView
from tests.support.recorded import PROC_VERSION_580, h100_gpus

SITE = "/opt/pytorch/lib/python3.11/site-packages"
pytestmark = pytest.mark.real_artifacts


def site_of(realroot: Path) -> str:
    [site] = list(realroot.glob("opt/pytorch/lib/python3*/site-packages"))
    return "/" + str(site.relative_to(realroot))


def test_nccl_version_read_from_the_real_binary(artifacts: Path) -> None:
    realroot = artifacts / "realroot"
    library = f"{site_of(realroot)}/nvidia/nccl/lib/libnccl.so.2"
    match = DirectoryView(realroot).search(library, VERSION_STRING)
    assert match is not None
    assert match.group(1) == b"2.19.3"
    assert match.group(2).startswith(b"12.")


def link_or_copy(source: str | Path, target: str | Path) -> None:
    """A hard link where the scratch tree shares the artefacts' filesystem, else a copy: the
    artefacts directory is read-only input, so scratch trees live in pytest's tmp_path."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def test_nccl_copied_out_of_its_wheel_is_versioned_from_its_bytes(
    artifacts: Path, tmp_path: Path
) -> None:
    """Without a dist-info, name or header, the probe reads the version string from .rodata."""
    realroot = artifacts / "realroot"
    scratch = tmp_path / "scratch-nccl"
    target = scratch / "usr/local/nccl/lib/libnccl.so.2"
    target.parent.mkdir(parents=True)
    link_or_copy(realroot / site_of(realroot).lstrip("/") / "nvidia/nccl/lib/libnccl.so.2", target)
    (scratch / "etc").mkdir()
    (scratch / "etc/ld.so.conf").write_text("/usr/local/nccl/lib\n")
    [nccl] = probe_root(str(scratch)).installations(ComponentName.NCCL)
    assert nccl.version == "2.19.3"
    assert nccl.cuda is not None and nccl.cuda.startswith("12.")
    assert nccl.evidence[-1].kind == "binary"


def test_real_cpu_torch_on_a_gpu_host_is_an_error(
    artifacts: Path, matrix: Matrix, tmp_path: Path
) -> None:
    """PyTorch's real CPU wheel, seen on a root that also has the recorded H100 driver files."""
    realroot = artifacts / "realroot"
    snapshot = probe_root(str(realroot))
    [torch] = snapshot.installations(ComponentName.TORCH)
    assert torch.version == "2.13.0+cpu"
    assert torch.cuda is None and torch.properties["cpu_only"] == "yes"
    assert check(snapshot, matrix).findings == [] or all(
        f.severity is Severity.INFO for f in check(snapshot, matrix).findings
    )
    gpu_root = tmp_path / "scratch-gpu"
    shutil.copytree(realroot, gpu_root, copy_function=link_or_copy, symlinks=True)
    version = gpu_root / "proc/driver/nvidia/version"
    version.parent.mkdir(parents=True)
    version.write_text(PROC_VERSION_580)
    for bus, text in h100_gpus(8):
        info = gpu_root / f"proc/driver/nvidia/gpus/{bus}/information"
        info.parent.mkdir(parents=True)
        info.write_text(text)
    report = check(probe_root(str(gpu_root)), matrix)
    [finding] = [f for f in report.findings if f.id == "SC201"]
    assert finding.severity is Severity.ERROR
    assert "2.13.0+cpu" in finding.message


def test_debian_libfabric_release_from_its_bytes(artifacts: Path, tmp_path: Path) -> None:
    [deb] = list((artifacts / "debs").glob("libfabric1_*.deb"))
    rootfs = tmp_path / "root"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(rootfs)], check=True, timeout=60)
    (rootfs / "etc/ld.so.conf.d").mkdir(parents=True)
    (rootfs / "etc/ld.so.conf.d/x86_64-linux-gnu.conf").write_text("/usr/lib/x86_64-linux-gnu\n")
    (rootfs / "etc/ld.so.conf").write_text("include /etc/ld.so.conf.d/*.conf\n")
    [libfabric] = probe_root(str(rootfs)).installations(ComponentName.LIBFABRIC)
    release = deb.name.split("_")[1].split("-")[0]  # 1.17.0 from libfabric1_1.17.0-3_amd64.deb
    assert libfabric.version == release
    assert libfabric.path is not None and libfabric.path.endswith("libfabric.so.1.20.0")
    assert any(e.kind == "binary" for e in libfabric.evidence)
