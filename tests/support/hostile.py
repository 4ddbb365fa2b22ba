"""A corpus of hostile and broken inputs, built here, each with the result stackcheck must give.

Every reproduction of issue 19 is one :class:`Case`: the command line, the environment, and the
expected outcome (exit 2 with a phrase in its one line, or an answer: exit 0 or 1 and a phrase on
stdout). ``scale`` sizes the heavy ones: 1 in the test suite, the issue's own sizes in
``benchmarks/hostile_inputs.py``.
"""

from __future__ import annotations

import gzip
import io
import os
import struct
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from stackcheck.probes import probe_root
from stackcheck.snapshot import dump_snapshot
from tests.support import scenarios
from tests.support.elfbuild import ElfFactory
from tests.support.images import ImageBuilder, ImageSpec, LayerTar, member, sha256_file
from tests.support.rootfs import Root

ANSWER = "answer"  # exit 0 or 1, a report on stdout
ERROR = "error"  # exit 2, one line on stderr


@dataclass
class Case:
    name: str
    argv: list[str]
    expect: str  # ANSWER or ERROR
    fragment: str = ""  # in the error line (ERROR) or on stdout (ANSWER)
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Corpus:
    workdir: Path
    elves: ElfFactory
    scale: int = 1  # 1: test-suite sizes; the benchmark passes the sizes
    cases: list[Case] = field(default_factory=list)
    deep: list[Path] = field(default_factory=list)  # directory trees too deep for rmtree

    def __post_init__(self) -> None:
        self.images = ImageBuilder(self.workdir / "images")
        self._roots = 0

    def root(self) -> Root:
        self._roots += 1
        return Root(self.workdir / f"root{self._roots}", self.elves)

    def add(self, case: Case) -> None:
        self.cases.append(case)

    def cleanup(self) -> None:
        """Remove the deep trees bottom-up (shutil.rmtree and pytest's cleanup recurse)."""
        for top in self.deep:
            deepest = top
            while (deepest / "d").is_dir():
                deepest = deepest / "d"
            while deepest != top.parent:
                for child in deepest.iterdir():
                    child.unlink()
                deepest.rmdir()
                deepest = deepest.parent


def _fifo(corpus: Corpus, name: str) -> str:
    path = corpus.workdir / name
    if not path.exists():
        os.mkfifo(path)
    return str(path)


def _snapshot(corpus: Corpus) -> Path:
    root = corpus.root()
    path = corpus.workdir / "snapshot.json"
    path.write_text(dump_snapshot(probe_root(str(root.path))))
    return path


def _self_including_loader(root: Root) -> None:
    scenarios.ngc_image(root)
    root.write(
        "etc/ld.so.conf",
        "include /etc/ld.so.conf\n" * 4 + "include /etc/ld.so.conf.d/*.conf\n",
    )
    root.write("etc/ld.so.conf.d/loop.conf", "include /etc/ld.so.conf\n/opt/lib\n" * 3)


def _lying_rodata(path: Path) -> None:
    """Make the ELF's .rodata section header claim 2^62 bytes."""
    data = bytearray(path.read_bytes())
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    names = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)[0]
    for i in range(shnum):
        at = shoff + i * shentsize
        name_at = names + struct.unpack_from("<I", data, at)[0]
        if bytes(data[name_at : name_at + 8]) == b".rodata\x00":
            struct.pack_into("<Q", data, at + 0x20, 1 << 62)
    path.write_bytes(bytes(data))


def _raw_layer(corpus: Corpus, name: str, data: bytes) -> LayerTar:
    path = corpus.workdir / name
    path.write_bytes(data)
    return LayerTar(path, sha256_file(path))


def _pax_size_abc() -> bytes:
    body = b"12 size=abc\n"  # a pax record's length counts its own digits
    info = tarfile.TarInfo("././@PaxHeader")
    info.type = tarfile.XHDTYPE
    info.size = len(body)
    header = info.tobuf(format=tarfile.USTAR_FORMAT)
    padded = body + bytes(-len(body) % 512)
    regular = tarfile.TarInfo("etc/os-release")
    regular.size = 4
    return header + padded + regular.tobuf(format=tarfile.USTAR_FORMAT) + b"x" * 512 + bytes(1024)


