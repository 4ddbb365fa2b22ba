"""Package records: dpkg's status database, Python dist-info METADATA, the EFA installer's list."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class PackageRecord:
    name: str
    version: str


def dpkg_status(text: str) -> Iterator[PackageRecord]:
    """Installed packages from /var/lib/dpkg/status (stanzas separated by blank lines)."""
    for stanza in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            if line[:1] in (" ", "\t"):
                continue  # continuation of a multi-line field
            key, sep, value = line.partition(":")
            if sep:
                fields[key] = value.strip()
        name, version = fields.get("Package"), fields.get("Version")
        if name and version and "installed" in fields.get("Status", "installed").split():
            yield PackageRecord(name, version)


def dist_metadata(text: str) -> PackageRecord | None:
    """Name and Version from a dist-info METADATA (or PKG-INFO) file's headers."""
    name = version = None
    for line in text.splitlines():
        if not line.strip():
            break  # the body (long description) follows the first blank line
        if line.startswith("Name:"):
            name = line[5:].strip()
        elif line.startswith("Version:"):
            version = line[8:].strip()
    return PackageRecord(name, version) if name and version else None


def requires_dist(text: str) -> list[str]:
    """The Requires-Dist lines of a METADATA file, without environment markers."""
    return [
        line[len("Requires-Dist:") :].split(";")[0].strip()
        for line in text.splitlines()
        if line.startswith("Requires-Dist:")
    ]


_EFA_VERSION = re.compile(r"#\s*EFA installer version:\s*(\S+)", re.IGNORECASE)


def efa_installed_packages(text: str) -> tuple[str | None, list[str]]:
    """The installer version and package lines of /opt/amazon/efa_installed_packages."""
    match = _EFA_VERSION.search(text)
    lines = [
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    ]
    return (match.group(1) if match else None, lines)


_LIBFABRIC_PACKAGE = re.compile(r"libfabric(?:-aws)?[-_](\d+\.\d+\.\d+(?:amzn\d+(?:\.\d+)*)?)")
_OFI_NCCL_PACKAGE = re.compile(r"(?:libnccl-ofi|aws-ofi-nccl)[-_](\d+\.\d+\.\d+)")


def libfabric_package_version(line: str) -> str | None:
    """libfabric's release in a package name: ``libfabric-aws-1.22.0amzn4.0-1`` -> 1.22.0amzn4.0."""
    match = _LIBFABRIC_PACKAGE.search(line)
    return match.group(1) if match else None


def ofi_nccl_package_version(line: str) -> str | None:
    """aws-ofi-nccl's release in a package name: ``libnccl-ofi-1.13.2-1`` -> 1.13.2."""
    match = _OFI_NCCL_PACKAGE.search(line)
    return match.group(1) if match else None
