"""The device banner of YOLOv5's and Ultralytics' ``select_device`` (and of the many projects
that copied it): ``Ultralytics YOLOv8.0.49 🚀 Python-3.9.12 torch-1.13.0 CUDA:0 (Tesla
V100-SXM2-16GB, 16160MiB)``, one more ``CUDA:N (name, memory)`` line per further GPU indented
under the first, or ``CPU`` / ``MPS`` where no GPU was used. Older copies print ``torch 1.8.1``
and the memory in fractional ``MB``; a nightly names its date and CUDA build
(``torch-2.8.0.dev20250323+cu128``).

It states the PyTorch a process ran and, with ``CUDA:N``, that CUDA was available to it and
which GPUs it saw (``torch.cuda.get_device_properties``); ``CPU`` alone says nothing of the
machine (``device=cpu`` prints it too).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, GpuFact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.python_packages import torch_fact
from stackcheck.ingest.lines import Line

_BANNER = re.compile(
    r"\btorch[- ](\d{1,2}\.\d{1,3}\.\d{1,3}(?:[+.][\w.+]{1,40})?) (?=CUDA:\d|CPU$|MPS$)"
)
_DEVICE = re.compile(r"CUDA:(\d{1,2}) \(([^,()]{1,80}), (\d{1,7})(?:\.\d{1,4})?Mi?B\)")


class DeviceBanner(Format):
    name = "device_banner"
    title = "YOLOv5/Ultralytics select_device banner"
    anchor = _BANNER
    member = re.compile(r"^\s{1,200}CUDA:\d{1,2} \(")

    def opens(self, line: Line) -> bool:
        # The fixed text first: most lines of a long log hold none and skip the expression.
        return "torch" in line.text and _BANNER.search(line.text.rstrip()) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        # Banners of several runs pasted one under the other (an older and a newer release,
        # ultralytics/ultralytics#1495) are read one by one, each with its CUDA:N lines.
        facts: list[Fact] = []
        banner: Line | None = None
        devices = 0
        for line in lines:
            found = _BANNER.search(line.text.rstrip())
            if found is not None:
                if banner is not None and devices:
                    facts.append(ObservationFact(banner, "cuda-available", "select_device: CUDA:0"))
                banner, devices = line, 0
                torch = torch_fact(line, found.group(1))
                if line.text.rstrip().endswith("CPU"):
                    # The process ran on the CPU with this build: where it is a CPU build, the
                    # job's own.
                    torch.properties["ran_on"] = "CPU"
                facts.append(torch)
            if banner is None:
                continue
            for device in _DEVICE.finditer(line.text):
                index, name, mib = int(device.group(1)), device.group(2), int(device.group(3))
                facts.append(GpuFact(line, name.strip(), index=index, memory_mib=mib))
                devices += 1
        if banner is not None and devices:
            facts.append(ObservationFact(banner, "cuda-available", "select_device: CUDA:0"))
        return facts
