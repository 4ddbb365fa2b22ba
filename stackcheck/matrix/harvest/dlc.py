"""An AWS Deep Learning Container Dockerfile (aws/deep-learning-containers): the versions its build
arguments pin. The tag comes from the buildspec, so the caller names it. NCCL is left out: the
NCCL torch loads can differ from the build's NCCL_VERSION (see dlc.toml)."""

from __future__ import annotations

from datetime import date

from stackcheck.matrix.harvest.rows import Harvest, Row
from stackcheck.parsers.dockerfile import parse_dockerfile

_ARGS = {
    "PYTORCH_VERSION": "torch",
    "CUDA_VERSION": "cuda",
    "CUDNN_VERSION": "cudnn",
    "EFA_VERSION": "efa",
    "PYTHON_VERSION": "python",
}


def harvest(text: str, tag: str, source: str, day: date) -> Harvest:
    row: Row = {"tag": tag}
    for name, default, _ in parse_dockerfile(text).args():
        field = _ARGS.get(name)
        if field and default and field not in row:
            row[field] = default
    row["source"] = source
    row["checked"] = day
    return Harvest("dlc", [row])
