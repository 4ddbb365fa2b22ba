"""``docker info``: how the Docker daemon runs containers. ``Runtimes`` lists the OCI runtimes
it knows (``nvidia`` where the NVIDIA Container Toolkit registered its runtime), ``Default
Runtime`` the one ``docker run`` uses without ``--runtime``, and ``Cgroup Driver`` / ``Cgroup
Version`` how it confines devices (running containers that lost their GPU device nodes when
the host reset its device cgroup rules showed NVML's Unknown Error: NVIDIA/nvidia-docker#1618).
Read as one observation of the daemon; the lines it leaves out (``...``) cost nothing."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

# The daemon's own labels, as docker info prints them (one space in, under "Server:").
_READ = ("Server Version", "Runtimes", "Default Runtime", "Cgroup Driver", "Cgroup Version")
_LABELS = (
    *_READ,
    "Storage Driver",
    "Logging Driver",
    "Docker Root Dir",
    "Containerd Version",
    "Init Binary",
)
_FIELD = re.compile(rf"^\s{{0,4}}({'|'.join(_LABELS)}):\s{{1,8}}(\S[^\n]{{0,300}})$")


class DockerInfo(Format):
    name = "docker_info"
    title = "docker info"
    anchor = _FIELD
    # Any other "Label: value" line, an indented one (plugins, registries), or "..." where the
    # reporter cut lines; only inside a segment one of the labels above opened.
    item = re.compile(
        r"^\s{0,4}[A-Z][\w ./()-]{1,40}:(?:\s[^\n]{0,300})?$|^\s{1,12}\S|^\s*\.{3}\s*$"
    )

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return self.opens(line) or self.item.search(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        said: dict[str, tuple[Line, str]] = {}
        for line in lines:
            found = _FIELD.match(line.text)
            if found is not None and found.group(1) in _READ:
                said.setdefault(found.group(1), (line, found.group(2).strip()))
        if not said:
            return []
        first = min((line for line, _ in said.values()), key=lambda line: line.number)
        value = "; ".join(f"{label}: {said[label][1]}" for label in _READ if label in said)
        return [ObservationFact(first, "docker-daemon", value)]
