"""``nvidia-smi --query-gpu=... --format=csv``: a header of query field names (``uuid,
mig.mode.current, mig.mode.pending``), then one row of values per GPU.

The header names the fields as nvidia-smi's ``--help-query-gpu`` lists them (``gpu_name`` is
printed as ``name``, sizes carry their unit: ``memory.total [MiB]``). Read: the GPU's name,
index, bus ID and compute capability, the driver's version, persistence mode, MIG mode (a
``mig.mode.pending`` that differs from ``mig.mode.current`` is a change waiting for a reset), and
a compute mode other than ``Default``. A header opens the segment only where it names a field
no other CSV has (``driver_version``, ``persistence_mode``, ``mig.mode.current``, ...); rows
belong to it while they hold as many values as the header has names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact, GpuFact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.hardware import GpuHealthFact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.hardware import GpuHealth, normalise_bus_id
from stackcheck.snapshot.model import ComponentName

# Field names of --help-query-gpu that no other tool's CSV header carries.
_OWN = (
    r"driver_version|persistence_mode|mig\.mode\.(?:current|pending)|compute_mode|compute_cap|"
    r"pci\.bus_id|gpu_bus_id|vbios_version|pstate|memory\.total|clocks\.\w{1,20}|"
    r"power\.\w{1,20}|temperature\.gpu|utilization\.\w{1,20}|ecc\.mode\.\w{1,20}"
)
_FIELD = rf"(?:{_OWN}|name|gpu_name|index|uuid|gpu_uuid|serial|gpu_serial|count|timestamp)"
_UNIT = r"(?: \[[^\]]{1,10}\])?"
_HEADER = re.compile(rf"^\s*{_FIELD}{_UNIT}(?:\s?,\s?{_FIELD}{_UNIT}){{0,40}}\s*$")
_DISTINCT = re.compile(rf"(?:^|,)\s?(?:{_OWN})")
_KEYS = {"gpu_name": "name", "gpu_bus_id": "pci.bus_id", "gpu_uuid": "uuid"}
_EXCLUSIVE = ("Exclusive_Process", "Exclusive_Thread", "Prohibited")


def _fields(header: str) -> list[str]:
    names = [re.sub(r" \[.*\]$", "", f.strip()) for f in header.split(",")]
    return [_KEYS.get(name, name) for name in names]


def _switch(value: str | None) -> bool | None:
    return {"Enabled": True, "Disabled": False}.get(value or "")


class NvidiaSmiCsv(Format):
    name = "nvidia_smi_csv"
    title = "nvidia-smi --query-gpu (CSV)"

    def opens(self, line: Line) -> bool:
        # Every line of a long log asks: the anchored header match fails fastest.
        text = line.text
        return _HEADER.match(text) is not None and _DISTINCT.search(text) is not None

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        width = segment[0].text.count(",")
        return "|" not in line.text and line.text.count(",") == width and not self.opens(line)

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        fields = _fields(lines[0].text)
        facts: list[Fact] = []
        for ordinal, line in enumerate(lines[1:]):
            row = dict(zip(fields, (v.strip() for v in line.text.split(",")), strict=False))
            facts.extend(_row_facts(line, row, ordinal))
        return facts


def _row_facts(line: Line, row: dict[str, str], ordinal: int) -> list[Fact]:
    facts: list[Fact] = []
    index = int(row["index"]) if row.get("index", "").isdigit() else ordinal
    bus = row.get("pci.bus_id", "")
    bus_id = normalise_bus_id(bus) if re.fullmatch(r"[0-9A-Fa-f:.]{7,16}", bus) else None
    where = f"GPU {index}"
    if row.get("name", "").startswith(("NVIDIA", "Tesla", "Quadro", "GeForce", "TITAN")):
        cc = row.get("compute_cap", "")
        capability = cc if re.fullmatch(r"\d{1,2}\.\d", cc) else None
        facts.append(GpuFact(line, row["name"], index=index, compute_capability=capability))
    driver = row.get("driver_version", "")
    if re.fullmatch(r"\d{3}\.\d{1,3}(?:\.\d{1,3})?", driver):
        facts.append(ComponentFact(line, ComponentName.DRIVER, version=driver))
    persistence = _switch(row.get("persistence_mode"))
    current, pending = _switch(row.get("mig.mode.current")), _switch(row.get("mig.mode.pending"))
    if persistence is not None or current is not None:
        health = GpuHealth(
            bus_id=bus_id, index=index, persistence_mode=persistence, mig_mode=current
        )
        facts.append(GpuHealthFact(line, health, [line]))
    if current is not None and pending is not None and pending != current:
        said = f"{where}: MIG {row['mig.mode.current']}, pending {row['mig.mode.pending']}"
        facts.append(ObservationFact(line, "mig-pending", said))
    if row.get("compute_mode") in _EXCLUSIVE:
        said = f"{where}: {row['compute_mode']}"
        facts.append(ObservationFact(line, "compute-mode-exclusive", said))
    return facts
