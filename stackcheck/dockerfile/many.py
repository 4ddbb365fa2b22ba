"""One report for a Dockerfile, or for every Dockerfile under a directory."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from stackcheck.check.engine import check
from stackcheck.check.model import Report
from stackcheck.dockerfile.build import BuildOptions
from stackcheck.dockerfile.lint import lint_dockerfile, parse, read_dockerfile
from stackcheck.errors import StackcheckError
from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.models import Matrix
from stackcheck.parsers.dockerfile import Dockerfile, DockerfileSyntaxError
from stackcheck.snapshot.model import ProbeNote, Snapshot, SnapshotSource

# Names Dockerfiles go by: Dockerfile, Dockerfile.gpu, train.Dockerfile, 0.x.dockerfile.
_NAME = re.compile(r"^(?:Dockerfile(?:\..+)?|.+\.[Dd]ockerfile|Containerfile(?:\..+)?)$")
_SKIP_DIRS = frozenset([".git", "node_modules", ".venv", "venv", "__pycache__", ".tox"])
MAX_FILES = 2000
MAX_DEPTH = 16

Ignores = dict[tuple[str, int], frozenset[str]]


def find_dockerfiles(top: str) -> list[str]:
    """Dockerfiles under ``top``, sorted, the walk bounded in depth and count."""
    found: list[str] = []
    base_depth = top.rstrip(os.sep).count(os.sep)
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        if root.count(os.sep) - base_depth >= MAX_DEPTH:
            dirs[:] = []
        found.extend(os.path.join(root, f) for f in sorted(files) if _NAME.match(f))
        if len(found) > MAX_FILES:
            raise StackcheckError(f"{top}: more than {MAX_FILES} Dockerfiles; name fewer")
    return sorted(found)


def _has_stage(dockerfile: Dockerfile, target: str) -> bool:
    """A stage named ``target``, matched as ``--target`` is (case-insensitive). A malformed FROM
    has none: the lint then says what is wrong with it."""
    try:
        return any(
            name is not None and name.lower() == target.lower()
            for _, name, _ in dockerfile.base_images()
        )
    except DockerfileSyntaxError:
        return False


def lint_paths(
    path: str, matrix: Matrix, index: MatrixIndex, options: BuildOptions | None = None
) -> tuple[Report, Ignores]:
    """One file's report, or one report of every Dockerfile under a directory (``--target``
    applies to the files that have such a stage)."""
    options = options or BuildOptions()
    if not Path(path).is_dir():
        linted = lint_dockerfile(read_dockerfile(path), path, index, options)
        return check(linted.snapshot, matrix), linted.ignores
    files = find_dockerfiles(path)
    if not files:
        raise StackcheckError(f"{path}: no Dockerfile under it")
    combined = Snapshot(source=SnapshotSource(kind="dockerfile", target=path), partial=True)
    findings = []
    ignores: Ignores = {}
    report: Report | None = None
    for file in files:
        text = read_dockerfile(file)
        dockerfile = parse(text, file)
        target = options.target
        own = (
            options
            if target is None or _has_stage(dockerfile, target)
            else replace(options, target=None)
        )
        linted = lint_dockerfile(text, file, index, own, dockerfile)
        report = check(linted.snapshot, matrix)
        findings.extend(report.findings)
        ignores.update(linted.ignores)
        read = sorted(
            {
                f"{n.display_name} {i.version}"
                for n, c in linted.snapshot.components.items()
                for i in c.installations
                if i.version
            }
        )
        combined.notes.append(
            ProbeNote(probe="dockerfile", message=f"{file}: " + (", ".join(read) or "no pins read"))
        )
        combined.notes.extend(
            ProbeNote(probe="dockerfile", message=f"{file}: {n.message}")
            for n in linted.snapshot.notes
        )
    assert report is not None
    return (
        report.model_copy(
            update={"snapshot": combined, "findings": findings, "recommendations": []}
        ),
        ignores,
    )
