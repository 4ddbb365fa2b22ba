"""containerd's ``config.toml`` (version 1 ``plugins.cri``, version 2
``plugins."io.containerd.grpc.v1.cri"``, version 3 ``plugins."io.containerd.cri.v1.runtime"``):
whether an NVIDIA runtime it defines is the CRI plugin's default. Kubernetes pods that name no
``runtimeClassName`` run under ``default_runtime_name`` (``runc`` when unset), which injects no
GPU (NVIDIA Container Toolkit install guide, "Configuring containerd (for Kubernetes)": `nvidia-ctk
runtime configure --runtime=containerd` sets it; k3s defines the nvidia runtime but leaves the
default alone, its docs have pods name ``runtimeClassName: nvidia``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

_CRI = r"""(?:["']io\.containerd\.grpc\.v1\.cri["']|["']io\.containerd\.cri\.v1\.runtime["']|cri)"""
_SECTION = re.compile(r"^\s*\[\s*([^\[\]]{1,200}?)\s*\]\s*(?:#.*)?$")
_CONTAINERD = re.compile(rf"^plugins\.{_CRI}\.containerd$")
_RUNTIME = re.compile(rf"^plugins\.{_CRI}\.containerd\.runtimes\.[\"']?([\w.-]{{1,60}})[\"']?$")
_DEFAULT = re.compile(r"""^\s*default_runtime_name\s*=\s*["']([\w.-]{1,60})["']""")
_ENTRY = re.compile(
    r"""^\s*(?:\[[^\[\]]{1,200}\]|[\w.-]{1,60}\s*=\s*\S.{0,400}|#.{0,400}|[\]}],?)\s*$"""
)


class ContainerdConfig(Format):
    name = "containerd_config"
    title = "containerd config.toml"
    anchor = re.compile(rf"^\s*\[\s*plugins\.{_CRI}[.\]]")
    member = None
    blank_ok = True
    line_facts = False  # a configuration, not a log

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return _ENTRY.match(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        section = ""
        shown: Line | None = None  # the CRI plugin's containerd section, where the default lives
        default: tuple[Line, str] | None = None
        nvidia: list[tuple[Line, str]] = []
        for line in lines:
            header = _SECTION.match(line.text)
            if header is not None:
                section = header.group(1).replace(" ", "")
                if _CONTAINERD.match(section):
                    shown = shown or line
                elif (runtime := _RUNTIME.match(section)) and "nvidia" in runtime.group(1):
                    nvidia.append((line, runtime.group(1)))
                continue
            if _CONTAINERD.match(section) and (found := _DEFAULT.match(line.text)):
                default = (line, found.group(1))
        if not nvidia or (default is None and shown is None):
            return []  # no NVIDIA runtime, or the default's section is not in the paste
        if default is not None and "nvidia" in default[1]:
            return []
        names = ", ".join(dict.fromkeys(n for _, n in nvidia))
        said = default[1] if default is not None else "unset (runc)"
        where = default[0] if default is not None else nvidia[0][0]
        return [
            ObservationFact(
                where,
                "nvidia-runtime-not-default",
                f"runtimes {names} defined, default_runtime_name {said}",
            )
        ]
