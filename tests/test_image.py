"""Scanning images built here from real file trees: every packing, the merged view, which library
would load, metadata against files, pairing with a host, the cache, and hostile input."""

from __future__ import annotations

import base64
import gzip
import io
import json
import os
import pwd
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.image.cache import LayerCache
from stackcheck.image.progress import Progress
from stackcheck.image.scan import Analyzer, ScanStats, scan_image
from stackcheck.image.sources.resolve import open_source
from stackcheck.image.tree import MergedTree
from stackcheck.matrix import Matrix
from stackcheck.probes import NEEDS, probe_root
from stackcheck.snapshot import ComponentName, Snapshot, dump_snapshot
from stackcheck.views.image import ImageView
from stackcheck.views.needs import CompiledNeeds
from tests.conftest import Outcome, run_stackcheck
from tests.support import scenarios
from tests.support.images import (
    ImageBuilder,
    ImageSpec,
    LayerTar,
    member,
    opaque,
    sha256_file,
    whiteout,
)
from tests.support.rootfs import Root

Cli = Callable[..., Outcome]
NGC_ENV = {
    "CUDA_VERSION": "12.9.1",
    "NCCL_VERSION": "2.27.3",
    "CUDNN_VERSION": "9.10.2.21",
    "NVIDIA_PYTORCH_VERSION": "25.06",
    "NVIDIA_REQUIRE_CUDA": "cuda>=9.0",
    "LD_LIBRARY_PATH": "/usr/local/cuda/compat/lib.real:/usr/local/nvidia/lib64",
    "PATH": "/usr/local/bin:/usr/bin",
}


def scan(
    image: str, cache_dir: Path | None = None, progress: Progress | None = None
) -> tuple[Snapshot, ScanStats]:
    cache = None
    if cache_dir is not None:
        cache = LayerCache(cache_dir, CompiledNeeds(NEEDS).fingerprint())
    source = open_source(image, "linux/amd64", insecure=False)
    return scan_image(source, cache, progress or Progress(io.StringIO()))


def stack(snapshot: Snapshot) -> dict[str, list[tuple[str | None, str | None]]]:
    """Each component's (version, path) pairs: what must not depend on how an image is packed."""
    return {
        name.value: sorted((i.version, i.path) for i in component.installations)
        for name, component in snapshot.components.items()
    }


@pytest.fixture
def ngc(root: Root, images: ImageBuilder) -> ImageSpec:
    scenarios.ngc_image(root)
    return ImageSpec(
        [images.layer(root.path)],
        env=NGC_ENV,
        labels={"com.nvidia.cuda.version": "12.9.1"},
        entrypoint=["/opt/nvidia/nvidia_entrypoint.sh"],
    )


# -- packings ------------------------------------------------------------------------------------


def test_every_packing_gives_the_stack_a_root_probe_gives(
    root: Root, ngc: ImageSpec, images: ImageBuilder
) -> None:
    expected = stack(probe_root(str(root.path), env=NGC_ENV))
    packed = {
        "legacy": f"docker-archive:{images.docker_archive(ngc)}",
        "legacy, gzip layers": "docker-archive:"
        + str(images.docker_archive(ngc, layer_compression="gzip")),
        "docker 25, gzip outer": "docker-archive:"
        + str(images.docker_archive(ngc, style="oci", outer="gzip")),
        "oci gzip": f"oci:{images.oci_layout(ngc, 'gzip')}",
        "oci zstd": f"oci:{images.oci_layout(ngc, 'zstd')}:1",
        "oci plain": f"oci:{images.oci_layout(ngc, 'none')}",
        "oci-archive zstd": f"oci-archive:{images.oci_archive(images.oci_layout(ngc, 'zstd'))}",
        "oci-archive, zstd outer": (
            f"oci-archive:{images.oci_archive(images.oci_layout(ngc, 'gzip'), outer='zstd')}"
        ),
        "bare path": str(images.docker_archive(ngc)),
    }
    for how, image in packed.items():
        snapshot, stats = scan(image)
        assert stack(snapshot) == expected, how
        assert stats.layers == 1 and stats.from_cache == 0, how
        assert snapshot.source.kind == "image"
        [torch] = snapshot.installations(ComponentName.TORCH)
        assert torch.properties["loads_nccl"] == "/usr/lib/x86_64-linux-gnu/libnccl.so.2.27.3"
        assert torch.archs[:2] == ["sm_80", "sm_86"], how  # read from .rodata of the stream


