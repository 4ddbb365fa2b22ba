"""The command line of ``scripts/harvest/<source>.py``: harvest one source, print TOML rows, or with
``--check`` list every difference from the bundled matrix (exit 1 when there is one)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path

from stackcheck import clock
from stackcheck.errors import StackcheckError
from stackcheck.matrix import load_matrix
from stackcheck.matrix.harvest import (
    cuda_table3,
    dlc,
    efa_changelog,
    nccl,
    ngc_notes,
    ofi_nccl,
    pytorch_builds,
    pytorch_wheel,
)
from stackcheck.matrix.harvest.rows import Harvest, check, to_toml

Runner = Callable[[argparse.Namespace, date], Harvest]


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StackcheckError(f"cannot read {path}: {exc}") from None


SOURCES: dict[str, tuple[str, Runner]] = {
    "efa_changelog": (
        "the EFA changelog page saved as markdown",
        lambda a, d: efa_changelog.harvest(_text(a.path), d, a.source or efa_changelog.URL),
    ),
    "ofi_nccl": (
        "a checkout of aws/aws-ofi-nccl (tags and RELEASENOTES.md)",
        lambda a, d: ofi_nccl.harvest(a.path, d, a.versions),
    ),
    "nccl": (
        "a checkout of NVIDIA/nccl (tags and sources)",
        lambda a, d: nccl.harvest(a.path, d, a.versions),
    ),
    "pytorch_builds": (
        "build_cuda.sh at a release branch (--release, --source repo@commit:path)",
        lambda a, d: pytorch_builds.harvest(_text(a.path), a.release, a.source, d, a.versions),
    ),
    "pytorch_wheel": (
        "a PyTorch wheel (libtorch_python.so's arch string, METADATA's CUDA/cuDNN/NCCL pins)",
        lambda a, d: pytorch_wheel.harvest(a.path, d, a.source),
    ),
    "dlc": (
        "a DLC Dockerfile (--tag from its buildspec, --source repo@commit:path)",
        lambda a, d: dlc.harvest(_text(a.path), a.tag, a.source, d),
    ),
    "ngc_notes": (
        "an NVIDIA container release-notes page saved as text (--source its URL)",
        lambda a, d: ngc_notes.harvest(_text(a.path), a.source, d, a.tag),
    ),
    "cuda_table3": (
        "NVIDIA's CUDA release notes saved as text (Table 3)",
        lambda a, d: cuda_table3.harvest(_text(a.path), d, a.source or cuda_table3.URL),
    ),
}
_NEEDS = {
    "pytorch_builds": ("release", "source"),
    "dlc": ("tag", "source"),
    "ngc_notes": ("source",),
}


def main(name: str, argv: Sequence[str] | None = None) -> int:
    about, run = SOURCES[name]
    parser = argparse.ArgumentParser(prog=f"harvest {name}", description=f"Harvest {about}.")
    parser.add_argument("path", type=Path, help="the checkout or saved copy")
    parser.add_argument("--check", action="store_true", help="list differences from the matrix")
    parser.add_argument("--day", type=date.fromisoformat, help="the day read (default: today)")
    parser.add_argument("--source", help="repo@commit:path or URL to record as the source")
    parser.add_argument("--release", help="the PyTorch minor line the script builds (2.8)")
    parser.add_argument("--tag", help="the image tag the file builds")
    parser.add_argument(
        "--versions", nargs="*", help="only these releases (git sources) or CUDA variants (builds)"
    )
    args = parser.parse_args(argv)
    missing = [f"--{n}" for n in _NEEDS.get(name, ()) if getattr(args, n) is None]
    if missing:
        parser.error(f"{name} needs {', '.join(missing)}")
    try:
        harvest = run(args, args.day or clock.today())
        if not args.check:
            sys.stdout.write(to_toml(harvest))
            return 0
        differences = check(harvest, load_matrix())
    except StackcheckError as exc:
        sys.stderr.write(f"harvest {name}: {exc}\n")
        return 2
    for line in differences:
        sys.stdout.write(line + "\n")
    sys.stdout.write(f"{len(harvest.rows)} rows harvested, {len(differences)} differences\n")
    return 1 if differences else 0
