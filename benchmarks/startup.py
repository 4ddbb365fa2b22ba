"""Start-up costs, as a user pays them: fresh processes, median of several runs, the commands
interleaved so a busy machine slows each alike. Each is reported as wall time and as CPU time
(user + system of the process and its children): start-up is single-threaded and CPU-bound, so
on a machine shared with other work the CPU time is the steadier figure. stackcheck's bytecode
is compiled first, as an installed wheel's is (--source-only: not).

- `python -c pass`: the interpreter alone, the floor;
- `stackcheck probe --json --no-network` on this host;
- a cached `stackcheck scan` of a small docker-archive (made once under .cache/bench-startup;
  the first scan fills the cache: layer indexes and the validated matrix), where nothing is
  read but the cache: all start-up;
- with --collect-env, `python -m torch.utils.collect_env` and the probe's ratio to it (goal
  <= 0.1): run by --collect-env-python PY (a Python with torch), else by a virtualenv with
  PyTorch's CPU wheel made under .cache/bench-venv the first time.

    python benchmarks/startup.py --runs 9 [--collect-env [--collect-env-python PY]]
"""

from __future__ import annotations

import hashlib
import io
import json
import resource
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from _common import (  # benchmarks/ is the script's folder
    add_bytecode_argument,
    benchmark_parser,
    compile_bytecode,
    print_result,
)

PROJECT = Path(__file__).resolve().parent.parent
WORK = PROJECT / ".cache" / "bench-startup"
BENCH_VENV = PROJECT / ".cache" / "bench-venv"
TORCH = "torch==2.13.0"


def _member(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def small_archive() -> Path:
    """A docker-archive of one small layer (a CUDA runtime and an NCCL library by name)."""
    archive = WORK / "small.docker.tar"
    if archive.exists():
        return archive
    WORK.mkdir(parents=True, exist_ok=True)
    layer = io.BytesIO()
    with tarfile.open(fileobj=layer, mode="w") as tar:
        for name in ("usr/lib/x86_64-linux-gnu/libnccl.so.2.27.3", "usr/lib/libcudart.so.12.9.1"):
            _member(tar, name, b"\x7fELF")
    diff_id = hashlib.sha256(layer.getvalue()).hexdigest()
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Env": ["CUDA_VERSION=12.9.1"]},
            "rootfs": {"type": "layers", "diff_ids": [f"sha256:{diff_id}"]},
        }
    ).encode()
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    manifest = [{"Config": config_name, "RepoTags": ["bench:1"], "Layers": [f"{diff_id}.tar"]}]
    with tarfile.open(archive, "w") as tar:
        _member(tar, config_name, config)
        _member(tar, f"{diff_id}.tar", layer.getvalue())
        _member(tar, "manifest.json", json.dumps(manifest).encode())
    return archive


def collect_env_python() -> Path:
    """A virtualenv's Python with PyTorch's CPU wheel, made the first time."""
    python = BENCH_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(BENCH_VENV)], check=True)
        index = ["--index-url", "https://download.pytorch.org/whl/cpu"]
        subprocess.run([str(python), "-m", "pip", "install", "-q", *index, TORCH], check=True)
    return python


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = benchmark_parser(__doc__, runs=9)
    parser.add_argument(
        "--collect-env", action="store_true", help="time PyTorch's collect_env too, and the ratio"
    )
    parser.add_argument(
        "--collect-env-python", type=Path, help="a Python that has torch (implies --collect-env)"
    )
    add_bytecode_argument(parser)
    args = parser.parse_args()
    bytecode = compile_bytecode(args)

    archive = small_archive()
    cache = WORK / "cache"
    stackcheck = [sys.executable, "-m", "stackcheck"]
    scan = [*stackcheck, "scan", f"docker-archive:{archive}", "--cache-dir", str(cache)]
    subprocess.run(scan, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    commands = {
        "python_c_pass": [sys.executable, "-c", "pass"],
        "probe_json": [*stackcheck, "probe", "--json", "--no-network"],
        "cached_rescan": scan,
    }
    compare = bool(args.collect_env or args.collect_env_python)
    if compare:
        python = args.collect_env_python or collect_env_python()
        commands["collect_env"] = [str(python), "-m", "torch.utils.collect_env"]
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            before = _children_cpu()
            started = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times[name].append(time.perf_counter() - started)
            cpu[name].append(_children_cpu() - before)
    result: dict[str, object] = {"runs": args.runs, "bytecode": bytecode}
    for name in commands:
        result[f"{name}_wall_median_s"] = round(statistics.median(times[name]), 3)
        result[f"{name}_cpu_median_s"] = round(statistics.median(cpu[name]), 3)
    if compare:
        for kind, values in (("wall", times), ("cpu", cpu)):
            ratio = statistics.median(values["probe_json"]) / statistics.median(
                values["collect_env"]
            )
            result[f"probe_to_collect_env_{kind}"] = round(ratio, 3)
    result["goals"] = "probe <= 0.1x collect_env; cached rescan <= 0.15 s"
    print_result(result, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
