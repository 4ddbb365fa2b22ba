"""``nvidia-smi -q`` (and ``-a``): ``Key : value`` lines, indented by section.

Besides versions and product names it shows the NVLink fabric's state on NVSwitch systems
(``Fabric`` / ``State : Completed``), which stays ``In Progress`` while the fabric manager has
not initialised the fabric, and (R550+) a ``Status`` other than ``Success`` where the GPU's
registration with the NVLink fabric failed (``Insufficient Resources``); that section is read on
its own too, as ``grep -A 2 Fabric`` pastes it, and so are ``Remapped Rows`` and
``Retired Pages``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact, GpuFact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.nvidia_smi_health import gpu_health_facts
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

_FIELD = re.compile(r"^(\s*)(\S[^:]{0,60}?)\s*:\s?(.{0,300})$")
# Fabric Status values of a GPU that registered, or that has no NVLink fabric to join.
_FABRIC_OK = ("success", "n/a", "not supported", "")
_HEADER = re.compile(r"^(?:GPU [0-9A-Fa-f:.]{4,20}|[A-Z][\w ()/.-]{0,60})$")  # "Attached GPUs"


class NvidiaSmiQuery(Format):
    name = "nvidia_smi_q"
    title = "nvidia-smi -q"
    # The fabric's section alone opens too: NVIDIA's guides check the fabric with
    # `nvidia-smi -q -i 0 | grep -A 2 Fabric`, which prints only "Fabric", "State", "Status";
    # and so do the remapped rows' and retired pages' sections, which reports quote alone.
    anchor = re.compile(
        r"=+\s*NVSMI LOG\s*=+|^Attached GPUs\s+:|^\s{0,8}(?:Fabric|Remapped Rows|Retired Pages)\s*$"
    )
    member = None
    blank_ok = True

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        text = line.text
        return bool(_FIELD.match(text) or text.startswith(" ") or _HEADER.match(text))

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        driver: ComponentFact | None = None
        section: str | None = None
        index = -1
        for line in lines:
            found = _FIELD.match(line.text)
            if found is None:
                section = line.text.strip() or section  # a section header such as "Fabric"
                if line.text.startswith("GPU "):
                    index += 1
                continue
            key, value = found.group(2).strip(), found.group(3).strip()
            if key == "Driver Version" and value:
                driver = ComponentFact(line, ComponentName.DRIVER, version=value)
                facts.append(driver)
            elif key == "CUDA Version" and driver is not None and value[:1].isdigit():
                driver.cuda = value
            elif key == "Product Name" and value:
                facts.append(GpuFact(line, value, index=max(index, 0)))
            elif key == "State" and section == "Fabric" and value not in ("N/A", ""):
                facts.append(ObservationFact(line, "fabric-state", value))
            elif key == "Status" and section == "Fabric" and value.lower() not in _FABRIC_OK:
                # R550+: the GPU's registration with the NVLink fabric; a State of Completed
                # with a failed Status (Insufficient Resources) leaves its NVLinks unusable.
                facts.append(ObservationFact(line, "fabric-state", f"status {value}"))
            elif not value:
                section = key
        facts.extend(gpu_health_facts(lines))  # the hardware sections, per GPU
        return facts
