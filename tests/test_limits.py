"""Each bound of stackcheck/limits.py, held: what happens at and past it (issue 19)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from stackcheck import limits
from stackcheck.binary import elf
from stackcheck.errors import StackcheckError
from stackcheck.image.cache import LayerCache
from stackcheck.image.errors import ImageError
from stackcheck.image.layer import LayerIndex, scan_layer
from stackcheck.image.progress import Progress
from stackcheck.image.scan import scan_image
from stackcheck.image.sources.resolve import open_source
from stackcheck.image.stream import LayerStream
from stackcheck.inputs import load_json, read_regular
from stackcheck.live import commands
from stackcheck.probes import NEEDS
from stackcheck.probes.loader import loader_path
from stackcheck.views import DirectoryView
from stackcheck.views.needs import CompiledNeeds
from tests.conftest import Outcome
from tests.support import scenarios
from tests.support.images import ImageBuilder, ImageSpec, member
from tests.support.rootfs import Root

Cli = Callable[..., Outcome]


def test_every_bound_is_a_named_positive_integer() -> None:
    bounds = {k: v for k, v in vars(limits).items() if k.isupper()}
    assert len(bounds) >= 13
    assert all(isinstance(v, int) and v > 0 for v in bounds.values())


# -- loader ---------------------------------------------------------------------------------------


def test_ld_so_conf_include_loop_reads_each_file_once(root: Root) -> None:
    root.write("etc/ld.so.conf", "include /etc/ld.so.conf\n" * 50 + "/usr/lib/one\n")
    root.write("etc/ld.so.conf.d/a.conf", "include /etc/ld.so.conf\n/usr/lib/two\n")
    root.write("etc/ld.so.conf.d/b.conf", "include /etc/ld.so.conf.d/*.conf\n")
    with open(root.path / "etc/ld.so.conf", "a") as conf:
        conf.write("include /etc/ld.so.conf.d/*.conf\n")
    started = time.monotonic()
    path = loader_path(DirectoryView(root.path), {}, "env")
    assert time.monotonic() - started < 2
    assert [d.path for d in path.configured] == ["/usr/lib/one", "/usr/lib/two"]


def test_ld_so_conf_include_depth(root: Root) -> None:
    depth = limits.LDSO_INCLUDE_DEPTH + 3
    root.write("etc/ld.so.conf", "include /etc/c0.conf\n")
    for level in range(depth):
        root.write(f"etc/c{level}.conf", f"/lib/level{level}\ninclude /etc/c{level + 1}.conf\n")
    dirs = [d.path for d in loader_path(DirectoryView(root.path), {}, "env").configured]
    assert dirs == [f"/lib/level{i}" for i in range(limits.LDSO_INCLUDE_DEPTH)]


def test_ld_so_conf_file_count(root: Root) -> None:
    count = limits.LDSO_MAX_FILES + 50
    root.write("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    for i in range(count):
        root.write(f"etc/ld.so.conf.d/{i:04d}.conf", f"/lib/d{i}\n")
    dirs = loader_path(DirectoryView(root.path), {}, "env").configured
    assert len(dirs) == limits.LDSO_MAX_FILES - 1  # ld.so.conf itself is one of the files read


def test_ld_library_path_entries(root: Root) -> None:
    view = DirectoryView(root.path)
    value = ":".join(f"/l{i}" for i in range(limits.LD_LIBRARY_PATH_MAX_ENTRIES * 3))
    path = loader_path(view, {"LD_LIBRARY_PATH": value}, "env")
    assert len(path.ld_library_path) == limits.LD_LIBRARY_PATH_MAX_ENTRIES
    assert any("LD_LIBRARY_PATH" in p for p in view.problems)
    assert len(path.ld_library_path[0].evidence.detail or "") < 5000


# -- ELF -----------------------------------------------------------------------------------------


def test_elf_region_past_the_bound_is_refused(root: Root) -> None:
    lib = root.elf("usr/lib/libx.so", soname="libx.so")
    data = bytearray(lib.read_bytes())
    data[0x3A:0x3C] = (0xFFFF).to_bytes(2, "little")  # e_shentsize: 64 KiB x shnum
    data[0x3C:0x3E] = (4000).to_bytes(2, "little")
    data[0x3E:0x40] = (1).to_bytes(2, "little")  # e_shstrndx inside
    asked: list[int] = []

    def read_at(offset: int, size: int) -> bytes:
        asked.append(size)
        return bytes(data[offset : offset + size])

    with pytest.raises(elf.ElfError, match="section headers claims"):
        elf.section_range(read_at, ".rodata")
    assert max(asked) <= limits.ELF_MAX_REGION


def test_elf_section_larger_than_the_file_is_read_to_its_end(root: Root) -> None:
    lib = root.elf("usr/lib/libnccl.so.2", soname="libnccl.so.2", strings=["NCCL version 2.1.1"])
    from tests.support.hostile import _lying_rodata

    _lying_rodata(lib)
    view = DirectoryView(root.path)
    started = time.monotonic()
    assert view.search("/usr/lib/libnccl.so.2", re.compile(rb"NCCL version ([\d.]+)")) is not None
    assert view.search("/usr/lib/libnccl.so.2", re.compile(rb"absent-string")) is None
    assert time.monotonic() - started < 2
    assert view.read_at("/usr/lib/libnccl.so.2", 0, 1 << 62)[:4] == b"\x7fELF"


# -- subprocesses ----------------------------------------------------------------------------------


def _tool(tmp_path: Path, name: str, script: str) -> str:
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    (bindir / name).write_text("#!/bin/sh\n" + script)
    (bindir / name).chmod(0o755)
    return f"{bindir}:{os.environ['PATH']}"


def test_subprocess_output_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", _tool(tmp_path, "nvidia-smi", "exec yes\n"))
    result = commands.run(["nvidia-smi"], timeout=10)
    assert result.stdout is not None and len(result.stdout) == limits.SUBPROCESS_OUTPUT_BYTES
    assert result.reason is not None and "the rest was cut" in result.reason


def test_a_timeout_kills_the_whole_process_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "grandchild.pid"
    script = f"sleep 60 &\necho $! > {marker}\nwait\n"
    monkeypatch.setenv("PATH", _tool(tmp_path, "fi_info", script))
    result = commands.run(["fi_info"], timeout=0.5)
    assert result.stdout is None and "did not answer" in (result.reason or "")
    pid = int(marker.read_text())
    time.sleep(0.1)
    state = (
        Path(f"/proc/{pid}/stat").read_text().split()[2]
        if Path(f"/proc/{pid}").exists()
        else "gone"
    )
    assert state in ("Z", "X", "gone")  # killed (a zombie until init reaps it), not sleeping


# -- pasted text and files -------------------------------------------------------------------------


def test_pasted_text_is_cut_and_said_so(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cut itself, at a small bound: the real one (8 MiB) costs seconds of triage per run.
    monkeypatch.setattr(limits, "PASTED_TEXT_BYTES", 64 << 10)
    pasted = tmp_path / "env.txt"
    line = "NCCL_DEBUG=INFO\n"
    pasted.write_text("$ env\n" + line * (limits.PASTED_TEXT_BYTES // len(line) + 1000))
    done = cli("triage", str(pasted))
    assert done.code in (0, 1)
    read = int(done.err.split("only the first ")[1].split()[0])
    assert limits.PASTED_TEXT_BYTES - len(line) < read <= limits.PASTED_TEXT_BYTES  # whole lines
    assert "the rest was cut" in done.err


def test_json_file_bytes_and_depth(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as out:
        out.truncate(limits.JSON_FILE_BYTES + 1)
    with pytest.raises(StackcheckError, match="larger than"):
        read_regular(big, "snapshot", limits.JSON_FILE_BYTES)
    assert load_json("[" * limits.JSON_MAX_DEPTH + "]" * limits.JSON_MAX_DEPTH, "x") is not None
    with pytest.raises(StackcheckError, match="nested"):
        load_json("[" * (limits.JSON_MAX_DEPTH + 1) + "]" * (limits.JSON_MAX_DEPTH + 1), "x")


def test_config_file_bytes(cli: Cli, tmp_path: Path, root: Root) -> None:
    config = tmp_path / "big.toml"
    config.write_text("# x\n" * (limits.CONFIG_FILE_BYTES // 4 + 1))
    done = cli("check", "--root", str(root.path), "--config", str(config))
    assert done.code == 2 and "larger than" in done.err and done.err.count("\n") == 1


@pytest.mark.parametrize("argv", [["check", "{fifo}"], ["lint-dockerfile", "{fifo}"]])
def test_a_fifo_is_refused(cli: Cli, tmp_path: Path, argv: list[str]) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = cli(*[a.format(fifo=fifo) for a in argv])
    assert done.code == 2 and "FIFO" in done.err


def test_matrix_file_bytes(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import stackcheck.matrix_files as files

    monkeypatch.setattr(files, "MATRIX_FILE_BYTES", 4 << 10)  # the bound itself: 16 MiB
    (tmp_path / "extra.toml").write_text("# x\n" * (files.MATRIX_FILE_BYTES // 4 + 1))
    done = cli("matrix", "--matrix-dir", str(tmp_path))
    assert done.code == 2 and "larger than" in done.err and done.err.count("\n") == 1


@pytest.mark.parametrize("command", ["fleet", "matrix"])
def test_a_fifo_among_many_files_is_refused(cli: Cli, tmp_path: Path, command: str) -> None:
    """A fleet's snapshot file, or a *.toml in --matrix-dir, that is a FIFO: one line, exit 2."""
    fifo = tmp_path / "node.json" if command == "fleet" else tmp_path / "extra.toml"
    os.mkfifo(fifo)
    argv = ["fleet", str(fifo)] if command == "fleet" else ["matrix", "--matrix-dir", str(tmp_path)]
    done = cli(*argv)
    assert done.code == 2 and "FIFO" in done.err and done.err.count("\n") == 1


