"""``fi_info --version`` and ``fi_info -p efa``.

An in-tree provider reports its version as ``(major * 100 + minor).(revision * 10)`` of the
libfabric it is built into (``OFI_VERSION_DEF_PROV`` in libfabric's include/ofi.h): ``118.20`` is
libfabric 1.18.2.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact, ObservationFact, RuntimeFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

_PROVIDER = re.compile(r"^\s*provider:\s*([\w;-]{1,40})")
_DOMAIN = re.compile(r"^\s*domain:\s*(\w{1,40}?)-(?:rdm|dgrm)\b")
_PROVIDER_VERSION = re.compile(r"^\s*version:\s*(\d{3,4})\.(\d{1,3})\s*$")
_VERSION = re.compile(r"^\s*(?:fi_info|libfabric):\s*(\d{1,2}\.\d{1,3}(?:\.\d{1,3})?\S{0,30})\s*$")


def provider_libfabric(major_minor: str, revision: str) -> str:
    number, rev = int(major_minor), int(revision)
    return f"{number // 100}.{number % 100}.{rev // 10}"


class FiInfo(Format):
    name = "fi_info"
    title = "fi_info"
    anchor = re.compile(r"^\s*provider:\s*\w|^\s*fi_info:\s*\d|^\s*libfabric:\s*\d")
    _field = re.compile(r"^\s*(?:fabric|domain|version|type|protocol|libfabric api):\s")

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return self.opens(line) or self._field.match(line.text) is not None

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        provider: str | None = None
        domains: list[str] = []
        for line in lines:
            text = line.text
            if (found := _PROVIDER.match(text)) is not None:
                provider = found.group(1)
                if provider == "efa" and not any(isinstance(f, ObservationFact) for f in facts):
                    facts.append(ObservationFact(line, "efa-provider-present", "efa"))
            elif (found := _DOMAIN.match(text)) is not None and provider == "efa":
                if found.group(1) not in domains:
                    domains.append(found.group(1))
            elif (found := _PROVIDER_VERSION.match(text)) is not None and provider == "efa":
                if not any(isinstance(f, ComponentFact) for f in facts):
                    facts.append(
                        ComponentFact(
                            line,
                            ComponentName.LIBFABRIC,
                            version=provider_libfabric(found.group(1), found.group(2)),
                            properties={
                                "from": f"EFA provider version {found.group(1)}.{found.group(2)}"
                            },
                        )
                    )
            elif (found := _VERSION.match(text)) is not None and text.strip().startswith(
                "libfabric:"
            ):
                facts.append(ComponentFact(line, ComponentName.LIBFABRIC, version=found.group(1)))
        if domains:
            facts.append(RuntimeFact(lines[0], "efa_devices", domains))
        return facts
