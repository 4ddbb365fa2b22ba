"""Images whose layers hold the real artefacts: PyTorch's CPU wheel and the nvidia-nccl-cu12 wheel
in a venv, NCCL's real 220 MB library copied out of its wheel, Debian's libfabric."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest

from stackcheck.check.engine import check
from stackcheck.image.cache import LayerCache
from stackcheck.image.progress import Progress
from stackcheck.image.scan import scan_image
from stackcheck.image.sources.resolve import open_source
from stackcheck.matrix import Matrix
from stackcheck.probes import NEEDS
from stackcheck.snapshot import ComponentName
from stackcheck.views.needs import CompiledNeeds
from tests.support import scenarios
from tests.support.images import ImageBuilder, ImageSpec, LayerTar
from tests.support.rootfs import Root

pytestmark = pytest.mark.real_artifacts


@pytest.fixture(scope="module")
def real_layers(artifacts: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, LayerTar]:
    """A base (os-release, loader config), the real venv, and NCCL copied out of its wheel."""
    work = tmp_path_factory.mktemp("real-image")
    builder = ImageBuilder(work / "layers")
    base = work / "base"
    (base / "etc/ld.so.conf.d").mkdir(parents=True)
    (base / "etc/os-release").write_text('PRETTY_NAME="Ubuntu 22.04.5 LTS"\n')
    (base / "etc/ld.so.conf").write_text("include /etc/ld.so.conf.d/*.conf\n")
    (base / "etc/ld.so.conf.d/nccl.conf").write_text("/usr/local/nccl/lib\n")
    [site] = (artifacts / "realroot").glob("opt/pytorch/lib/python3*/site-packages")
    copy = work / "nccl-copy"
    (copy / "usr/local/nccl/lib").mkdir(parents=True)
    os.link(site / "nvidia/nccl/lib/libnccl.so.2", copy / "usr/local/nccl/lib/libnccl.so.2")
    return {
        "base": builder.layer(base),
        "venv": builder.layer(artifacts / "realroot", prefix="opt"),
        "nccl": builder.layer(copy),
    }


def test_real_wheels_in_image_layers(
    real_layers: dict[str, LayerTar], images: ImageBuilder, matrix: Matrix, tmp_path: Path
) -> None:
    cache = LayerCache(tmp_path / "cache", CompiledNeeds(NEEDS).fingerprint())
    spec = ImageSpec([real_layers["base"], real_layers["venv"]], env={"NCCL_VERSION": "2.21.5"})
    source = open_source(f"oci:{images.oci_layout(spec, 'zstd')}", "linux/amd64", False)
    snapshot, stats = scan_image(source, cache, Progress(io.StringIO()))
    assert stats.from_cache == 0
    [torch] = snapshot.installations(ComponentName.TORCH)
    assert torch.version == "2.13.0+cpu" and torch.properties["cpu_only"] == "yes"
    [nccl] = snapshot.installations(ComponentName.NCCL)
    assert (nccl.version, nccl.origin) == ("2.19.3", "pip")
    [sc350] = [f for f in check(snapshot, matrix).findings if f.id == "SC350"]
    assert "NCCL_VERSION=2.21.5, but the image holds NCCL 2.19.3" in sc350.message

    # The same layers plus NCCL outside its wheel: its version comes from the real binary's
    # .rodata, read while the layer streamed by; the shared layers come from the cache.
    derived = ImageSpec([*spec.layers, real_layers["nccl"]])
    source = open_source(f"oci:{images.oci_layout(derived, 'gzip')}", "linux/amd64", False)
    snapshot, stats = scan_image(source, cache, Progress(io.StringIO()))
    assert (stats.layers, stats.from_cache) == (3, 2)
    copied = next(
        i
        for i in snapshot.installations(ComponentName.NCCL)
        if i.path == "/usr/local/nccl/lib/libnccl.so.2"
    )
    assert copied.version == "2.19.3" and copied.cuda is not None
    evidence = copied.evidence[-1]
    assert evidence.kind == "binary" and evidence.detail is not None
    assert evidence.detail.startswith("NCCL version 2.19.3+cuda12.")
    assert snapshot.image is not None
    assert evidence.layer == snapshot.image.layers[2].digest  # the layer that holds the copy


def test_real_libfabric_and_a_net_plugin_in_an_image(
    artifacts: Path, root: Root, images: ImageBuilder
) -> None:
    [deb] = list((artifacts / "debs").glob("libfabric1_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root.path)], check=True, timeout=60)
    root.debian_loader()
    scenarios.efa_stack(root)
    root.link("opt/amazon/efa/lib/libfabric.so.1", "/usr/lib/x86_64-linux-gnu/libfabric.so.1")
    spec = ImageSpec([images.layer(root.path)])
    source = open_source(f"docker-archive:{images.docker_archive(spec)}", "linux/amd64", False)
    snapshot, _ = scan_image(source, None, Progress(io.StringIO()))
    release = deb.name.split("_")[1].split("-")[0]
    libfabric = next(
        i for i in snapshot.installations(ComponentName.LIBFABRIC) if i.path and "1.20.0" in i.path
    )
    assert libfabric.version == release
    [plugin] = snapshot.installations(ComponentName.OFI_NCCL)
    assert plugin.version == "1.17.2"
    assert plugin.properties["loaded_by_nccl"].startswith("libnccl-net.so via")
    assert "unresolved" not in plugin.properties
