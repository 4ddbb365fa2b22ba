"""Azure CycleCloud's ``azslurm buckets`` table (the Slurm integration's CLI, cyclecloud-slurm
3.x): one row per node array and VM size, with the vCPUs, memory and GPUs (``NGPUS``) the
integration counts for it, from which it writes gpu Gres lines into ``gres.conf`` and
``azure.conf``::

    NODEARRAY PLACEMENT_GROUP  VM_SIZE                  VCPU_COUNT PCPU_COUNT MEMORY ... NGPUS
    hpc                        Standard_ND96isr_H100_v5 96         96         1900.00g ... 0

The placement group's cell is empty on some rows, so a row is read from its VM size (the
``Standard_`` name followed by the vCPU count) onwards: vCPUs, pCPUs, memory, available count,
NCPUS, PCPUS, then NGPUS. Each size's count is read as what the scheduler will offer, not as the
GPUs the machine has."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line

_HEADER = re.compile(r"^\s*NODEARRAY\s{1,40}PLACEMENT_GROUP\s{1,40}VM_SIZE\s.{0,200}\bNGPUS\b")
# A VM size, then VCPU_COUNT, PCPU_COUNT and MEMORY ("1900.00g").
_ROW = re.compile(r"\b(Standard_\w{2,60})\s{1,40}\d{1,4}\s{1,40}\d{1,4}\s{1,40}[\d.]{1,12}g\s")
_NGPUS_AFTER_SIZE = 7  # VCPU_COUNT PCPU_COUNT MEMORY AVAILABLE_COUNT NCPUS PCPUS NGPUS


class AzslurmBuckets(Format):
    name = "azslurm_buckets"
    title = "azslurm buckets"
    anchor = _HEADER
    member = _ROW

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        seen: set[str] = set()
        for line in lines:
            found = _ROW.search(line.text)
            if found is None:
                continue
            words = line.text[found.start() :].split()
            if len(words) <= _NGPUS_AFTER_SIZE or not words[_NGPUS_AFTER_SIZE].isdigit():
                continue
            said = f"{found.group(1)} {words[_NGPUS_AFTER_SIZE]}"
            if said not in seen:
                seen.add(said)
                facts.append(ObservationFact(line, "scheduler-gpu-count", said))
        return facts
