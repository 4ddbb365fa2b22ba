"""Kubernetes pod and job specs, and ``kubectl`` JSON of a container's resources.

A container's ``command:`` replaces the image's ENTRYPOINT (``args:`` only its CMD); resource
limits say whether it gets GPUs (``nvidia.com/gpu``) and EFA devices (``vpc.amazonaws.com/efa``);
a ``/dev/shm`` mount lifts the 64 MB default.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, RunSpecFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.runspec import add_env, count_ids, visible_limit
from stackcheck.ingest.lines import Line
from stackcheck.parsers.units import size_bytes
from stackcheck.parsers.yamlish import flow_list, strip_quotes, walk
from stackcheck.snapshot.model import RunSpec

GPU_RESOURCE = "nvidia.com/gpu"
EFA_RESOURCE = "vpc.amazonaws.com/efa"
_RESOURCES_JSON = re.compile(
    r"\{[^{}]{0,2000}\"(?:nvidia\.com/gpu|vpc\.amazonaws\.com/efa)\"[^{}]{0,2000}\}"
)


# The device plugin's other GPU resources: a MIG instance (`nvidia.com/mig-1g.10gb`, the mixed
# strategy) and a renamed shared GPU (`nvidia.com/gpu.shared`, time-slicing or MPS).
_GPU_RESOURCES = re.compile(
    r"^nvidia\.com/(?:gpu|mig-\d{1,2}g\.\d{1,3}gb(?:\+[\w.]{1,20})?|gpu\.[\w-]{1,30})$"
)


def _resources(spec: RunSpec, resources: dict[str, str]) -> None:
    name = (
        GPU_RESOURCE
        if GPU_RESOURCE in resources
        else next((k for k in resources if _GPU_RESOURCES.match(k)), None)
    )
    if name is not None:
        gpus = resources[name]
        spec.gpus, spec.gpu_count = f"{name}: {gpus}", count_ids(str(gpus))
    efa = resources.get(EFA_RESOURCE)
    count = int(efa) if efa is not None and str(efa).isdigit() else None
    spec.efa_requested = count if count is not None else (spec.efa_requested or 0)


class Kubernetes(Format):
    name = "kubernetes"
    title = "Kubernetes pod/container spec"
    anchor = re.compile(
        r"^\s*apiVersion\s*:|^\s*kind\s*:\s*(?:Pod|Job|Deployment|StatefulSet|DaemonSet|PyTorchJob|"
        r"MPIJob|RayCluster|JobSet|CronJob|ReplicaSet|HyperPodPyTorchJob)\b|^\s*containers\s*:\s*$|"
        + _RESOURCES_JSON.pattern
    )
    blank_ok = True

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return bool(
            line.text.startswith((" ", "-")) or re.match(r"^[a-zA-Z]\w{0,40}\s*:", line.text)
        )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        for line in lines:
            found = _RESOURCES_JSON.search(line.text)
            if found is not None:
                return self._json(line, found.group(0))
        return self._yaml(lines)

    @staticmethod
    def _json(line: Line, text: str) -> list[Fact]:
        try:
            data = json.loads(text)
        except ValueError:
            return []
        if not isinstance(data, dict):
            return []
        spec = RunSpec(kind="kubernetes")
        _resources(spec, {str(k): str(v) for k, v in data.items()})
        return [RunSpecFact(line, spec, [line])]

    @staticmethod
    def _yaml(lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        containers: list[tuple[RunSpec, list[Line]]] = []
        resources: dict[str, str] = {}
        env_name: str | None = None
        runtime_class: str | None = None  # the pod's RuntimeClass: its containers' runtime
        for entry in walk([line.text for line in lines]):
            if entry.key == "runtimeClassName" and "containers" not in entry.path:
                runtime_class = strip_quotes(entry.value or "") or None
            if "containers" not in entry.path:
                continue
            line = lines[entry.index]
            where = entry.path[-1]
            if where == "containers" and entry.item:
                if containers and resources:
                    _resources(containers[-1][0], resources)
                containers.append((RunSpec(kind="kubernetes"), []))
                resources = {}
            if not containers:
                continue
            spec, used = containers[-1]
            used.append(line)
            key, value = entry.key, strip_quotes(entry.value or "")
            if where == "containers" and key == "name":
                spec.name = value
            elif where == "containers" and key == "image":
                spec.image = value
            elif where == "containers" and key == "command" and value:
                spec.entrypoint = " ".join(flow_list(value))
            elif where == "command" and entry.item:
                spec.entrypoint = f"{spec.entrypoint or ''} {value}".strip()
            elif where == "containers" and key == "args" and value:
                spec.command = " ".join(flow_list(value))
            elif where == "args" and entry.item:
                spec.command = f"{spec.command or ''} {value}".strip()
            elif where == "env" and key == "name":
                env_name = value
            elif where == "env" and key == "value" and env_name:
                add_env(spec, line, env_name, value, facts)
                env_name = None
            elif where in ("limits", "requests") and key:
                resources[key] = value
            elif where == "volumeMounts" and key == "mountPath" and value:
                spec.volumes.append(value)
            elif where == "emptyDir" and key == "sizeLimit":
                spec.shm_bytes = size_bytes(value)
            elif where == "securityContext" and key == "privileged":
                spec.privileged = value.lower() == "true"
        if containers and resources:
            _resources(containers[-1][0], resources)
        for spec, used in containers:
            spec.runtime = spec.runtime or runtime_class
            visible_limit(spec)
            facts.insert(0, RunSpecFact(used[0], spec, used))
        return facts
