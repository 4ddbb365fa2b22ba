"""Fleets for the fleet tests and the benchmark: the healthy DLAMI p5 tree and copies of it with
one thing changed each, probed for real, and snapshot files written as `probe --json` writes them.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

from stackcheck.probes import probe_root
from stackcheck.snapshot import Snapshot, SnapshotSource, dump_snapshot
from tests.support import scenarios
from tests.support.elfbuild import ElfFactory
from tests.support.rootfs import Root

SITE = "opt/pytorch/lib/python3.12/site-packages"


def _older_nccl(root: Root) -> None:
    shutil.rmtree(root.path / SITE / "nvidia_nccl_cu13-2.27.7.dist-info")
    root.site(SITE).dist("nvidia-nccl-cu13", "2.21.5")


def _stray_nccl_conf(root: Root) -> None:
    root.write("etc/nccl.conf", "NCCL_P2P_DISABLE=1\n")


def _lost_efa_device(root: Root) -> None:
    (root.path / "sys/class/infiniband/rdmap19s27/device").unlink()
    (root.path / "sys/class/infiniband/rdmap19s27").rmdir()


VARIANTS: dict[str, Callable[[Root], None]] = {
    "older-nccl": _older_nccl,
    "stray-nccl-conf": _stray_nccl_conf,
    "lost-efa-device": _lost_efa_device,
}


def p5_trees(where: Path, elves: ElfFactory) -> dict[str, Path]:
    """``healthy`` (scenarios.dlami_p5), ``broken`` (scenarios.broken_p5: R535 under CUDA 13,
    a stale user-space driver, the plugin off the loader path) and one copy of the healthy tree
    per VARIANTS entry."""
    healthy = Root(where / "healthy", elves)
    scenarios.dlami_p5(healthy)
    trees = {"healthy": healthy.path}
    scenarios.broken_p5(Root(where / "broken", elves))
    trees["broken"] = where / "broken"
    for name, change in VARIANTS.items():
        shutil.copytree(healthy.path, where / name, symlinks=True)
        change(Root(where / name, elves))
        trees[name] = where / name
    return trees


def probe_trees(trees: Mapping[str, Path]) -> dict[str, Snapshot]:
    return {name: probe_root(str(path)) for name, path in trees.items()}


def write_fleet(
    directory: Path, stacks: Mapping[str, Snapshot], nodes: Mapping[str, str]
) -> list[Path]:
    """One NODE.json per node with that node's stack, as each node's own probe would write it:
    its own host name and a time a second apart."""
    directory.mkdir(parents=True, exist_ok=True)
    start = datetime(2026, 12, 2, 9, 0, tzinfo=timezone.utc)
    written = []
    for index, (node, stack) in enumerate(nodes.items()):
        snapshot = replace(
            stacks[stack],
            source=SnapshotSource(kind="host", target=f"ip-10-0-{index // 250}-{index % 250}"),
            taken_at=start + timedelta(seconds=index),
        )
        path = directory / f"{node}.json"
        path.write_text(dump_snapshot(snapshot) + "\n")
        written.append(path)
    return written
