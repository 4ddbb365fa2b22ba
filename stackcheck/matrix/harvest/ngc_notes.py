"""An NVIDIA framework container release-notes page ("PyTorch Release 25.12", or a sibling
framework's notes for the same month): the PyTorch build, CUDA, cuDNN, NCCL and Python it lists.
The "Driver Requirements" branch is not harvested: the matrix takes the driver floor from the CUDA
release (cuda.toml), which the notes' branch can undercut through minor-version compatibility."""

from __future__ import annotations

from datetime import date

from stackcheck.matrix.harvest.rows import Harvest, Row, version_in


def harvest(text: str, source: str, day: date, tag: str | None = None) -> Harvest:
    release = version_in(text, r"Release (\d\d\.\d\d)")
    row: Row = {
        "tag": tag or f"{release}-py3",
        "repository": "nvcr.io/nvidia/pytorch",
        "torch": version_in(text, r"PyTorch (\d+\.\d+\.\d+a0\+\w+)"),
        "cuda": version_in(text, r"NVIDIA CUDA(?:®)? (\d+\.\d+\.\d+)"),
        "cudnn": version_in(text, r"cuDNN (\d+\.\d+\.\d+(?:\.\d+)?)"),
        "nccl": version_in(text, r"NCCL (\d+\.\d+\.\d+)"),
        "python": version_in(text, r"including Python (\d+\.\d+)"),
        "source": source,
        "checked": day,
    }
    return Harvest("ngc", [{k: v for k, v in row.items() if v is not None}])
