"""``nvidia-smi``'s default table: the header's driver and CUDA versions, and one row per GPU.

The table's layout changed over drivers (wider columns from R525, a MIG row), so rows are read
by their cells, not by fixed positions; names may be cut (``Tesla V100-PCIE...``).

On GPUs that support MIG (R450 on) the header's last column has a third line, ``MIG M.``, and
each GPU's third row line says ``Enabled``, ``Disabled`` or ``N/A`` there. Where instances
exist, a ``MIG devices:`` table follows, one row per instance (``|  0    1   0   0  | ...``:
GPU, GI ID, CI ID, MIG Dev): a GPU with a row there is in MIG mode whatever else is pasted.
Each GPU row's ``Persistence-M`` cell (``On`` / ``Off``) is the GPU's persistence mode; a
``Compute M.`` cell other than ``Default`` (``E. Process``, ``Prohibited``) is an observation.
A GPU's second row with ``ERR!`` in two or more cells is a GPU NVML cannot read
(``gpu-unreachable``).
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

_DRIVER = re.compile(r"Driver Version:\s*(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)")
_CUDA = re.compile(r"CUDA Version:\s*(\d{1,2}\.\d{1,2})")
_ROW = re.compile(r"^\s*\|\s{1,6}(\d{1,2})\s{1,6}(\S.{0,60}?)\s{2,}(On|Off|N/A)\s{0,6}\|")
_MEMORY = re.compile(r"\|\s{0,12}\d{1,7}MiB\s{0,4}/\s{0,4}(\d{1,7})MiB")
_BUS = re.compile(r"\|\s{0,12}([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s")
# The Compute M. cell at the end of a GPU's second row line: Default, E. Process, E. Thread (before
# R450) or Prohibited.
_COMPUTE_MODE = re.compile(r"\s(E\.\s?Process|E\.\s?Thread|Prohibited)\s{0,4}\|\s*$")
_MIG_CELL = re.compile(r"^\s*\|[\s|]{0,120}?\|\s{0,30}(Enabled|Disabled)\s{0,4}\|\s*$")
# One ERR! may be a sensor the board lacks (a fan on a passively cooled card); two or more in a
# GPU's second row (fan, power, utilisation) say NVML cannot read the GPU itself.
_ERR_CELLS = 2
_MIG_DEVICE = re.compile(r"^\s*\|\s{1,4}(\d{1,2})(?:\s{1,6}\d{1,3}){3}\s{1,4}\|")  # GPU GI CI Dev


def _mig(line: Line, index: int, bus: str | None, on: bool) -> GpuHealthFact:
    bus_id = normalise_bus_id(bus) if bus else None
    return GpuHealthFact(line, GpuHealth(bus_id=bus_id, index=index, mig_mode=on), [line])


def _persistence(line: Line, index: int, bus: str | None, on: bool) -> GpuHealthFact:
    bus_id = normalise_bus_id(bus) if bus else None
    return GpuHealthFact(line, GpuHealth(bus_id=bus_id, index=index, persistence_mode=on), [line])


class NvidiaSmiTable(Format):
    name = "nvidia_smi"
    title = "nvidia-smi"
    anchor = re.compile(r"^\s*\|?\s*NVIDIA-SMI\s+\d|^\s*\+-{20,}\+?\s*$|^\s*\+=+\+")
    member = re.compile(r"^\s*[|+]")

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        gpus: list[GpuFact] = []
        buses: dict[int, str | None] = {}
        mig_column = mig_devices = False
        for line in lines:
            if "Processes:" in line.text:
                break
            if "MIG M." in line.text:
                mig_column = True
            if "MIG devices:" in line.text:
                mig_devices = True
            device = _MIG_DEVICE.match(line.text) if mig_devices else None
            if device is not None:
                index = int(device.group(1))
                facts.append(_mig(line, index, buses.get(index), True))
                continue
            cell = _MIG_CELL.match(line.text) if mig_column and gpus and not mig_devices else None
            if cell is not None:
                index = gpus[-1].index or 0
                facts.append(_mig(line, index, buses.get(index), cell.group(1) == "Enabled"))
                continue
            driver = _DRIVER.search(line.text)
            if driver is not None:
                cuda = _CUDA.search(line.text)
                facts.append(
                    ComponentFact(
                        line,
                        ComponentName.DRIVER,
                        version=driver.group(1),
                        cuda=cuda.group(1) if cuda else None,
                    )
                )
                continue
            row = _ROW.match(line.text)
            if row is not None:
                gpus.append(GpuFact(line, row.group(2).strip(), index=int(row.group(1))))
                bus = _BUS.search(line.text)
                buses[int(row.group(1))] = bus.group(1) if bus else None
                if row.group(3) != "N/A":  # the Persistence-M cell (Linux; WDDM/TCC on Windows)
                    index = int(row.group(1))
                    facts.append(_persistence(line, index, buses[index], row.group(3) == "On"))
                continue
            if gpus and line.text.count("ERR!") >= _ERR_CELLS and gpus[-1].memory_mib is None:
                # NVML answered for the GPU but not for its sensors: the GPU is failing or gone
                # (nvidia-smi prints ERR! where a query of a GPU it lists fails).
                said = f"GPU {gpus[-1].index}: nvidia-smi shows ERR! for its sensors"
                facts.append(ObservationFact(line, "gpu-unreachable", said))
            memory = _MEMORY.search(line.text)
            if memory is not None and gpus and gpus[-1].memory_mib is None:
                gpus[-1].memory_mib = int(memory.group(1))
                mode = _COMPUTE_MODE.search(line.text)
                if mode is not None:
                    said = f"GPU {gpus[-1].index}: {mode.group(1)}"
                    facts.append(ObservationFact(line, "compute-mode-exclusive", said))
        return facts + list(gpus)
