"""``ibv_devinfo``: one ``hca_id:`` block per RDMA device (``rdmap16s27`` or ``efa_0`` for EFA,
``mlx5_0``), each port's ``state: PORT_ACTIVE (4)`` (and ``phys_state`` with ``-v``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.hardware import RdmaPortFact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.hardware import RdmaPort

_HCA = re.compile(r"^\s*hca_id:\s*([\w.-]{1,64})\s*$")
_PORT = re.compile(r"^\s*port:\s*(\d{1,3})\s*$")
_STATE = re.compile(r"^\s*(state|phys_state):\s*(?:PORT_)?(\w{1,20})")
_FIELD = re.compile(r"^\s+[\w ]{1,40}:")


def rdma_ports(
    lines: Sequence[Line],
    device_line: re.Pattern[str],
    port_line: re.Pattern[str],
    state_line: re.Pattern[str],
    state_of: Callable[[str], str],
) -> list[Fact]:
    """Each port of each RDMA device a listing shows: the device's line (group 1: its name), then
    per port the line of its number (group 1) and its state lines (group 1 the field, "state" in
    any case for the port state, anything else the physical state; group 2 the value, which
    ``state_of`` turns into ibv_devinfo's word)."""
    facts: list[RdmaPortFact] = []
    device: str | None = None
    for line in lines:
        if (found := device_line.match(line.text)) is not None:
            device = found.group(1)
        elif (found := port_line.match(line.text)) is not None and device is not None:
            facts.append(RdmaPortFact(line, RdmaPort(device=device, port=int(found.group(1)))))
        elif (found := state_line.match(line.text)) is not None and facts:
            port = facts[-1].port
            if found.group(1).lower() == "state":
                port.state = state_of(found.group(2))
                facts[-1].line = line  # the state line is what a finding cites
            else:
                port.phys_state = found.group(2)
    return list(facts)


class IbvDevinfo(Format):
    name = "ibv_devinfo"
    title = "ibv_devinfo"
    anchor = re.compile(r"^\s*hca_id:\s*[\w.-]")

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return self.opens(line) or _FIELD.match(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        return rdma_ports(lines, _HCA, _PORT, _STATE, str.upper)
