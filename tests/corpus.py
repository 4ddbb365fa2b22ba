"""The triage corpus (tests/data/reports): real texts from public GitHub threads, with the
finding families each should produce. See its README.md for the file format."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from stackcheck.check.engine import check
from stackcheck.check.model import Report, Severity
from stackcheck.ingest import Triage, read_report
from stackcheck.matrix import Matrix, load_matrix

CORPUS = Path(__file__).resolve().parent / "data" / "reports"
FAMILIES = frozenset(
    {
        "driver-cuda",
        "cpu-only-build",
        "gpu-arch",
        "cudnn",
        "nccl-multiple",
        "nccl-net-fallback",
        "efa-devices",
        "libfabric",
        "ofi-nccl",
        "fabric-manager",
        "shm",
        "memlock",
        "gpu-visibility",
        "gdr",
        "env-vars",
        "matrix-unknown",
        "gpu-health",
        "gpu-mode",
        "nccl-version",
        "nvlink",
        "pcie-link",
        "efa-link",
        "numa-affinity",
        "iommu-acs",
        "image-metadata",
    }
)


@dataclass(frozen=True)
class CorpusReport:
    path: Path
    source: str
    expect: frozenset[str]
    undetectable: frozenset[str]
    healthy: bool
    body: str
    split: str = "dev"
    # What triage is known not to get right yet, each a test's token: an expected family, or
    # "healthy" (a loud finding on a healthy report), "recognised" (nothing read), "claimed:F"
    # (an undetectable family found). The test for it must fail; once it passes, drop the mark.
    misses: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        """The file's number ("006", "1012"): what precedes its first hyphen."""
        return self.path.name.split("-", 1)[0]


def _families(text: str) -> frozenset[str]:
    return frozenset(f.strip() for f in text.split(",") if f.strip())


def load(path: Path) -> CorpusReport:
    head, separator, body = path.read_text(encoding="utf-8").partition("\n---\n")
    assert separator, f"{path.name}: no --- line"
    fields: dict[str, str] = {}
    undetectable: set[str] = set()
    misses: set[str] = set()
    for line in head.splitlines():
        key, _, value = line.removeprefix("# ").partition(":")
        if key == "miss":
            token, dash, reason = value.partition("—")
            assert dash and reason.strip(), f"{path.name}: a miss without a reason"
            misses.add(token.strip())
        elif key == "undetectable":
            families, dash, reason = value.partition("—")
            assert dash and reason.strip(), f"{path.name}: undetectable without a reason"
            undetectable |= _families(families)
        else:
            fields[key] = value.strip()
    return CorpusReport(
        path=path,
        source=fields.get("source", ""),
        expect=_families(fields.get("expect", "")),
        undetectable=frozenset(undetectable),
        healthy=fields.get("healthy") == "yes",
        body=body,
        split=fields.get("split", "dev"),
        misses=frozenset(misses),
    )


ALL_REPORTS = [load(p) for p in sorted(CORPUS.glob("[0-9]*.txt"))]
# Held-out reports are read only to measure (benchmarks/triage_accuracy.py), never asserted.
REPORTS = [r for r in ALL_REPORTS if r.split == "dev"]
HELD_OUT = [r for r in ALL_REPORTS if r.split == "heldout"]


def body(key: str) -> str:
    """The body of the corpus file whose name starts with ``key`` ("006")."""
    return next(r.body for r in REPORTS if r.key == key)


@cache
def triaged(key: str) -> tuple[Triage, Report]:
    triage = read_report(body(key), f"{key}.txt")
    return triage, check(triage.snapshot, _matrix())


@cache
def _matrix() -> Matrix:
    return load_matrix()


# A family is named when a warning or an error names it: advice (info) names no problem. The
# corpus tests and benchmarks/triage_accuracy.py count with this one definition.
NAMING = (Severity.WARNING, Severity.ERROR)


def families_found(key: str) -> set[str]:
    return {f.family for f in triaged(key)[1].findings if f.severity in NAMING}


# The corpus README's one edit to pasted text: a directory of this name inside a path is written
# `…`, so that no file of the project names a path of the machines it is developed on.
ELIDED_DIRECTORY = "work"


def names_elided_directory(text: str) -> bool:
    return f"/{ELIDED_DIRECTORY}/" in text


SOURCE_URL = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+$")
