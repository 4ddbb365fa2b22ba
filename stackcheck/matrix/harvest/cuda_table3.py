"""NVIDIA's CUDA release notes, "CUDA Toolkit and Corresponding Driver Versions" (Table 3): the
Linux x86_64 driver each toolkit release needs. Rows read like ``CUDA 12.4 Update 1 | >=550.54.15 |
>=551.78`` or ``CUDA 11.4.0 GA | >=470.42.01 | >=471.11``."""

from __future__ import annotations

import re
from datetime import date

from stackcheck.matrix.harvest.rows import Harvest, Row

URL = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"
_ROW = re.compile(
    r"CUDA (\d+\.\d+)(?:\.(\d+))?\s*(?:(GA)|Update (\d+))?\s*\|\s*>=\s*(\d+\.\d+(?:\.\d+)?)"
)


def harvest(text: str, day: date, source: str = URL) -> Harvest:
    rows: list[Row] = []
    for minor, patch, _ga, update, driver in _ROW.findall(text):
        version = f"{minor}.{patch or update or 0}"
        rows.append({"version": version, "min_driver": driver, "source": source, "checked": day})
    return Harvest("cuda_release", rows)