# -- images --------------------------------------------------------------------------------------


def _layer_stream(members: int) -> LayerStream:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for i in range(members):
            tar.addfile(tarfile.TarInfo(f"f{i}"), io.BytesIO(b""))
    buffer.seek(0)
    return LayerStream(buffer, "layer")


def test_tar_member_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("stackcheck.image.layer.TAR_MAX_MEMBERS", 100)
    assert scan_layer(_layer_stream(100), CompiledNeeds(NEEDS)).members == 100
    with pytest.raises(ImageError, match="more than 100 members"):
        scan_layer(_layer_stream(101), CompiledNeeds(NEEDS))


def test_tree_depth(images: ImageBuilder) -> None:
    deep = "/".join(["d"] * (limits.TREE_MAX_DEPTH + 1)) + "/f"
    layer = images.layer(extra=[member(deep, b"x")])
    with pytest.raises(ImageError, match="directories deep"):
        scan_layer(LayerStream(layer.path.open("rb"), "layer"), CompiledNeeds(NEEDS))


def test_kept_member_bytes(images: ImageBuilder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("stackcheck.image.sources.blobs.KEPT_MEMBER_BYTES", 1000)
    layer = images.layer(extra=[member("etc/os-release", b'NAME="x"\n')])
    archive = images.docker_archive(ImageSpec([layer], env={"X": "y" * 2000}), outer="gzip")
    with pytest.raises(ImageError, match="MiB of JSON members"):
        scan_image(open_source(str(archive), "linux/amd64", False), None, Progress(io.StringIO()))


def test_cache_entry_bytes_and_integrity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = LayerCache(tmp_path, "fp")
    digest = "sha256:" + "a" * 64
    cache.store(digest, LayerIndex(entries=[("/etc/x", "file", 1, None)], members=1))
    assert cache.load(digest) is not None
    path = next((tmp_path / "layers").iterdir())
    import zlib

    payload = bytearray(zlib.decompress(path.read_bytes()))
    payload[-3] ^= 1  # one byte of the index changed after it was written
    path.write_bytes(zlib.compress(bytes(payload)))
    assert cache.load(digest) is None  # a miss, never a result
    monkeypatch.setattr("stackcheck.image.cache.CACHE_ENTRY_BYTES", 1000)
    cache.store(digest, LayerIndex(entries=[("/x" * 1000, "file", 1, None)], members=1))
    assert cache.load(digest) is None  # inflates past the bound: a miss


def test_a_layer_changed_after_caching_is_a_miss(
    root: Root, images: ImageBuilder, tmp_path: Path
) -> None:
    scenarios.ngc_image(root)
    layout = images.oci_layout(ImageSpec([images.layer(root.path)]), "none")
    cache = LayerCache(tmp_path / "cache", CompiledNeeds(NEEDS).fingerprint())
    source = f"oci:{layout}"
    scan_image(open_source(source, "linux/amd64", False), cache, Progress(io.StringIO()))
    blob = max((layout / "blobs/sha256").iterdir(), key=lambda p: p.stat().st_size)
    data = bytearray(blob.read_bytes())
    data[-2000] ^= 0xFF  # end-of-archive padding: still a valid tar, not the same bytes
    blob.write_bytes(bytes(data))
    with pytest.raises(ImageError, match="digest mismatch"):
        scan_image(open_source(source, "linux/amd64", False), cache, Progress(io.StringIO()))


def test_plan_max_gpus(cli: Cli) -> None:
    done = cli("plan", "--params", "1000T", "--max-gpus", str(limits.PLAN_MAX_GPUS))
    assert done.code in (0, 1), done.err
    done = cli("plan", "--params", "7B", "--max-gpus", "1000000000")
    assert done.code == 2 and "at most" in done.err and done.err.count("\n") == 1


# -- exit status -----------------------------------------------------------------------------------


def test_an_escaping_exception_is_exit_2_with_one_line(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise KeyError("something the code did not expect")

    monkeypatch.setattr("stackcheck.cli.common.read_snapshot", broken)
    snapshot = tmp_path / "s.json"
    snapshot.write_text("{}")
    done = cli("check", str(snapshot))
    assert done.code == 2
    assert done.err.count("\n") == 1 and "Traceback" not in done.err
    assert f"cannot read snapshot {snapshot}: KeyError" in done.err and "--debug" in done.err
    debug = cli("--debug", "check", str(snapshot))
    assert debug.code == 2 and "Traceback" in debug.err


# -- Dockerfiles and fleet ------------------------------------------------------------------------


def test_dockerfile_bytes(cli: Cli, tmp_path: Path) -> None:
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text("FROM ubuntu\n" + "# x\n" * (limits.DOCKERFILE_BYTES // 4))
    done = cli("lint-dockerfile", str(dockerfile))
    assert done.code == 2 and done.err.count("\n") == 1


def test_dockerfile_stage_depth(cli: Cli, tmp_path: Path) -> None:
    """A COPY --from chain is followed to the bound and no further: nothing recursed without end."""

    def nccl_after(copies: int) -> list[object]:
        lines = ["FROM nvcr.io/nvidia/pytorch:24.05-py3 AS s0"]
        for level in range(1, copies + 1):
            lines += [f"FROM ubuntu:22.04 AS s{level}", f"COPY --from=s{level - 1} /opt/nccl /opt"]
        dockerfile = tmp_path / f"Dockerfile.{copies}"
        dockerfile.write_text("\n".join(lines) + "\n")
        done = cli("lint-dockerfile", str(dockerfile), "--format", "json")
        assert done.code in (0, 1), done.err
        components = json.loads(done.out)["snapshot"]["components"]
        return [i["version"] for i in components["nccl"]["installations"]]

    assert nccl_after(limits.DOCKERFILE_STAGE_DEPTH) == ["2.21.5"]  # ngc.toml's 24.05
    assert nccl_after(limits.DOCKERFILE_STAGE_DEPTH + 8) == []


def test_fleet_node_output_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """srun's labelled output past the bound is dropped and the node answers nothing."""
    from stackcheck.fleet.sources import slurm

    monkeypatch.setattr(limits, "FLEET_NODE_OUTPUT_BYTES", 1 << 10)
    script = "i=0; while [ $i -lt 64 ]; do printf '0: %064d\\n' 0; i=$((i+1)); done; "
    script += "printf '0: MARK 0 node1 node1\\n'; printf '1: {}\\n1: MARK 0 node2 node2\\n'"
    process = subprocess.Popen(["sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    step = slurm._Step(process, "MARK")
    step.finish()
    assert step.tasks[0].oversized and not step.tasks[1].oversized
    answers = []
    while not step.answers.empty():
        answers.append(step.answers.get())
    assert [a.node for a in answers] == ["node2"]


def test_layer_cache_is_pruned_and_trusts_only_its_own_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The layer cache, like the result and matrix caches, keeps only its newest entries and
    never reads an entry someone else could have written."""
    from stackcheck.image import cache as layer_cache

    monkeypatch.setattr(layer_cache, "ENTRIES", 3)
    cache = LayerCache(tmp_path, "f")
    digests = [f"sha256:{i:064x}" for i in range(6)]
    for age, digest in enumerate(digests):
        cache.store(digest, LayerIndex(entries=[("/etc/x", "file", 1, None)], members=1))
        written = cache._path(digest)
        os.utime(written, (time.time() - 100 + age, time.time() - 100 + age))
    assert len(list((tmp_path / "layers").glob("*.json.z"))) == 3
    kept = digests[-1]
    assert cache.load(kept) is not None
    cache._path(kept).chmod(0o666)  # writable by others: never trusted
    assert cache.load(kept) is None
    assert (tmp_path / "layers").stat().st_mode & 0o077 == 0
