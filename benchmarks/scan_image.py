"""Time `stackcheck scan` of a >= 2 GB docker-archive against `gzip -dc` of all its layers.

The archive is shaped like an NGC image: a layer of 60,000 small files (half text, half random),
a layer of large incompressible libraries, a layer of 1-5 MB files (half compressible) with an
NCCL library among them (NCCL's real library from the wheel when the test artefacts are there),
and a small top layer. It is generated once under .cache/bench-image (never committed).

Reported, in one run: the decompression baseline (one `gzip -dc` over every layer, to
/dev/null), the first scan (empty cache), the cached rescan (the same request again: the result
cache's hit), a rescan that only the layer cache serves (another --format), and each scan's
peak RSS.

    python benchmarks/scan_image.py [--json]
"""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

from _common import benchmark_parser, print_result  # benchmarks/ is the script's folder

PROJECT = Path(__file__).resolve().parent.parent
WORK = PROJECT / ".cache" / "bench-image"
ARCHIVE = WORK / "ngc-like.docker.tar"
STAMP = "v1"
_WORDS = b"cuda nccl cudnn torch kernel tensor layer stream buffer device driver ".split()


def _random(rng: random.Random, size: int) -> bytes:
    return b"".join(rng.randbytes(min(16 << 20, size - i)) for i in range(0, size, 16 << 20))


