"""``ibstat`` (infiniband-diags): one ``CA 'mlx5_0'`` block per RDMA device (``efa_0`` for EFA),
each ``Port N:`` with its ``State: Active`` and ``Physical state: LinkUp``; the port state words
are umad's (Down, Initializing, Armed, Active), read as ``ibv_devinfo``'s PORT_* names."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.hardware import RdmaPortFact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.hardware import RdmaPort

_CA = re.compile(r"^\s*CA '([\w.-]{1,64})'\s*$")
_PORT = re.compile(r"^\s*Port (\d{1,3}):\s*$")
_STATE = re.compile(r"^\s*(State|Physical state):\s*([\w/]{1,20})")
_FIELD = re.compile(r"^\s*[A-Z][\w ]{1,40}:")
_STATES = {"ACTIVE": "ACTIVE", "DOWN": "DOWN", "INITIALIZING": "INIT", "ARMED": "ARMED"}


class Ibstat(Format):
    name = "ibstat"
    title = "ibstat"
    anchor = _CA

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return self.opens(line) or _FIELD.match(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[RdmaPortFact] = []
        device: str | None = None
        for line in lines:
            if (found := _CA.match(line.text)) is not None:
                device = found.group(1)
            elif (found := _PORT.match(line.text)) is not None and device is not None:
                facts.append(RdmaPortFact(line, RdmaPort(device=device, port=int(found.group(1)))))
            elif (found := _STATE.match(line.text)) is not None and facts:
                port = facts[-1].port
                if found.group(1) == "State":
                    word = found.group(2).split("/")[0].upper()  # "Active/Defer" is active
                    port.state = _STATES.get(word, word)
                    facts[-1].line = line  # the state line is what a finding cites
                else:
                    port.phys_state = found.group(2)
        return list(facts)