def test_image_config_facts_and_layer_evidence(ngc: ImageSpec, images: ImageBuilder) -> None:
    snapshot, _ = scan(f"docker-archive:{images.docker_archive(ngc)}")
    image = snapshot.image
    assert image is not None
    assert image.labels == {"com.nvidia.cuda.version": "12.9.1"}
    assert image.entrypoint == ["/opt/nvidia/nvidia_entrypoint.sh"] and image.cmd == ["/bin/sh"]
    assert "NVIDIA_PYTORCH_VERSION=25.06" in image.env
    assert image.architecture == "amd64" and image.layers[0].digest == ngc.layers[0].diff_id
    for name in ("CUDA_VERSION", "NCCL_VERSION", "CUDNN_VERSION", "LD_LIBRARY_PATH"):
        assert snapshot.env[name].evidence.kind == "image-config"
    assert "PATH" not in snapshot.env
    [nccl] = snapshot.installations(ComponentName.NCCL)
    assert {e.layer for e in nccl.evidence} == {ngc.layers[0].diff_id}
    text = run_stackcheck("scan", f"docker-archive:{images.docker_archive(ngc)}", "--no-cache")
    assert text.code == 0, text.err
    assert "Label               com.nvidia.cuda.version=12.9.1" in text.out
    assert f"[layer {ngc.layers[0].diff_id[:19]}]" in text.out
    assert "NCCL_VERSION=2.27.3" in text.out


def test_multi_platform_index_picks_the_platform(root: Root, images: ImageBuilder) -> None:
    root.write("etc/os-release", 'PRETTY_NAME="amd64 image"\n')
    amd = ImageSpec([images.layer(root.path)])
    other = Root(root.path.parent / "arm", root.elves)
    other.write("etc/os-release", 'PRETTY_NAME="arm64 image"\n')
    arm = ImageSpec([images.layer(other.path)], architecture="arm64")
    layout = images.oci_index({"linux/amd64": amd, "linux/arm64": arm})
    source = open_source(f"oci:{layout}", "linux/arm64", insecure=False)
    snapshot, _ = scan_image(source, None, Progress(io.StringIO()))
    assert snapshot.platform.os == "arm64 image"
    assert scan(f"oci:{layout}")[0].platform.os == "amd64 image"
    missing = run_stackcheck("scan", f"oci:{layout}", "--platform", "linux/s390x", "--no-cache")
    assert missing.code == 2
    assert "no manifest for platform linux/s390x (offered: linux/amd64, linux/arm64)" in missing.err


# -- the merged view ---------------------------------------------------------------------------


def test_whiteouts_opaque_directories_and_hard_links(root: Root, images: ImageBuilder) -> None:
    root.debian_loader()
    lib = "usr/lib/x86_64-linux-gnu"
    root.elf(f"{lib}/libnccl.so.2.18.1", soname="libnccl.so.2")
    root.link(f"{lib}/libnccl.so.2", "libnccl.so.2.18.1")
    root.write("opt/old/libold.so.1", "lower")
    root.write("etc/nccl.conf", "NCCL_DEBUG=INFO\n")
    base = images.layer(root.path)
    top = images.layer(
        extra=[
            whiteout(f"{lib}/libnccl.so.2.18.1"),
            whiteout(f"{lib}/libnccl.so.2"),
            opaque("opt/old"),
            member("opt/old/libnew.so.1", b"upper"),
            member("etc/nccl-copy.conf", kind=tarfile.LNKTYPE, link="etc/nccl.conf"),
        ]
    )
    snapshot, _ = scan(f"docker-archive:{images.docker_archive(ImageSpec([base, top]))}")
    assert snapshot.installations(ComponentName.NCCL) == []
    source = open_source(
        f"docker-archive:{images.docker_archive(ImageSpec([base, top]))}", "linux/amd64", False
    )
    loaded = source.load(Analyzer(CompiledNeeds(NEEDS), None, Progress(io.StringIO())))
    tree = MergedTree()
    for position, index in enumerate(loaded.indexes):
        tree.apply(index, position)
    view = ImageView(tree, "test", [base.diff_id, top.diff_id])
    assert view.listdir("/opt/old") == ["libnew.so.1"]
    assert view.listdir(f"/{lib}") == []
    assert view.read_text("/etc/nccl-copy.conf") == "NCCL_DEBUG=INFO\n"  # the target's content
    assert view.read_text("/etc/nccl.conf") == "NCCL_DEBUG=INFO\n"
    assert view.provenance("/etc/nccl.conf") == base.diff_id
    assert view.provenance("/etc/nccl-copy.conf") == top.diff_id


