"""The Dockerfile corpus (tests/data/dockerfiles): real Dockerfiles from public repositories, each
with the reading written by hand in corpus.toml, and how well ``lint-dockerfile`` reads them.

A pinned version counts as read when the linted stack holds that component at that version (a
build's local tag, ``+cu124``, aside) with that line among its evidence; ``*`` accepts any
version. Findings count as right when the file's ``dockerfile``-family rule IDs are exactly the
expected ones; files from AWS and NVIDIA must have no ``error``.

    python -m tests.dockerfile_corpus        # accuracy on each split
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.dockerfile.build import BuildOptions
from stackcheck.dockerfile.lint import lint_dockerfile, read_dockerfile
from stackcheck.matrix import Matrix, load_matrix
from stackcheck.matrix.index import MatrixIndex
from stackcheck.snapshot.model import ComponentName

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CORPUS = Path(__file__).resolve().parent / "data" / "dockerfiles"
SHIPPERS = ("aws/", "aws-samples/", "NVIDIA/")


@dataclass(frozen=True)
class Entry:
    id: str
    path: Path
    source: str
    licence: str
    split: str
    target: str | None
    versions: tuple[str, ...] | None  # None: no reading written yet
    findings: tuple[str, ...] | None


@dataclass
class Score:
    versions: int = 0
    versions_read: int = 0
    files: int = 0
    findings_right: int = 0
    errors_on_shipped: int = 0
    misses: list[str] = field(default_factory=list)


def entries() -> list[Entry]:
    data = tomllib.loads((CORPUS / "corpus.toml").read_text(encoding="utf-8"))
    return [
        Entry(
            id=row["id"],
            path=CORPUS / row["file"],
            source=row["source"],
            licence=row["licence"],
            split=row["split"],
            target=row.get("target"),
            versions=tuple(row["versions"]) if "versions" in row else None,
            findings=tuple(row["findings"]) if "findings" in row else None,
        )
        for row in data["dockerfile"]
    ]


@cache
def matrix() -> Matrix:
    return load_matrix()


def _same(read: str | None, expected: str) -> bool:
    if expected == "*":
        return read is not None
    return read is not None and (read == expected or read.split("+")[0] == expected)


def score(selected: list[Entry]) -> Score:
    result = Score()
    index = MatrixIndex(matrix())
    for entry in selected:
        if entry.versions is None or entry.findings is None:
            continue
        path = str(entry.path)
        options = BuildOptions(target=entry.target)
        linted = lint_dockerfile(read_dockerfile(path), path, index, options)
        report = check(linted.snapshot, matrix())
        for expected in entry.versions:
            words, line = expected.rsplit(" @", 1)
            component, version = words.split(" ")
            result.versions += 1
            if any(
                _same(i.version, version) and any(e.line == int(line) for e in i.evidence)
                for i in linted.snapshot.installations(ComponentName(component))
            ):
                result.versions_read += 1
            else:
                result.misses.append(f"{entry.id}: {expected}")
        ids = sorted({f.id for f in report.findings if f.family == "dockerfile"})
        result.files += 1
        if ids == sorted(entry.findings):
            result.findings_right += 1
        else:
            result.misses.append(f"{entry.id}: findings {ids}, expected {sorted(entry.findings)}")
        if entry.source.startswith(SHIPPERS) and any(
            f.severity is Severity.ERROR for f in report.findings
        ):
            result.errors_on_shipped += 1
            result.misses.append(f"{entry.id}: an error on a shipped image")
    return result


def main() -> int:
    for split in ("dev", "heldout"):
        result = score([e for e in entries() if e.split == split])
        print(
            f"{split:8} versions read with their line {result.versions_read}/{result.versions}; "
            f"findings right {result.findings_right}/{result.files}; "
            f"errors on shipped images {result.errors_on_shipped}"
        )
        for miss in result.misses:
            print(f"  miss {miss}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
