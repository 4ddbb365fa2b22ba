"""GPU Feature Discovery's node labels, as ``kubectl describe node`` and ``kubectl get node
--show-labels`` print them (NVIDIA/k8s-device-plugin's gpu-feature-discovery, part of the GPU
operator): the driver (``nvidia.com/cuda.driver-version.full=550.54.15``, before 0.15 only
``nvidia.com/cuda.driver.major/minor/rev``), the CUDA that driver supports
(``nvidia.com/cuda.runtime-version.full=12.4``, before ``cuda.runtime.major/minor``: GFD reads
it with cuDriverGetVersion). Its other labels (product, count, compute capability) open the
segment but are not read yet.

Each line may hold several labels (``--show-labels`` joins a node's with commas). A paste may
hold several nodes' labels: a label seen again, or one that sorts before the last (kubectl
sorts them), starts the next node. One driver is
recorded only where every node shows the same one (nodes of a cluster may differ; which node a
report's failure is on, the labels do not say).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

# GFD's own label names (not a pod's `nvidia.com/gpu.shared` resource), with `=` as `describe
# node` and `--show-labels` print them; not `: `, which a pod's nodeSelector (a wish) uses too.
_KEYS = (
    r"cuda\.(?:driver|runtime)[\w.-]{0,40}|"
    r"gpu\.(?:product|count|compute\.\w{1,10}|memory|family|machine|present|replicas|"
    r"sharing-strategy|deploy\.[\w-]{1,40})|mig\.(?:capable|strategy|config(?:\.state)?)"
)
_LABEL = re.compile(rf"(?:^|[\s,{{\"])nvidia\.com/({_KEYS})=([\w.-]{{0,120}})")


def _nodes(lines: Sequence[Line]) -> list[tuple[dict[str, str], Line]]:
    """Each node's labels, and the line that opened it."""
    nodes: list[tuple[dict[str, str], Line]] = []
    for line in lines:
        if "kubectl label" in line.text:
            continue  # labels being set by hand, not read from the node
        for found in _LABEL.finditer(line.text):
            key, value = found.group(1), found.group(2)
            # kubectl prints a node's labels sorted: one that sorts before the last starts the
            # next node, as a label seen again does.
            if not nodes or key in nodes[-1][0] or key < next(reversed(nodes[-1][0])):
                nodes.append(({}, line))
            nodes[-1][0][key] = value
    return nodes


def _driver(labels: dict[str, str]) -> str | None:
    full = labels.get("cuda.driver-version.full")
    if full:
        return full
    parts = [labels.get(f"cuda.driver.{k}") for k in ("major", "minor", "rev")]
    return ".".join(p for p in parts if p) if parts[0] and parts[1] else None


def _cuda(labels: dict[str, str]) -> str | None:
    full = labels.get("cuda.runtime-version.full")
    if full:
        return full
    for prefix in ("cuda.runtime-version", "cuda.runtime"):
        major, minor = labels.get(f"{prefix}.major"), labels.get(f"{prefix}.minor")
        if major and minor:
            return f"{major}.{minor}"
    return None


class GfdLabels(Format):
    name = "gfd_labels"
    title = "GPU Feature Discovery node labels"
    anchor = _LABEL
    blank_ok = True  # `kubectl describe node` pasted double-spaced

    def opens(self, line: Line) -> bool:
        # The fixed text first: most lines of a long log hold none and skip the expression.
        return "nvidia.com/" in line.text and _LABEL.search(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        nodes = _nodes(lines)
        drivers = {(version, _cuda(ls)) for ls, _ in nodes if (version := _driver(ls)) is not None}
        if len(drivers) == 1:
            ((version, cuda),) = drivers
            line = next((x for x in lines if "cuda.driver" in x.text), nodes[0][1])
            facts.append(ComponentFact(line, ComponentName.DRIVER, version=version, cuda=cuda))
        return facts
