"""``nvidia-container-cli info`` (libnvidia-container, which the NVIDIA container toolkit runs
to inject GPUs; its issue template asks for ``nvidia-container-cli -k -d /dev/tty info``): the
driver's version and CUDA, then each GPU with its model and architecture::

    NVRM version:   410.104
    CUDA version:   10.0

    Device Index:   0
    Model:          TITAN Xp
    Architecture:   6.1

Layout: NVIDIA/libnvidia-container@5decca393a6635d9d599167b27a6072d8de9fc2f:src/cli/info.c
(``%-15s %s`` per field). ``CUDA version`` is libcuda's, the driver's CUDA; ``Architecture`` is
the GPU's compute capability."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact, GpuFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

_FIELD = re.compile(
    r"^\s{0,8}(NVRM version|CUDA version|Device Index|Device Minor|Model|Brand|GPU UUID|"
    r"Bus Location|Architecture):\s{1,16}(\S.{0,120}?)\s*$"
)


class ContainerCliInfo(Format):
    name = "nvidia_container_cli_info"
    title = "nvidia-container-cli info"
    # /proc/driver/nvidia/version also starts "NVRM version:", with the module's banner after.
    anchor = re.compile(r"^\s{0,8}NVRM version:\s{1,16}\d{3}\.\d{1,3}(?:\.\d{1,3})?\s*$")
    blank_ok = True  # a blank line before each device

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return _FIELD.match(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        driver: Line | None = None
        fields: dict[str, str] = {}
        device: dict[str, tuple[Line, str]] = {}

        def close_device() -> None:
            if "Model" in device:
                line, model = device["Model"]
                index = device.get("Device Index", (line, ""))[1]
                arch = device.get("Architecture", (line, ""))[1]
                facts.append(
                    GpuFact(
                        line,
                        model,
                        index=int(index) if index.isdigit() else None,
                        compute_capability=arch if re.fullmatch(r"\d{1,2}\.\d", arch) else None,
                    )
                )
            device.clear()

        for line in lines:
            found = _FIELD.match(line.text)
            if found is None:
                continue
            name, value = found.group(1), found.group(2)
            if name in ("NVRM version", "CUDA version"):
                fields[name] = value
                driver = driver or line
                continue
            if name == "Device Index":
                close_device()
            device[name] = (line, value)
        close_device()
        version = fields.get("NVRM version")
        cuda = fields.get("CUDA version")
        if driver is not None and version:
            good_cuda = cuda if cuda and re.fullmatch(r"\d{1,2}\.\d{1,2}", cuda) else None
            facts.insert(
                0, ComponentFact(driver, ComponentName.DRIVER, version=version, cuda=good_cuda)
            )
        return facts