def test_hard_link_carries_its_targets_content(root: Root, images: ImageBuilder) -> None:
    layer = images.layer(
        extra=[
            member("usr/lib/os-release", b'PRETTY_NAME="Linked OS"\n'),
            member("etc/os-release", kind=tarfile.LNKTYPE, link="usr/lib/os-release"),
        ]
    )
    snapshot, _ = scan(f"docker-archive:{images.docker_archive(ImageSpec([layer]))}")
    assert snapshot.platform.os == "Linked OS"


def test_symlinks_resolve_inside_the_image(root: Root, images: ImageBuilder) -> None:
    root.toolkit("12.4.1", default=False)
    root.link("usr/local/cuda", "/usr/local/cuda-12.4")  # absolute: the image's root
    root.link("etc/os-release", "../usr/lib/os-release")
    root.write("usr/lib/os-release", 'PRETTY_NAME="Relative Linux"\n')
    snapshot, _ = scan(f"oci:{images.oci_layout(ImageSpec([images.layer(root.path)]))}")
    [toolkit] = snapshot.installations(ComponentName.CUDA_TOOLKIT)
    assert toolkit.version == "12.4.1" and toolkit.properties["default"] == "yes"
    assert snapshot.platform.os == "Relative Linux"


# -- which library loads, and what the metadata says ----------------------------------------------


def torch_image(root: Root, nccl_wheel: str, env_nccl: str) -> ImageSpec:
    """PyTorch (gcc-built libtorch_cuda.so with the wheel's RPATH) beside an NCCL wheel."""
    root.write("etc/os-release", 'PRETTY_NAME="Ubuntu 22.04.5 LTS"\n')
    root.debian_loader()
    site = root.venv("opt/pytorch")
    site.torch("2.4.0+cu124", "12.4", archs="sm_80 sm_90")
    site.nccl_wheel(nccl_wheel, 12)
    site.cudnn_wheel("9.1.0.70", 12)
    return ImageSpec([], env={"NCCL_VERSION": env_nccl, "CUDNN_VERSION": "8.9.7"})


def test_env_versions_that_disagree_with_the_loaded_libraries(
    root: Root, images: ImageBuilder, matrix: Matrix
) -> None:
    spec = torch_image(root, "2.19.3", env_nccl="2.21.5")
    spec.layers = [images.layer(root.path)]
    snapshot, _ = scan(f"oci:{images.oci_layout(spec)}")
    [torch] = snapshot.installations(ComponentName.TORCH)
    assert torch.properties["loads_nccl"].endswith("site-packages/nvidia/nccl/lib/libnccl.so.2")
    findings = {f.id: f for f in check(snapshot, matrix).findings}
    sc350 = findings["SC350"]
    assert sc350.severity is Severity.WARNING
    assert "NCCL_VERSION=2.21.5, but PyTorch 2.4.0+cu124 would load NCCL 2.19.3" in sc350.message
    assert sc350.evidence[0].kind == "image-config"
    assert "CUDNN_VERSION=8.9.7" in findings["SC351"].message


def test_agreeing_metadata_is_quiet(root: Root, images: ImageBuilder, matrix: Matrix) -> None:
    spec = torch_image(root, "2.21.5", env_nccl="2.21.5")
    spec.env = {"NCCL_VERSION": "2.21.5", "CUDNN_VERSION": "9.1.0.70"}
    spec.layers = [images.layer(root.path)]
    snapshot, _ = scan(f"oci:{images.oci_layout(spec)}")
    assert {"SC350", "SC351", "SC352"}.isdisjoint(f.id for f in check(snapshot, matrix).findings)


