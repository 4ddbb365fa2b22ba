"""Fuzz targets for every reader of outside input: snapshot, config, ld.so.conf, ELF, tar
headers, image JSON and each triage format. Seeded, so a run is reproducible.

Each target takes seed inputs made here from real structures (a probed tree's snapshot, gcc-built
ELF files, tars written by ``tarfile``, manifests written by tests.support.images, the triage
corpus) and mutates them: byte-level (flips, cuts, splices, inserted hostile tokens) and, for
JSON, structure-level (a value swapped for one of another type). A target may end only with the
errors it documents (``allowed``); anything else is an uncaught exception, counted and kept.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import random
import re
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stackcheck.binary import elf
from stackcheck.binary.collect import BinaryCollector, SparseFile
from stackcheck.check.engine import check
from stackcheck.errors import StackcheckError
from stackcheck.formats import get_format
from stackcheck.image.layer import LayerIndex, scan_layer
from stackcheck.image.scan import image_env, image_info
from stackcheck.image.source import ImageSource, docker_archive_manifest, oci_layout_manifest
from stackcheck.image.sources.blobs import KeptBlobs
from stackcheck.image.stream import LayerStream
from stackcheck.image.tree import MergedTree
from stackcheck.ingest import read_report
from stackcheck.ingest.formats import FORMATS, PROSE
from stackcheck.ingest.lines import split_lines
from stackcheck.matrix import Matrix
from stackcheck.policy.config import load_config
from stackcheck.probes import NEEDS, probe_root
from stackcheck.probes.loader import loader_path
from stackcheck.redact import redact
from stackcheck.rules import RULES
from stackcheck.snapshot import dump_snapshot, load_snapshot
from stackcheck.views.image import ImageView
from stackcheck.views.needs import CompiledNeeds, Search
from tests.corpus import REPORTS
from tests.support import scenarios
from tests.support.elfbuild import ElfFactory
from tests.support.images import ImageBuilder, ImageSpec, member
from tests.support.rootfs import Root

_TOKENS = [
    b"\x00", b"\xff\xfe", b"\xc3", b"[" * 3000, b"{" * 300, b'"', b"\\", b"\n", b"\r\n",
    b"-1", b"0", b"99999999999999999999999", b"1e309", b"NaN", b"null", b"true", b"[]", b"{}",
    b"include /etc/ld.so.conf", b"include *", b"size=abc", b"\x7fELF", b"\x1f\x8b", b"../",
    b"ustar\x00", b"=", b":", b"sm_90", b"12.4", b"NCCL version ", b"https://u:p@h/x", b"\t",
]  # fmt: skip
_ODD_VALUES: list[Any] = [
    None, True, False, -1, 0, 2**70, 1.5, "", "x", "\udcff", "9" * 50, [], {}, [[]],
    {"k": "v"}, ["x", 1], json.loads("[" * 20 + "]" * 20),
]  # fmt: skip


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(out) + 1)
        op = rng.randrange(7)
        if op == 0 and out:
            out[min(at, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            out[at:at] = rng.choice(_TOKENS)
        elif op == 2:
            del out[at : at + rng.randint(1, 64)]
        elif op == 3 and out:
            start = rng.randrange(len(out))
            out[at:at] = out[start : start + rng.randint(1, 512)]
        elif op == 4:
            del out[at:]
        elif op == 5:
            out[at : at + 8] = rng.randbytes(rng.randint(1, 8))
        elif op == 6 and out:
            out[at : at + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x80", b"\x7f" * 4])
    return bytes(out)


def mutate_json(rng: random.Random, document: Any) -> Any:
    """A copy of ``document`` with a few values replaced, removed or added: half the time a
    value of the same type (which keeps the document valid, so deeper code sees it), else any
    type for any."""
    document = json.loads(json.dumps(document))
    if rng.random() < 0.5:
        for _ in range(rng.randint(1, 3)):
            holder, key = _pick(rng, document)
            if holder is not None:
                holder[key] = _same_kind(rng, holder[key])
        return document
    for _ in range(rng.randint(1, 3)):
        holder, key = _pick(rng, document)
        if holder is None:
            return rng.choice(_ODD_VALUES)
        choice = rng.randrange(4)
        if choice == 0 and isinstance(holder, dict):
            holder.pop(key, None)
        elif choice == 1 and isinstance(holder, dict):
            holder[rng.choice(["extra", "x" * 40, "\udcff"])] = rng.choice(_ODD_VALUES)
        else:
            holder[key] = json.loads(json.dumps(rng.choice(_ODD_VALUES)))
    return document


_ODD_STRINGS = [
    "", "x", "-1", "0", "9999999999", "1.2.3.4.5", "12.x", "sm_", "sm_x", "compute_", "../..",
    "\udcff", " ", "None", "2.1.0+cu", "a" * 5000, "https://u:p@h/x", "NaN", "1e400",
]  # fmt: skip


def _same_kind(rng: random.Random, value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice([-1, 0, 1, 2**31, 2**63, -(2**63), value * 1000])
    if isinstance(value, float):
        return rng.choice([-1.0, 0.0, 1e308, -1e-308, value * 1000])
    if isinstance(value, str):
        return rng.choice([*_ODD_STRINGS, value[: rng.randrange(len(value) + 1)], value * 3])
    if isinstance(value, list):
        return value[: rng.randrange(len(value) + 1)] + value[: rng.randrange(3)]
    return value


def _pick(rng: random.Random, document: Any) -> tuple[Any, Any]:
    """A random (container, key) inside ``document``, walking down a random path."""
    holder, key = None, None
    node = document
    for _ in range(rng.randint(0, 12)):
        if isinstance(node, dict) and node:
            holder, key = node, rng.choice(list(node))
        elif isinstance(node, list) and node:
            holder, key = node, rng.randrange(len(node))
        else:
            break
        node = holder[key]
    return holder, key


@dataclass
class Result:
    target: str
    inputs: int = 0
    uncaught: int = 0
    refused: int = 0  # ended with an allowed, documented error
    seconds: float = 0.0
    examples: list[str] = field(default_factory=list)


@dataclass
class Target:
    name: str
    seeds: list[bytes]
    run: Callable[[bytes], object]
    allowed: tuple[type[BaseException], ...] = (StackcheckError,)
    json_seeds: bool = False  # structure-level mutation too

    def fuzz(self, count: int, seed: int) -> Result:
        rng = random.Random(f"{self.name}:{seed}")
        result = Result(self.name)
        started = time.monotonic()
        for _ in range(count):
            data = self._input(rng)
            result.inputs += 1
            try:
                self.run(data)
            except self.allowed:
                result.refused += 1
            except Exception as exc:
                result.uncaught += 1
                if len(result.examples) < 5:
                    result.examples.append(f"{type(exc).__name__}: {exc}"[:300])
        result.seconds = time.monotonic() - started
        return result

    def _input(self, rng: random.Random) -> bytes:
        seed = rng.choice(self.seeds)
        if self.json_seeds and rng.random() < 0.7:
            text = json.dumps(mutate_json(rng, json.loads(seed)), ensure_ascii=False)
            seed = text.encode("utf-8", "surrogateescape")
            return seed if rng.random() < 0.7 else mutate_bytes(rng, seed)
        return mutate_bytes(rng, seed)


# -- the targets -----------------------------------------------------------------------------


def snapshot_target(workdir: Path, elves: ElfFactory, matrix: Matrix) -> Target:
    seeds = []
    for name, build in (("p5", scenarios.dlami_p5), ("broken", scenarios.broken_p5)):
        root = Root(workdir / f"snapshot-{name}", elves)
        build(root)
        snapshot = probe_root(str(root.path))
        for gpu in snapshot.gpus.devices:  # as NVML gives them on a live host
            gpu.compute_capability, gpu.memory_mib = "9.0", 81559
        seeds.append(dump_snapshot(snapshot).encode())
    text, json_format = get_format("text", colour=False), get_format("json")

    def run(data: bytes) -> None:
        snapshot = load_snapshot(data.decode("utf-8", "surrogateescape"), "fuzz")
        report = redact(check(snapshot, matrix))
        text.render(report)
        json_format.render(report)

    return Target("snapshot", seeds, run, json_seeds=True)


def config_target(workdir: Path) -> Target:
    path = workdir / "fuzz.stackcheck.toml"
    seeds = [
        b'ignore = ["SC101", "sc202"]\nfail-on = "warning"\nmatrix-dirs = ["m"]\n'
        b'[severity]\nSC101 = "info"\n',
        b'fail-on = "never"\n',
        b'[tool.stackcheck]\nignore = []\n[tool.stackcheck.severity]\nSC401 = "error"\n',
    ]
    known = {rule.id for rule in RULES}

    def run(data: bytes) -> None:
        target = path.with_name("pyproject.toml") if data.startswith(b"[tool") else path
        target.write_bytes(_toml_odd(data))
        load_config(target, known)

    return Target("config", seeds, run)


def _toml_odd(data: bytes) -> bytes:
    """Some inputs get a value of another type or a deep nesting in place of a string."""
    digest = sum(data[:64]) % 5
    replacements = {0: b'["a", 1]', 1: b"{a = {b = 1}}", 2: b"[" * 400 + b"]" * 400, 3: b"1"}
    return data.replace(b'"warning"', replacements[digest]) if digest in replacements else data


def _memory_view(files: dict[str, bytes]) -> ImageView:
    index = LayerIndex()
    for path, content in files.items():
        index.entries.append((path, "file", len(content), None))
        index.contents[path] = content
    tree = MergedTree()
    tree.apply(index, 0)
    return ImageView(tree, "fuzz", ["layer"])


def ldso_target() -> Target:
    seeds = [
        b"include /etc/ld.so.conf.d/*.conf\n",
        b"include /etc/ld.so.conf\ninclude /etc/ld.so.conf\n/usr/lib\n",
        b"# comment\n/usr/local/lib\ninclude ld.so.conf.d/*.conf\ninclude /etc/*\n",
    ]

    def run(data: bytes) -> None:
        half = len(data) // 2
        view = _memory_view(
            {
                "/etc/ld.so.conf": data,
                "/etc/ld.so.conf.d/a.conf": data[half:] + b"\ninclude /etc/ld.so.conf\n",
                "/etc/ld.so.conf.d/b.conf": b"include /etc/ld.so.conf.d/*.conf\n" + data[:half],
            }
        )
        env = {"LD_LIBRARY_PATH": data.decode("utf-8", "replace").replace("\n", ":")}
        loader_path(view, env, "env").system_dirs()

    return Target("ld.so.conf", seeds, run, allowed=())


_NCCL = Search(re.compile(rb"NCCL version (\d+\.\d+\.\d+)"), (b"NCCL version",))


def elf_target(elves: ElfFactory, workdir: Path) -> Target:
    built = [
        elves.build(workdir / "a.so", soname="libnccl.so.2", strings=["NCCL version 2.21.5"]),
        elves.build(
            workdir / "b.so", soname="libx.so", needed=["libc.so.6"], runpath="$ORIGIN/../lib"
        ),
    ]
    seeds = [p.read_bytes() for p in built]

    def run(data: bytes) -> None:
        def read_at(offset: int, size: int) -> bytes:
            return data[offset : offset + size] if offset >= 0 and size >= 0 else b""

        for reader in (read_at, _collected(data)):
            with contextlib.suppress(elf.ElfError):
                elf.read_dynamic(reader)
            elf.search_section(reader, len(data), ".rodata", _NCCL.pattern)

    return Target("elf", seeds, run, allowed=(elf.ElfError,))


def _collected(data: bytes) -> Callable[[int, int], bytes]:
    """The image path: the one-pass collector over the bytes, then its sparse file."""
    collector = BinaryCollector(len(data), True, (_NCCL,))
    for at in range(0, len(data), 4096):
        collector.feed(data[at : at + 4096])
    return SparseFile(collector.finish()).read_at


def tar_target(workdir: Path) -> Target:
    images = ImageBuilder(workdir / "tar-seeds")
    long_name = "usr/lib/" + "x" * 150 + "/libnccl.so.2"
    extra = [
        member("usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5", b"\x7fELF" + bytes(60)),
        member("usr/lib/libnccl.so.2", kind=tarfile.SYMTYPE, link="libnccl.so.2.21.5"),
        member("etc/os-release", b'NAME="Ubuntu"\n'),
        member("usr/hard", kind=tarfile.LNKTYPE, link="etc/os-release"),
        member(long_name, b"x"),
        member("opt/.wh..wh..opq"),
        member("opt/.wh.gone"),
    ]
    plain = images.layer(extra=extra).path.read_bytes()
    gnu = io.BytesIO()
    with tarfile.open(fileobj=gnu, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for info, content in extra:
            tar.addfile(info, io.BytesIO(content) if content is not None else None)
    seeds = [plain, gnu.getvalue(), gzip.compress(plain, mtime=0)]
    needs = CompiledNeeds(NEEDS)

    def run(data: bytes) -> None:
        index = scan_layer(LayerStream(io.BytesIO(data), "fuzz"), needs)
        MergedTree().apply(index, 0)

    return Target("tar", seeds, run)


class _Source(ImageSource):
    transport = "docker-archive"

    def load(self, analyzer: Any) -> Any:  # not used: only its reference and transport are
        raise NotImplementedError


def image_json_target(workdir: Path) -> Target:
    images = ImageBuilder(workdir / "json-seeds")
    layer = images.layer(extra=[member("etc/os-release", b'NAME="x"\n')])
    spec = ImageSpec([layer], env={"CUDA_VERSION": "12.4.1", "PATH": "/usr/bin"})
    archive = images.docker_archive(spec, style="oci")
    with tarfile.open(archive) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]
    layout = images.oci_layout(spec, "none")
    blobs = {f"blobs/sha256/{p.name}": p.read_bytes() for p in (layout / "blobs/sha256").iterdir()}
    oci = {**blobs, "index.json": (layout / "index.json").read_bytes()}
    documents = [(name, data) for name, data in {**members, **oci}.items() if data[:1] in b"[{"]
    seeds = [json.dumps([name, json.loads(data)]).encode() for name, data in documents]

    def run(data: bytes) -> None:
        try:
            pair = json.loads(data)
        except (ValueError, RecursionError):
            pair = None
        if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str):
            name, document = pair  # a document the structure mutator changed
        else:
            name, document = "manifest.json", None  # bytes mutated past JSON: as they are
        encoded = json.dumps(document).encode() if document is not None else data
        for store_files, read in (
            (members, lambda s: docker_archive_manifest(s, None)),
            (oci, lambda s: oci_layout_manifest(s, None, "linux/amd64")),
        ):
            store = KeptBlobs("fuzz")
            store.data = {**store_files, name: encoded}
            manifest = read(store)
            image_env(manifest.config)
            image_info(_Source("fuzz"), manifest)

    return Target("image-json", seeds, run, json_seeds=True)


# Recorded hardware outputs (topo -m, lspci -vv, fi_info -v, nvidia-smi -q...): seeds that reach
# the hardware readers, which the issue corpus seldom holds.
HARDWARE_SAMPLES = Path(__file__).parent.parent / "data" / "hardware"


def _report_texts() -> list[bytes]:
    samples = [p.read_bytes() for p in sorted(HARDWARE_SAMPLES.glob("*.txt"))]
    return [report.body.encode() for report in REPORTS] + samples


def triage_targets() -> list[Target]:
    texts = _report_texts()
    targets = []
    for fmt in (*FORMATS, PROSE):

        def run(data: bytes, fmt: Any = fmt) -> None:
            lines = split_lines(data.decode("utf-8", "replace"))
            if lines:  # the segmenter never makes an empty segment
                fmt.parse(lines)

        targets.append(Target(f"triage:{fmt.name}", texts, run, allowed=()))

    def whole(data: bytes) -> None:
        read_report(data.decode("utf-8", "replace"), "fuzz")

    targets.append(Target("triage", texts, whole))
    return targets


def all_targets(workdir: Path, elves: ElfFactory, matrix: Matrix) -> list[Target]:
    workdir.mkdir(parents=True, exist_ok=True)
    return [
        snapshot_target(workdir, elves, matrix),
        config_target(workdir),
        ldso_target(),
        elf_target(elves, workdir),
        tar_target(workdir),
        image_json_target(workdir),
        *triage_targets(),
    ]
