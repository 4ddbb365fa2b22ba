"""``ibstat`` (infiniband-diags): one ``CA 'mlx5_0'`` block per RDMA device (``efa_0`` for EFA),
each ``Port N:`` with its ``State: Active`` and ``Physical state: LinkUp``; the port state words
are umad's (Down, Initializing, Armed, Active), read as ``ibv_devinfo``'s PORT_* names."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.formats.ibv_devinfo import rdma_ports
from stackcheck.ingest.lines import Line

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
        return rdma_ports(lines, _CA, _PORT, _STATE, _state)


def _state(word: str) -> str:
    """umad's port state as ibv_devinfo names it ("Active/Defer" is active)."""
    word = word.split("/")[0].upper()
    return _STATES.get(word, word)
