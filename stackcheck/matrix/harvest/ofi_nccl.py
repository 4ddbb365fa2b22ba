"""aws/aws-ofi-nccl tags: NCCL tested and floor, libfabric floor (RELEASENOTES.md at the tag), and
the ncclNet API versions the NVIDIA interface exports (``ncclNet_vN_t ncclNetPlugin_vN = {``)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from stackcheck.matrix.harvest import git
from stackcheck.matrix.harvest.rows import Harvest, Row, version_in

_TAG = re.compile(r"^v(\d+\.\d+\.\d+)(?:-aws)?$")
_EXPORT = re.compile(r"ncclNet_v(\d+)_t\s+ncclNetPlugin_v\1\s*=")


def section(notes: str, version: str) -> str | None:
    """The release's own section of RELEASENOTES.md: from ``# v1.21.1`` to the next ``# v``."""
    match = re.search(rf"^#+ v{re.escape(version)}(?:-aws)?\b.*?(?=^#+ v\d|\Z)", notes, re.M | re.S)
    return match.group(0) if match else None


def read_notes(text: str) -> Row:
    tested = version_in(text, r"(?s)((?:tested with|supports) .*?)(?:while\s+maintaining|\n\n)")
    found: Row = {
        "nccl_tested": re.findall(r"NCCL v?(\d+\.\d+\.\d+)", tested or "") or None,
        "nccl_min": version_in(
            text, r"\(\[?NCCL v(\d+\.\d+\.\d+)(?:-\d)?\]?(?:\([^)]*\))? and later"
        ),
        "libfabric_min": version_in(
            text, r"AWS-specific support requires at least \[?Libfabric v(\d+\.\d+\.\d+)"
        )
        or version_in(text, r"requires (?:at least )?\[?Libfabric v(\d+\.\d+\.\d+)"),
    }
    return {k: v for k, v in found.items() if v is not None}  # a patch release may say nothing


def release_tags(names: list[str]) -> dict[str, str]:
    """Version -> tag; before v1.6.0 a version had a general and an ``-aws`` release, and the AWS
    one is what EFA users run."""
    found: dict[str, str] = {}
    for name in sorted(names):  # "v1.4.0" sorts before "v1.4.0-aws", which then wins
        match = _TAG.match(name)
        if match:
            found[match.group(1)] = name
    return found


def harvest(repo: Path, day: date, versions: list[str] | None = None) -> Harvest:
    rows: list[Row] = []
    for version, name in release_tags(git.tags(repo)).items():
        if versions and version not in versions:
            continue
        notes = section(git.show(repo, name, "RELEASENOTES.md") or "", version)
        if notes is None:
            continue
        lines = git.grep(repo, name, r"ncclNetPlugin_v[0-9]+\s*=", "src", ":(exclude)*neuron*")
        exported = sorted({int(m) for line in lines for m in _EXPORT.findall(line)})
        row: Row = {"version": version, **read_notes(notes)}
        if exported:
            row["net_api"] = exported
        row["source"] = f"aws/aws-ofi-nccl@{git.commit(repo, name)}:RELEASENOTES.md"
        row["checked"] = day
        rows.append(row)
    rows.sort(key=lambda r: [int(p) for p in str(r["version"]).split(".")])
    return Harvest("ofi_nccl", rows)
