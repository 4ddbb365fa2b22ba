"""NVIDIA/nccl tags: the ncclNet plugin API versions each release loads.

NCCL looks a plugin up by its exported ``ncclNetPlugin_vN`` symbol; the names it tries are string
literals in its sources. The newest is ``net_api``, the oldest ``net_api_min``.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from stackcheck.matrix.harvest import git
from stackcheck.matrix.harvest.rows import Harvest, Row

_TAG = re.compile(r"^v(\d+\.\d+\.\d+)-(\d+)$")
_SYMBOL = re.compile(r'"ncclNetPlugin_v(\d+)"')


def release_tags(names: list[str]) -> dict[str, str]:
    """Version -> the tag of its newest build (v2.21.5-1, -2 ... keep the highest)."""
    best: dict[str, tuple[int, str]] = {}
    for name in names:
        match = _TAG.match(name)
        if match and int(match.group(2)) >= best.get(match.group(1), (-1, ""))[0]:
            best[match.group(1)] = (int(match.group(2)), name)
    return {version: tag for version, (_, tag) in best.items()}


def harvest(repo: Path, day: date, versions: list[str] | None = None) -> Harvest:
    rows: list[Row] = []
    for version, tag in sorted(release_tags(git.tags(repo)).items()):
        if versions and version not in versions:
            continue
        found = {
            int(m)
            for line in git.grep(repo, tag, '"ncclNetPlugin_v[0-9]+"', "src")
            for m in _SYMBOL.findall(line)
        }
        if not found:
            continue
        rows.append(
            {
                "version": version,
                "net_api": max(found),
                "net_api_min": min(found),
                "source": f"NVIDIA/nccl@{git.commit(repo, tag)}:src",
                "checked": day,
            }
        )
    return Harvest("nccl", rows)