def test_cuda_version_against_the_toolkit(root: Root, images: ImageBuilder, matrix: Matrix) -> None:
    root.toolkit("12.1.1")
    spec = ImageSpec([images.layer(root.path)], env={"CUDA_VERSION": "12.4.1"})
    snapshot, _ = scan(f"docker-archive:{images.docker_archive(spec)}")
    [finding] = [f for f in check(snapshot, matrix).findings if f.id == "SC352"]
    assert "CUDA_VERSION=12.4.1, but /usr/local/cuda is the CUDA 12.1.1 toolkit" in finding.message


def test_net_plugin_with_unresolved_library_on_an_efa_instance(
    root: Root, images: ImageBuilder, cli: Cli
) -> None:
    root.debian_loader()
    scenarios.efa_stack(root, on_loader_path=False)
    root.ld_conf("100_ofinccl.conf", "/opt/amazon/ofi-nccl/lib")  # the plugin, not libfabric
    root.venv("opt/pytorch").torch("2.4.0+cu124", "12.4", archs="sm_90")
    archive = images.docker_archive(ImageSpec([images.layer(root.path)]))
    done = cli("scan", f"docker-archive:{archive}", "--instance", "p5.48xlarge", "--no-cache")
    assert done.code == 1
    assert "error   SC402 The NCCL net plugin's own libraries do not resolve" in done.out
    assert "needs libfabric.so.1" in done.out
    assert "Instance            p5.48xlarge" in done.out


# -- pairing with a target host ----------------------------------------------------------------


def cuda13_image(root: Root, images: ImageBuilder, env: dict[str, str] | None = None) -> Path:
    root.debian_loader()
    root.toolkit("13.0.2")
    root.elf("usr/local/cuda-13.0/compat/libcuda.so.580.95.05", soname="libcuda.so.1")
    site = root.venv("opt/pytorch")
    site.torch("2.9.0+cu130", "13.0", archs="sm_75 sm_80 sm_90 sm_100", cuda_major=13)
    return images.docker_archive(ImageSpec([images.layer(root.path)], env=env or {}))


def test_image_on_an_old_driver(root: Root, images: ImageBuilder, cli: Cli) -> None:
    archive = cuda13_image(root, images)
    alone = cli("scan", f"docker-archive:{archive}", "--no-cache")
    assert alone.code == 0, alone.out
    datacenter = cli(
        "scan",
        str(archive),
        "--driver",
        "535.161.07",
        "--gpu",
        "NVIDIA H100 80GB HBM3",
        "--no-cache",
    )
    assert datacenter.code == 0
    assert "SC105 CUDA runs through forward compatibility" in datacenter.out
    geforce = cli(
        "scan",
        str(archive),
        "--driver",
        "535.161.07",
        "--gpu",
        "NVIDIA GeForce RTX 4090",
        "--no-cache",
    )
    assert geforce.code == 1
    assert "error   SC104 Forward compatibility on a GPU that does not allow it" in geforce.out
    old_gpu = cli("scan", str(archive), "--gpu", "Tesla V100-SXM2-16GB", "--no-cache")
    assert "error   SC202 PyTorch build lacks the GPU's architecture" in old_gpu.out


def test_host_snapshot_pairs_its_driver_gpus_and_efa(
    root: Root, images: ImageBuilder, tmp_path: Path, cli: Cli
) -> None:
    host_root = Root(tmp_path / "host", root.elves)
    scenarios.broken_p5(host_root)  # R535 driver, 8 H100, EFA devices
    host_json = tmp_path / "host.json"
    host_json.write_text(dump_snapshot(probe_root(str(host_root.path))))
    archive = cuda13_image(root, images)
    done = cli("scan", str(archive), "--host", str(host_json), "--no-cache", "--format", "json")
    report = json.loads(done.out)
    ids = {f["id"] for f in report["findings"]}
    assert "SC105" in ids  # the image's compat libcuda covers CUDA 13 on R535 H100s
    assert "SC401" in ids  # the host has EFA; the image has no net plugin
    driver = report["snapshot"]["components"]["driver"]["installations"][0]
    assert driver["version"] == "535.161.07"
    assert driver["evidence"][0]["kind"] == "target"
    assert driver["evidence"][0]["source"].startswith(f"host {host_json}: file /proc/driver")
    assert len(report["snapshot"]["gpus"]["devices"]) == 8