def _deep_layer(corpus: Corpus, depth: int) -> LayerTar:
    parts = "/".join(f"d{i % 10}" for i in range(depth))
    return corpus.images.layer(extra=[member(f"{parts}/libnccl.so.2", b"\x7fELF")])


def _many_members_archive(corpus: Corpus, count: int, size: int) -> Path:
    """A gzip'd docker-archive holding a real image and ``count`` extra members of ``size``."""
    root = corpus.root()
    root.write("etc/os-release", 'NAME="Ubuntu"\n')
    layer = corpus.images.layer(root.path)
    plain = corpus.images.docker_archive(ImageSpec([layer]))
    path = corpus.workdir / "many-members.docker.tar.gz"
    filler = b"x" * size
    with (
        gzip.open(path, "wb", compresslevel=1) as out,
        tarfile.open(fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as tar,
    ):
        for i in range(count):
            info = tarfile.TarInfo(f"filler/{i:06d}.bin")
            info.size = size
            tar.addfile(info, io.BytesIO(filler))
        with tarfile.open(plain) as original:
            for item in original.getmembers():
                tar.addfile(item, original.extractfile(item))
    return path


def _many_files_layer(corpus: Corpus, count: int) -> LayerTar:
    path = corpus.workdir / "many-files.tar"
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
        for i in range(count):
            tar.addfile(tarfile.TarInfo(f"f/{i}"), io.BytesIO(b""))
    return LayerTar(path, sha256_file(path))


def loader_cases(corpus: Corpus) -> None:
    root = corpus.root()
    _self_including_loader(root)
    corpus.add(Case("ldso-self-include-root", ["check", "--root", str(root.path)], ANSWER, "NCCL"))
    archive = corpus.images.docker_archive(ImageSpec([corpus.images.layer(root.path)]))
    corpus.add(
        Case("ldso-self-include-image", ["scan", str(archive), "--no-cache"], ANSWER, "NCCL")
    )
    lib = corpus.root()
    lib.elf("usr/lib/x86_64-linux-gnu/libnccl.so.2", soname="libnccl.so.2", strings=["x"])
    _lying_rodata(lib.path / "usr/lib/x86_64-linux-gnu/libnccl.so.2")
    corpus.add(Case("elf-rodata-2^62", ["probe", "--root", str(lib.path)], ANSWER, "nccl"))
    # The million entries at full scale (3 MB: the config stays under its 4 MiB bound).
    entries = ":".join(["/a"] * (1_000_000 if corpus.scale > 1 else 50_000))
    spec = ImageSpec([corpus.images.layer(root.path)], env={"LD_LIBRARY_PATH": entries})
    image = corpus.images.docker_archive(spec)
    snapshot = corpus.workdir / "ld-library-path.json"
    snapshot.write_text(dump_snapshot(probe_root(str(root.path), {"LD_LIBRARY_PATH": entries})))
    corpus.add(Case("ld-library-path-snapshot", ["check", str(snapshot)], ANSWER, "NCCL"))
    corpus.add(Case("ld-library-path-entries", ["scan", str(image), "--no-cache"], ANSWER, "NCCL"))


def fifo_cases(corpus: Corpus) -> None:
    snapshot = str(_snapshot(corpus))
    fifo = _fifo(corpus, "fifo")
    for name, argv in (
        ("fifo-docker-archive", ["scan", f"docker-archive:{fifo}"]),
        ("fifo-snapshot", ["check", fifo]),
        ("fifo-baseline", ["check", snapshot, "--baseline", fifo]),
        ("fifo-dockerfile", ["lint-dockerfile", fifo]),
        ("fifo-triage", ["triage", fifo]),
        ("fifo-config", ["check", snapshot, "--config", fifo]),
    ):
        corpus.add(Case(name, argv, ERROR, "FIFO"))
    big = ["plan", "--params", "7B", "--max-gpus", "1000000000"]
    corpus.add(Case("plan-max-gpus-1e9", big, ERROR, "at most"))


def memory_cases(corpus: Corpus) -> None:
    archive = _many_members_archive(corpus, 20 * corpus.scale, 4 << 20)
    corpus.add(Case("gzip-archive-4MiB-members", ["scan", str(archive), "--no-cache"], ANSWER))
    flood = corpus.workdir / "bin"
    flood.mkdir(exist_ok=True)
    (flood / "nvidia-smi").write_text("#!/bin/sh\nexec yes\n")
    (flood / "nvidia-smi").chmod(0o755)
    path = f"{flood}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    corpus.add(Case("nvidia-smi-floods", ["probe", "--no-network"], ANSWER, env={"PATH": path}))
    dump = corpus.workdir / "env-dump.txt"
    line = "NCCL_SOCKET_IFNAME=eth0\nNCCL_DEBUG=INFO\nSOME_OTHER_VARIABLE=abcdefghijklmnop\n"
    size = 13_000_000 if corpus.scale > 1 else 2_000_000  # the 13 MB is over the cap
    dump.write_text("$ env\n" + line * (size // len(line)))
    corpus.add(Case("pasted-env-dump", ["triage", str(dump)], ANSWER, "NCCL"))
    many = corpus.images.docker_archive(
        ImageSpec([_many_files_layer(corpus, 300_000 if corpus.scale > 1 else 20_000)])
    )
    corpus.add(Case("huge-member-count", ["scan", str(many), "--no-cache"], ANSWER))


def crash_cases(corpus: Corpus) -> None:
    layer = corpus.images.layer(extra=[member("etc/os-release", b'NAME="x"\n')])
    junk = gzip.compress(layer.path.read_bytes()) + b"this is junk after the gzip stream" * 10
    broken = corpus.images.docker_archive(ImageSpec([_raw_layer(corpus, "junk.gz", junk)]))
    corpus.add(Case("gzip-then-junk", ["scan", str(broken), "--no-cache"], ERROR, "gzip"))
    pax = corpus.images.docker_archive(ImageSpec([_raw_layer(corpus, "pax.tar", _pax_size_abc())]))
    corpus.add(Case("pax-size-abc", ["scan", str(pax), "--no-cache"], ERROR, "pax size"))
    deep = _deep_layer(corpus, 1500)
    top = corpus.images.layer(extra=[member(".wh.d0", b"")])
    image = corpus.images.docker_archive(ImageSpec([deep, top]))
    corpus.add(Case("tree-1500-deep-image", ["scan", str(image), "--no-cache"], ANSWER))
    tree = corpus.root()
    deepest = tree.path / "d"
    corpus.deep.append(deepest)
    deepest.mkdir()
    for _ in range(1499):  # os.makedirs recurses
        deepest = deepest / "d"
        deepest.mkdir()
    corpus.add(Case("tree-1500-deep-root", ["check", "--root", str(tree.path)], ANSWER))
    named = corpus.root()
    scenarios.ngc_image(named)
    site = named.venv("opt/env-\udcff\udcfe")  # bytes 0xff 0xfe: not UTF-8
    site.torch("2.5.1+cu124", "12.4", archs="sm_80 sm_90")
    json_out = ["--format", "json"]
    corpus.add(
        Case(
            "non-utf8-names-root",
            ["check", "--root", str(named.path), *json_out],
            ANSWER,
            "\\\\xff",
        )
    )
    archive = corpus.images.docker_archive(ImageSpec([corpus.images.layer(named.path)]))
    corpus.add(
        Case(
            "non-utf8-names-image",
            ["scan", str(archive), "--no-cache", *json_out],
            ANSWER,
            "\\\\xff",
        )
    )


def json_cases(corpus: Corpus) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    for what, text, fragment in (
        ("deep", deep, "nested"),
        ("malformed", '{"schema_version": ', "not JSON"),
        ("not-utf8", '{"a": "\udcff"}', "UTF-8"),
        ("wrong-types", '{"schema_version": 1, "components": {"nccl": 7}}', ""),
    ):
        path = corpus.workdir / f"{what}.json"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        corpus.add(Case(f"snapshot-{what}", ["check", str(path)], ERROR, fragment))
        snapshot = str(_snapshot(corpus))
        corpus.add(Case(f"baseline-{what}", ["check", snapshot, "--baseline", str(path)], ERROR))
    layer = corpus.images.layer(extra=[member("etc/os-release", b'NAME="x"\n')])
    for what, manifest in (
        ("deep", deep.encode()),
        ("malformed", b'[{"Config": '),
        ("wrong-types", b'[{"Config": 7, "Layers": "x"}]'),
        ("not-utf8", b'[{"Config": "\xff"}]'),
    ):
        path = corpus.images.docker_archive(ImageSpec([layer]))
        _replace_member(path, "manifest.json", manifest)
        corpus.add(Case(f"manifest-{what}", ["scan", str(path), "--no-cache"], ERROR))
    spec = ImageSpec([layer])
    layout = corpus.images.oci_layout(spec)
    (layout / "index.json").write_text(deep)
    corpus.add(Case("oci-index-deep", ["scan", f"oci:{layout}", "--no-cache"], ERROR, "nested"))
    layout = corpus.images.oci_layout(spec)
    (layout / "index.json").write_text('{"manifests": [{"digest": 5}]}')
    corpus.add(Case("oci-index-wrong-types", ["scan", f"oci:{layout}", "--no-cache"], ERROR))


def image_cases(corpus: Corpus) -> None:
    """The hostile images the scanner already refused, kept in the corpus with their results."""
    for name, path, fragment in (
        ("traversal", "../../etc/passwd", "path traversal"),
        ("absolute", "/etc/passwd", "absolute path"),
    ):
        layer = corpus.images.layer(extra=[member(path, b"root:x:0:0")])
        image = corpus.images.docker_archive(ImageSpec([layer]))
        corpus.add(Case(name, ["scan", str(image), "--no-cache"], ERROR, fragment))
    loop = corpus.root()
    loop.link("usr/local/cuda-12.4", "cuda-12.5")
    loop.link("usr/local/cuda-12.5", "cuda-12.4")
    image = corpus.images.docker_archive(ImageSpec([corpus.images.layer(loop.path)]))
    corpus.add(Case("symlink-loop", ["scan", str(image), "--no-cache"], ERROR, "symlink loop"))
    whole = corpus.images.layer(extra=[member("etc/os-release", os.urandom(100_000))])
    cut = _raw_layer(corpus, "cut.tar.gz", gzip.compress(whole.path.read_bytes())[:3000])
    image = corpus.images.docker_archive(ImageSpec([LayerTar(cut.path, whole.diff_id)]))
    corpus.add(Case("truncated-layer", ["scan", str(image), "--no-cache"], ERROR, "truncated"))
    info = tarfile.TarInfo("usr/lib/huge.bin")
    info.size = 1 << 40
    bomb = _raw_layer(corpus, "bomb.tar", info.tobuf(format=tarfile.GNU_FORMAT) + bytes(4096))
    image = corpus.images.docker_archive(ImageSpec([bomb]))
    corpus.add(Case("lying-size", ["scan", str(image), "--no-cache"], ERROR, "tar bomb"))


def _replace_member(archive: Path, name: str, data: bytes) -> None:
    with tarfile.open(archive) as tar:
        members = [(m, tar.extractfile(m).read() if m.isfile() else None) for m in tar]  # type: ignore[union-attr]
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tar:
        for info, content in members:
            if info.name == name:
                content = data
                info.size = len(data)
            tar.addfile(info, io.BytesIO(content) if content is not None else None)


BUILDERS: tuple[Callable[[Corpus], None], ...] = (
    loader_cases,
    fifo_cases,
    memory_cases,
    crash_cases,
    json_cases,
    image_cases,
)


def build(workdir: Path, elves: ElfFactory, scale: int = 1) -> Corpus:
    corpus = Corpus(workdir, elves, scale)
    for builder in BUILDERS:
        builder(corpus)
    return corpus
