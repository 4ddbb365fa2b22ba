"""Shared reading of container run specs: GPU requests, sizes, limits, environment entries."""

from __future__ import annotations

import re

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.env_dump import env_facts
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import RunSpec

_DEVICE_IDS = re.compile(r"device=([\w,-]{1,200})")
NGC_IMAGE = re.compile(r"^(?:[\w.-]{1,100}/)?nvcr\.io/nvidia/|^nvcr\.io/nvidia/")


def count_ids(value: str) -> int | None:
    """GPUs named by a comma list (``0,1``, ``device=0,1``); None for ``all`` or nothing."""
    value = value.strip().strip("'\"")
    found = _DEVICE_IDS.search(value)
    ids = found.group(1) if found else value
    if ids.lower() in ("all", "", "none", "void"):
        return None if ids.lower() == "all" or not ids else 0
    if ids.isdigit() and not found:
        return int(ids)  # --gpus 2 means two GPUs
    return len([i for i in ids.split(",") if i.strip()])


def add_named_gpu(spec: RunSpec, named: str, sep: str) -> None:
    """One more GPU named by itself (a CDI device ``nvidia.com/gpu=0``, an item of a device list):
    the count grows by one, unless this item or an earlier one names them all."""
    items = [*(spec.gpus.split(sep) if spec.gpus else []), named]
    every = any(item == "all" or item.endswith("=all") for item in items)
    spec.gpus = sep.join(items)
    spec.gpu_count = None if every else (spec.gpu_count or 0) + 1


def visible_limit(spec: RunSpec) -> None:
    """``CUDA_VISIBLE_DEVICES`` / ``NVIDIA_VISIBLE_DEVICES`` in the spec narrow what it exposes."""
    for name in ("NVIDIA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
        value = spec.env.get(name)
        if value is None:
            continue
        if (
            name == "NVIDIA_VISIBLE_DEVICES"
            and spec.gpus is None
            and value.lower()
            not in (
                "none",
                "void",
                "",
            )
        ):
            spec.gpus = f"NVIDIA_VISIBLE_DEVICES={value}"
        ids = value.split(",") if value and value[0].isdigit() else None
        if ids is not None:
            count = len([i for i in ids if i.strip()])
            spec.gpu_count = count if spec.gpu_count is None else min(spec.gpu_count, count)


def add_env(spec: RunSpec, line: Line, name: str, value: str, facts: list[Fact]) -> None:
    spec.env[name] = value
    facts.extend(env_facts(line, name, value))