def test_require_cuda_against_the_driver(root: Root, images: ImageBuilder, cli: Cli) -> None:
    strict = cuda13_image(root, images, env={"NVIDIA_REQUIRE_CUDA": "cuda>=13.0"})
    done = cli("scan", str(strict), "--driver", "535.161.07", "--no-cache")
    assert "error   SC353 The container runtime will refuse to start the image" in done.out
    assert "DLAMI Deep Learning ARM64" not in done.out  # an amd64 image
    assert "driver 535.161.07 (CUDA 12.2)" in done.out
    assert "SC353" not in cli("scan", str(strict), "--driver", "580.95.05", "--no-cache").out
    compat = images.docker_archive(
        ImageSpec(
            [images.layer(root.path)],
            env={"NVIDIA_REQUIRE_CUDA": "cuda>=13.0 brand=tesla,driver>=535,driver<536"},
        )
    )
    assert "SC353" not in cli("scan", str(compat), "--driver", "535.161.07", "--no-cache").out


# -- the cache and the progress line ------------------------------------------------------------


def test_rescan_reads_only_new_layers(
    root: Root, ngc: ImageSpec, images: ImageBuilder, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first, stats = scan(f"oci:{images.oci_layout(ngc)}", cache)
    assert (stats.layers, stats.from_cache) == (1, 0) and stats.bytes_read > 0
    again, stats = scan(f"oci:{images.oci_layout(ngc)}", cache)
    assert (stats.layers, stats.from_cache, stats.bytes_read) == (1, 1, 0)
    assert stack(again) == stack(first)
    derived = ImageSpec(
        [*ngc.layers, images.layer(extra=[member("etc/derived", b"1")])], env=ngc.env
    )
    _, stats = scan(f"oci:{images.oci_layout(derived)}", cache)
    assert (stats.layers, stats.from_cache) == (2, 1)
    # Indexes are kept under the uncompressed digest too: a docker-archive of the same layers
    # (named by diff_id) is answered from the cache the OCI scans filled.
    _, stats = scan(f"docker-archive:{images.docker_archive(derived)}", cache)
    assert (stats.from_cache, stats.bytes_read) == (2, 0)


def test_rescan_of_a_whole_gzip_archive_skips_the_walk(
    ngc: ImageSpec, images: ImageBuilder, tmp_path: Path
) -> None:
    """A gzip archive can only be read front to back; a rescan whose layers are all cached
    only hashes it (its identity) and inflates none of it."""
    big = images.layer(extra=[member("opt/blob", os.urandom(5 << 20))])  # walked, not kept
    spec = ImageSpec([*ngc.layers, big], env=ngc.env)
    archive = images.docker_archive(spec, outer="gzip")
    cache = tmp_path / "cache"
    first, stats = scan(f"docker-archive:{archive}", cache)
    assert stats.from_cache == 0 and stats.bytes_read > 5 << 20
    again, stats = scan(f"docker-archive:{archive}", cache)
    assert (stats.layers, stats.from_cache, stats.bytes_read) == (2, 2, 0)
    assert stack(again) == stack(first)
    assert again.image and first.image
    assert again.image.config_digest == first.image.config_digest
    # Another archive (one byte of a layer changed) is not taken for the cached one.
    other = images.docker_archive(
        ImageSpec([*ngc.layers, images.layer(extra=[member("opt/blob", b"x" * (5 << 20))])]),
        outer="gzip",
    )
    _, stats = scan(f"docker-archive:{other}", cache)
    assert stats.bytes_read > 0


def test_progress_counts_layers_of_an_archive_read_front_to_back(
    ngc: ImageSpec, images: ImageBuilder
) -> None:
    big = images.layer(extra=[member("opt/blob", os.urandom(5 << 20))])
    archive = images.docker_archive(ImageSpec([*ngc.layers, big]), outer="gzip")
    shown = io.StringIO()
    scan(f"docker-archive:{archive}", progress=Progress(shown, enabled=True))
    assert "scanning: 1 layer ·" in shown.getvalue()
    assert "/0 layers" not in shown.getvalue()


def test_nothing_is_written_outside_the_cache(
    ngc: ImageSpec, images: ImageBuilder, tmp_path: Path
) -> None:
    archive = images.docker_archive(ngc, layer_compression="gzip")
    before = set(tmp_path.rglob("*"))
    done = run_stackcheck(
        "scan", str(archive), "--fail-on", "never", env={"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    )
    assert done.code == 0, done.err
    added = set(tmp_path.rglob("*")) - before
    assert added and all(
        p.is_relative_to(tmp_path / "xdg" / "stackcheck") or p == tmp_path / "xdg" for p in added
    )
    assert not any(p.suffix == ".tmp" for p in added)  # no temporary file left behind


def test_progress_on_a_terminal_only(ngc: ImageSpec, images: ImageBuilder) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown = Terminal()
    scan(f"oci:{images.oci_layout(ngc)}", progress=Progress(shown))
    assert "scanning: 1/1 layers" in shown.getvalue() and "/s" in shown.getvalue()
    quiet = io.StringIO()
    scan(f"oci:{images.oci_layout(ngc)}", progress=Progress(quiet))
    assert quiet.getvalue() == ""


# -- bad input -------------------------------------------------------------------------------------


def assert_one_line_error(done: Outcome, *fragments: str) -> None:
    assert done.code == 2, (done.out, done.err)
    assert "Traceback" not in done.err
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("stackcheck: error: "), done.err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_not_an_image(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar"
    junk.write_bytes(b"this is not a tar archive at all" * 100)
    assert_one_line_error(run_stackcheck("scan", f"docker-archive:{junk}"), "not an image archive")
    folder = tmp_path / "folder"
    folder.mkdir()
    assert_one_line_error(run_stackcheck("scan", f"oci:{folder}"), "no index.json")
    assert_one_line_error(run_stackcheck("scan", f"oci:{tmp_path / 'absent'}"), "does not exist")


def test_truncated_gzip_layer(root: Root, images: ImageBuilder, tmp_path: Path) -> None:
    root.write("etc/os-release", os.urandom(100_000))  # incompressible: the cut lands inside
    layer = images.layer(root.path)
    cut = tmp_path / "cut.tar"
    cut.write_bytes(gzip.compress(layer.path.read_bytes())[:3000])
    broken = LayerTar(cut, layer.diff_id)
    healthy = images.layer(extra=[member("etc/other", os.urandom(1 << 20))])
    archive = images.docker_archive(ImageSpec([healthy, broken]))  # walked in parallel
    assert_one_line_error(
        run_stackcheck("scan", str(archive), "--no-cache"), "truncated gzip stream"
    )


def test_manifest_pointing_at_a_missing_blob(ngc: ImageSpec, images: ImageBuilder) -> None:
    layout = images.oci_layout(ngc)
    digest = ngc.layers[0]
    blobs = sorted((layout / "blobs/sha256").iterdir(), key=lambda p: -p.stat().st_size)
    blobs[0].unlink()  # the layer: the largest blob
    assert digest.diff_id  # the manifest still names it
    assert_one_line_error(run_stackcheck("scan", f"oci:{layout}", "--no-cache"), "is missing")


def test_digest_mismatch(ngc: ImageSpec, images: ImageBuilder) -> None:
    layout = images.oci_layout(ngc, "none")
    blob = max((layout / "blobs/sha256").iterdir(), key=lambda p: p.stat().st_size)
    data = bytearray(blob.read_bytes())
    data[-2000] ^= 0xFF  # inside the end-of-archive padding: a valid tar, a different digest
    blob.write_bytes(bytes(data))
    assert_one_line_error(run_stackcheck("scan", f"oci:{layout}", "--no-cache"), "digest mismatch")


@pytest.mark.parametrize(
    ("name", "message"),
    [("../../etc/passwd", "path traversal"), ("/etc/passwd", "absolute path")],
)
def test_path_traversal_in_a_layer(images: ImageBuilder, name: str, message: str) -> None:
    layer = images.layer(extra=[member(name, b"root:x:0:0")])
    archive = images.docker_archive(ImageSpec([layer]))
    assert_one_line_error(run_stackcheck("scan", str(archive), "--no-cache"), message)


def test_symlink_loop(root: Root, images: ImageBuilder) -> None:
    root.link("usr/local/cuda-12.4", "cuda-12.5")
    root.link("usr/local/cuda-12.5", "cuda-12.4")
    archive = images.docker_archive(ImageSpec([images.layer(root.path)]))
    assert_one_line_error(run_stackcheck("scan", str(archive), "--no-cache"), "symlink loop")


def test_tar_bomb(images: ImageBuilder, tmp_path: Path) -> None:
    info = tarfile.TarInfo("usr/lib/huge.bin")
    info.size = 1 << 40  # 1 TiB declared, GNU base-256
    header = info.tobuf(format=tarfile.GNU_FORMAT)
    bomb = tmp_path / "bomb.tar"
    bomb.write_bytes(header + bytes(4096))
    archive = images.docker_archive(ImageSpec([LayerTar(bomb, sha256_file(bomb))]))
    assert_one_line_error(run_stackcheck("scan", str(archive), "--no-cache"), "tar bomb")


def test_unreachable_engine_and_registry() -> None:
    done = run_stackcheck(
        "scan",
        "127.0.0.1:9/stackcheck/none:1",
        "--no-cache",
        env={"DOCKER_HOST": "unix:///nonexistent.sock"},
    )
    assert_one_line_error(
        done,
        "no Docker-compatible engine at unix:///nonexistent.sock (DOCKER_HOST): No such file",
        "unreachable",
    )
    done = run_stackcheck("scan", "registry://127.0.0.1:9/stackcheck/none:1", "--no-cache")
    # What was tried, in one line: each URL with TLS or not and why it failed, and credentials.
    assert_one_line_error(
        done,
        "registry 127.0.0.1:9 unreachable: tried https://127.0.0.1:9 (TLS): Connection refused; "
        "http://127.0.0.1:9 (plain HTTP): Connection refused; credentials in ",
        "config.json: none",
    )


def test_unreachable_registry_says_credentials_were_found_without_showing_them(
    tmp_path: Path,
) -> None:
    secret = base64.b64encode(b"someone:hunter2-password").decode()
    (tmp_path / "config.json").write_text(json.dumps({"auths": {"127.0.0.1:9": {"auth": secret}}}))
    done = run_stackcheck(
        "scan",
        "registry://127.0.0.1:9/stackcheck/none:1",
        "--no-cache",
        "--insecure",
        env={"DOCKER_CONFIG": str(tmp_path)},
    )
    assert_one_line_error(
        done, "https://127.0.0.1:9 (TLS, unverified): Connection refused", "config.json: found"
    )
    assert "hunter2" not in done.err and secret not in done.err


def test_a_registry_scan_without_a_home_directory_says_so(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A container user without HOME or a passwd entry: no Docker config to read, which the
    error says, rather than a crash looking for one."""
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("DOCKER_CONFIG", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", _no_passwd_entry)
    done = cli("scan", "registry://127.0.0.1:9/stackcheck/none:1", "--no-cache")
    assert done.code == 2 and len(done.err.splitlines()) == 1, done.err
    assert "http://127.0.0.1:9 (plain HTTP): Connection refused" in done.err
    assert "credentials (no DOCKER_CONFIG, no home directory): none" in done.err


def _no_passwd_entry(uid: int) -> pwd.struct_passwd:
    raise KeyError(f"getpwuid(): uid not found: {uid}")


def test_truncated_zstd_layer(root: Root, images: ImageBuilder) -> None:
    """zstd reports no error for a cut stream; the tar walk (or else the digest) does."""
    root.write("etc/os-release", os.urandom(300_000))
    layout = images.oci_layout(ImageSpec([images.layer(root.path)]), "zstd")
    blob = max((layout / "blobs/sha256").iterdir(), key=lambda p: p.stat().st_size)
    blob.write_bytes(blob.read_bytes()[:100_000])
    done = run_stackcheck("scan", f"oci:{layout}", "--no-cache")
    assert_one_line_error(done, "truncated tar stream")


def test_an_image_for_an_nvswitch_instance_does_not_need_its_own_fabric_manager(
    root: Root, images: ImageBuilder, cli: Cli
) -> None:
    """The fabric manager runs on the host; an image scanned for a p5 must not be faulted for it."""
    archive = cuda13_image(root, images)
    done = cli("scan", str(archive), "--instance", "p5.48xlarge", "--no-cache", "--format", "json")
    report = json.loads(done.out)
    assert report["snapshot"]["platform"]["container"] is True
    assert "SC521" not in {f["id"] for f in report["findings"]}
