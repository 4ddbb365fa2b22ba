"""``/opt/amazon/efa_installed_packages``: the EFA installer's version and what it installed."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.parsers.packages import (
    efa_installed_packages,
    libfabric_package_version,
    ofi_nccl_package_version,
)
from stackcheck.snapshot.model import ComponentName


class EfaInstalledPackages(Format):
    name = "efa_installed_packages"
    title = "/opt/amazon/efa_installed_packages"
    anchor = re.compile(r"^#\s*EFA installer version:")
    member = None

    def continues(self, line: Line, segment: Sequence[Line]) -> bool:
        return line.text.startswith("#") or bool(re.match(r"^[\w.+-]{1,80}-\d", line.text))

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        version, _ = efa_installed_packages("\n".join(line.text for line in lines))
        facts: list[Fact] = []
        if version:
            facts.append(
                ComponentFact(
                    lines[0], ComponentName.EFA_INSTALLER, version=version, path="/opt/amazon"
                )
            )
        for line in lines[1:]:
            if line.text.startswith("#"):
                continue
            libfabric = libfabric_package_version(line.text)
            if libfabric:
                facts.append(
                    ComponentFact(
                        line, ComponentName.LIBFABRIC, version=libfabric, path="/opt/amazon/efa"
                    )
                )
            plugin = ofi_nccl_package_version(line.text)
            if plugin:
                facts.append(ComponentFact(line, ComponentName.OFI_NCCL, version=plugin))
        return facts
