"""docker-compose services: ``shm_size``, ``ipc``, ``ulimits.memlock``, ``devices``, the GPU
reservation under ``deploy.resources.reservations.devices`` (or Compose 2.30+'s ``gpus:``),
``environment``, ``command``. A reservation that names neither ``count`` nor ``device_ids``
requests zero GPUs: Docker Compose has passed it to the daemon with a count of 0, so the
container got no GPU although the docs of that day said "all" (docker/docs#20588)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, RunSpecFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.runspec import add_env, add_named_gpu, visible_limit
from stackcheck.ingest.lines import Line
from stackcheck.parsers.units import limit_bytes, size_bytes
from stackcheck.parsers.yamlish import Entry, flow_list, strip_quotes, walk
from stackcheck.snapshot.model import UNCOUNTED_RESERVATION, RunSpec

_UNCOUNTED = ("capabilities [gpu]", "driver: nvidia")


def _service_specs(lines: Sequence[Line]) -> list[tuple[RunSpec, list[Line], list[Fact]]]:
    found: dict[str, tuple[RunSpec, list[Line], list[Fact]]] = {}
    for entry in walk([line.text for line in lines]):
        if entry.path and entry.path[0] == "deploy":
            # A service's `deploy:` block pasted alone (cresset-template/cresset#171): one
            # service, unnamed, from its resources only (a CI job named `deploy:` is no service).
            if entry.path[:2] != ("deploy", "resources"):
                continue
            spec, used, facts = found.setdefault("", (RunSpec(kind="compose"), [], []))
            used.append(lines[entry.index])
            _read(spec, entry.path, entry, lines[entry.index], facts)
            continue
        if not entry.path or entry.path[0] != "services":
            continue
        if len(entry.path) == 1:
            if entry.key:
                found.setdefault(entry.key, (RunSpec(kind="compose", name=entry.key), [], []))
            continue
        spec, used, facts = found.setdefault(
            entry.path[1], (RunSpec(kind="compose", name=entry.path[1]), [], [])
        )
        line = lines[entry.index]
        used.append(line)
        _read(spec, entry.path[2:], entry, line, facts)
    for spec, _, _ in found.values():
        visible_limit(spec)
        if spec.gpus in _UNCOUNTED:
            # A reservation with neither `count` nor `device_ids`: Docker Compose has passed it
            # as a request for zero GPUs, whatever its docs said (docker/docs#20588).
            spec.gpus, spec.gpu_count = f"{spec.gpus}, {UNCOUNTED_RESERVATION}", 0
    return list(found.values())


def _read(spec: RunSpec, sub: tuple[str, ...], entry: Entry, line: Line, facts: list[Fact]) -> None:
    key, value = entry.key, strip_quotes(entry.value or "")
    where = sub[-1] if sub else None
    if not sub and key == "image":
        spec.image = value
    elif not sub and key == "shm_size":
        spec.shm_bytes = size_bytes(value)
    elif not sub and key == "ipc":
        spec.ipc = value
    elif not sub and key == "runtime":
        spec.runtime = value
        if value == "nvidia" and spec.gpus is None:
            spec.gpus = "runtime: nvidia"
    elif not sub and key == "privileged":
        spec.privileged = value.lower() == "true"
    elif not sub and key in ("command", "entrypoint") and value:
        setattr(spec, key, value)
    elif where in ("command", "entrypoint") and entry.key is None and value:
        setattr(spec, where, f"{getattr(spec, where) or ''} {value}".strip())
    elif where == "environment":
        if key is not None:
            add_env(spec, line, key, value, facts)
        elif "=" in value:
            name, _, val = value.partition("=")
            add_env(spec, line, name.strip(), val, facts)
    elif "memlock" in (key, where) and "ulimits" in sub + ((key,) if key else ()):
        if (key == "memlock" and value) or key == "soft":
            spec.memlock_bytes = limit_bytes(value)
    elif key is None and where == "devices" and value.startswith("/dev/"):
        spec.devices.append(value.split(":")[0])
    elif key is None and where in ("devices", "device_ids") and value:
        # A CDI name (`- nvidia.com/gpu=all` under `devices:`, Compose 2.2x+) or an item of a
        # block `device_ids:` list: each names one GPU unless it names them all.
        if where == "devices" and not value.startswith("nvidia.com/gpu="):
            return
        add_named_gpu(spec, value, " ")
    elif key is None and where == "volumes":
        spec.volumes.append(value)
    elif key == "device_ids" and not value:
        spec.gpus, spec.gpu_count = "device_ids", None  # a block list follows
    elif key == "device_ids":
        ids = flow_list(value)
        every = any(i == "all" or i.endswith("=all") for i in ids)
        spec.gpus, spec.gpu_count = f"device_ids {ids}", None if every else len(ids)
    elif key == "count" and "devices" in sub:
        spec.gpus = f"count {value}"
        spec.gpu_count = int(value) if value.isdigit() else spec.gpu_count
    elif not sub and key == "gpus" and value:
        # Compose 2.30+'s short form, as `docker run --gpus`: `gpus: all` or a count.
        spec.gpus = f"gpus: {value}"
        spec.gpu_count = int(value) if value.isdigit() else spec.gpu_count
    elif key in ("capabilities", "driver") and "devices" in sub and "gpu" in value + key:
        spec.gpus = spec.gpus or "capabilities [gpu]"
    elif key == "driver" and value == "nvidia" and "devices" in sub:
        spec.gpus = spec.gpus or "driver: nvidia"


class Compose(Format):
    name = "compose"
    title = "docker-compose service"
    anchor = re.compile(r"^\s*services\s*:\s*$|^deploy\s*:\s*(?:#.{0,200})?$")
    blank_ok = True

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        text = line.text
        return bool(
            text.startswith((" ", "-", "#"))
            or re.match(r"^(?:version|volumes|networks|configs|secrets|x-[\w-]+)\s*:", text)
        )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for spec, used, env in _service_specs(lines):
            facts.append(RunSpecFact(used[0] if used else lines[0], spec, used))
            facts.extend(env)
        return facts