def _text(rng: random.Random, size: int) -> bytes:
    words = rng.choices(_WORDS, k=size // 6 + 1)
    return b" ".join(words)[:size]


def _member(name: str, data: bytes) -> tuple[tarfile.TarInfo, io.BytesIO]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o755 if ".so" in name else 0o644
    return info, io.BytesIO(data)


def _small_files(rng: random.Random) -> Iterator[tuple[str, bytes]]:
    for i in range(60_000):
        size = rng.randint(1024, 8192)
        data = _text(rng, size) if i % 2 else rng.randbytes(size)
        yield f"usr/local/lib/python3.12/dist-packages/pkg{i // 500}/mod{i}.py", data


def _large_libraries(rng: random.Random) -> Iterator[tuple[str, bytes]]:
    for i in range(4):
        yield f"usr/local/cuda-12.9/lib64/libcublasLt.so.12.9.{i}", _random(rng, 400 << 20)


def _medium_files(rng: random.Random, nccl: Path | None) -> Iterator[tuple[str, bytes]]:
    for i in range(200):
        size = rng.randint(1 << 20, 5 << 20)
        data = _text(rng, size) if i % 2 else rng.randbytes(size)
        yield f"usr/lib/x86_64-linux-gnu/libmisc{i}.so.1", data
    if nccl is not None:
        yield "usr/lib/x86_64-linux-gnu/libnccl.so.2.19.3", nccl.read_bytes()
    else:
        body = _random(rng, 200 << 20)
        yield "usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5", body + b"NCCL version 2.21.5+cuda12.4\0"


def _top() -> Iterator[tuple[str, bytes]]:
    yield "usr/local/cuda-12.9/version.json", b'{"cuda": {"version": "12.9.1"}}'
    yield "etc/os-release", b'PRETTY_NAME="Ubuntu 24.04.2 LTS"\n'


def _layer(path: Path, members: Iterator[tuple[str, bytes]]) -> str:
    """Write a gzip layer; returns its diff_id (sha256 of the uncompressed tar)."""
    import hashlib

    digest = hashlib.sha256()

    class Hashing(io.RawIOBase):
        def __init__(self, out: io.BufferedWriter | gzip.GzipFile) -> None:
            self.out = out

        def writable(self) -> bool:
            return True

        def write(self, data: bytes) -> int:  # type: ignore[override]
            digest.update(data)
            self.out.write(data)
            return len(data)

    with (
        gzip.open(path, "wb", compresslevel=1) as compressed,
        tarfile.open(fileobj=Hashing(compressed), mode="w|", format=tarfile.PAX_FORMAT) as tar,
    ):
        for name, data in members:
            tar.addfile(*_member(name, data))
    return "sha256:" + digest.hexdigest()


def build(nccl: Path | None) -> list[Path]:
    layers = [WORK / f"layer{i}.tar.gz" for i in range(4)]
    stamp = WORK / "stamp"
    if ARCHIVE.exists() and stamp.exists() and stamp.read_text() == f"{STAMP} {nccl}":
        return layers
    WORK.mkdir(parents=True, exist_ok=True)
    rng = random.Random(3)
    print("generating the benchmark image (once) ...", file=sys.stderr)
    contents = [_small_files(rng), _large_libraries(rng), _medium_files(rng, nccl), _top()]
    diff_ids = [_layer(path, members) for path, members in zip(layers, contents, strict=True)]
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Env": ["CUDA_VERSION=12.9.1", "NCCL_VERSION=2.21.5"]},
            "rootfs": {"type": "layers", "diff_ids": diff_ids},
        }
    ).encode()
    manifest = [{"Config": "config.json", "RepoTags": ["bench:1"], "Layers": []}]
    with tarfile.open(ARCHIVE, "w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(*_member("config.json", config))
        for path, diff_id in zip(layers, diff_ids, strict=True):
            name = f"{diff_id[7:]}.tar"
            tar.add(path, arcname=name)
            manifest[0]["Layers"].append(name)  # type: ignore[attr-defined]
        tar.addfile(*_member("manifest.json", json.dumps(manifest).encode()))
    stamp.write_text(f"{STAMP} {nccl}")
    return layers


def _uncompressed(layer: Path) -> int:
    listing = subprocess.run(["gzip", "-l", str(layer)], capture_output=True, text=True, check=True)
    return int(listing.stdout.split()[-3])


# Peak RSS is read by a small intermediate process: a child forked from this one (which held
# the generated data) would report this process's high-water mark as its own.
_MEASURE = """
import json, os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(child.pid, 0)
error = child.stderr.read().decode() if child.stderr else ""
code = os.waitstatus_to_exitcode(status)
print(json.dumps([time.perf_counter() - started, usage.ru_maxrss, code, error]))
"""


def timed(argv: list[str]) -> tuple[float, int]:
    """(wall seconds, peak RSS in MB) of a command."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv], capture_output=True, text=True, check=True
    )
    elapsed, maxrss_kb, code, error = json.loads(done.stdout)
    if code not in (0, 1):
        raise SystemExit(f"{argv[0]} failed: {error}")
    return float(elapsed), int(maxrss_kb) // 1024


def main() -> int:
    parser = benchmark_parser(__doc__, runs=None)
    args = parser.parse_args()
    artifacts = Path(os.environ.get("STACKCHECK_ARTIFACTS", PROJECT / ".cache" / "artifacts"))
    found = list((artifacts / "realroot").glob("opt/pytorch/lib/python3*/site-packages"))
    nccl = found[0] / "nvidia/nccl/lib/libnccl.so.2" if found else None
    layers = build(nccl if nccl is not None and nccl.exists() else None)
    if shutil.which("gzip") is None:
        raise SystemExit("gzip is needed for the baseline")
    baseline, _ = timed(["gzip", "-dc", *map(str, layers)])
    with tempfile.TemporaryDirectory(dir=WORK) as cache:
        scan = [
            sys.executable, "-m", "stackcheck", "scan", f"docker-archive:{ARCHIVE}",
            "--cache-dir", cache, "--fail-on", "never",
        ]  # fmt: skip
        first, first_rss = timed([*scan, "--format", "json"])
        again, again_rss = timed([*scan, "--format", "json"])  # the result cache's hit
        # Another request (text, not JSON): the result cache misses, the layer cache serves.
        layers_again, layers_rss = timed(scan)
    result = {
        "archive_bytes": ARCHIVE.stat().st_size,
        "uncompressed_bytes": sum(_uncompressed(p) for p in layers),
        "gzip_dc_s": round(baseline, 2),
        "first_scan_s": round(first, 2),
        "first_scan_peak_rss_mb": first_rss,
        "cached_rescan_s": round(again, 2),
        "cached_rescan_peak_rss_mb": again_rss,
        "first_vs_gzip": round(first / baseline, 3),
        "rescan_vs_first": round(again / first, 3),
        "layer_cache_rescan_s": round(layers_again, 2),
        "layer_cache_rescan_peak_rss_mb": layers_rss,
        "layer_cache_rescan_vs_first": round(layers_again / first, 3),
        "cpus": os.cpu_count(),
        "real_nccl": nccl is not None,
    }
    print_result(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
