"""``fi_info -v`` (``--verbose``): each endpoint as a YAML-like record whose ``nic`` part names
the device and its link, as fi_nic(3) defines them.

    nic:
        fi_device_attr:
            name: rdmap79s0
        fi_link_attr:
            state: FI_LINK_UP

FI_LINK_UP and FI_LINK_DOWN become the device's port state (a provider lists one record per
endpoint type, so a device appears several times: its first state stands); FI_LINK_UNKNOWN
says nothing. libfabric reports one link per device, read as port 1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.hardware import RdmaPortFact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.hardware import RdmaPort

_SECTION = re.compile(r"^\s*(fi_info|nic|fi_device_attr|fi_bus_attr|fi_link_attr):\s*$")
_NAME = re.compile(r"^\s+name:\s*([\w.:;-]{1,64})\s*$")
_STATE = re.compile(r"^\s+state:\s*FI_LINK_(UP|DOWN|UNKNOWN)\b")
_STATES = {"UP": "ACTIVE", "DOWN": "DOWN"}


class FiInfoVerbose(Format):
    name = "fi_info_verbose"
    title = "fi_info -v"
    anchor = re.compile(r"^\s*(?:fi_info|fi_device_attr|fi_link_attr):\s*$")

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        text = line.text
        return (
            self.opens(line)
            or text.strip() == "---"
            or re.match(r"^\s+[\w ]{1,40}:(?:\s|$)", text) is not None
        )

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[RdmaPortFact] = []
        seen: set[str] = set()
        section: str | None = None
        device: str | None = None
        for line in lines:
            text = line.text
            if (found := _SECTION.match(text)) is not None:
                section = found.group(1)
                if section == "fi_info":
                    device = None
            elif section == "fi_device_attr" and (found := _NAME.match(text)) is not None:
                device = found.group(1)
            elif section == "fi_link_attr" and (found := _STATE.match(text)) is not None:
                state = _STATES.get(found.group(1))
                if device is not None and state is not None and device not in seen:
                    seen.add(device)
                    port = RdmaPort(device=device, port=1, state=state)
                    facts.append(RdmaPortFact(line, port))
        return list(facts)
