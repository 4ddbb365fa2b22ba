"""Snapshots gathered any other way: files and directories of ``stackcheck probe --json`` output.

A Kubernetes DaemonSet or Job, SSM Run Command or pdsh writes one file per node; the node's name
is the file's name without ``.json``. A directory contributes its ``*.json`` files (not its
subdirectories). Given the expected nodes, a node without a file is reported as missing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from stackcheck.errors import StackcheckError
from stackcheck.fleet.sources.base import Answer, NoAnswer, NodeResult, NodeSource
from stackcheck.inputs import check_regular

MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024  # far above any real snapshot; a bound on a stray file


def _files(paths: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files.extend(sorted(p for p in path.glob("*.json") if p.is_file()))
        elif path.exists():
            check_regular(path, "snapshot file")  # a FIFO would block the read
            files.append(path)
        else:
            raise StackcheckError(f"{name}: no such file or directory")
    return files


def _node_names(files: list[Path]) -> list[str]:
    """The file stem, or the path where two files share a stem (two directories, one node)."""
    stems: dict[str, int] = {}
    for path in files:
        stems[path.stem] = stems.get(path.stem, 0) + 1
    return [path.stem if stems[path.stem] == 1 else str(path) for path in files]


class SnapshotFiles(NodeSource):
    def __init__(self, paths: Sequence[str], expected: Sequence[str] | None = None) -> None:
        self.files = _files(paths)
        if not self.files:
            raise StackcheckError(f"no snapshot files (*.json) in {' '.join(paths)}")
        self.paths = list(paths)
        self.expected = list(expected or [])

    @property
    def description(self) -> str:
        return f"{len(self.files)} snapshot files in {', '.join(self.paths)}"

    def results(self) -> Iterator[NodeResult]:
        seen = set()
        for path, node in zip(self.files, _node_names(self.files), strict=True):
            seen.add(node)
            try:
                with path.open("rb") as handle:
                    data = handle.read(MAX_SNAPSHOT_BYTES + 1)
            except OSError as exc:
                yield NoAnswer(node, "failed", f"cannot read {path}: {exc.strerror or exc}")
                continue
            if len(data) > MAX_SNAPSHOT_BYTES:
                yield NoAnswer(node, "garbage", f"{path} is larger than any snapshot")
                continue
            yield Answer(node, data.decode("utf-8", errors="replace"), str(path))
        for node in self.expected:
            if node not in seen:
                yield NoAnswer(node, "missing", "no snapshot file for this node")
