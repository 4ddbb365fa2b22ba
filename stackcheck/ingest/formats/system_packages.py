"""System package listings: ``dpkg -l``, ``apt list --installed``, ``apt search``, ``rpm -qa``,
``dpkg --get-selections``.

A package's name and version say which NCCL, cuDNN, driver, fabric manager or CUDA runtime the
system holds (``libnccl2 2.18.3-1+cuda12.2``, ``libnccl-2.9.9-1+cuda11.3.x86_64``,
``nvidia-fabricmanager-550 550.90.07-1``, ``nvidia-fabric-manager-550.90.07-1.x86_64``), and
the EFA installer's libfabric and aws-ofi-nccl (``libfabric-aws-1.22.0amzn4.0-1.amzn2023.x86_64``,
``libnccl-ofi-1.13.2-1.amzn2023.x86_64``).
Removed packages (``rc``) and ones never installed (``un``) say nothing. ``dpkg --get-selections``
names no version: of its rows only a user-space driver package selected for install is read, as
the package's presence (``libnvidia-compute-510:amd64  install``), not as a driver version.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact, ObservationFact
from stackcheck.ingest.formats.base import Format
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

_ARCH = r"(?:amd64|arm64|i386|all|x86_64|aarch64|noarch|i686|ppc64le)"
_DPKG = re.compile(
    rf"^\s*([ihrpuU][iUcHFWtn])\s+([a-z0-9][\w+.-]{{0,100}}?)(?::\w{{1,10}})?\s+(\S{{1,80}})\s+{_ARCH}\b"
)
_APT = re.compile(
    # the bracket may name an upgrade: [installed,upgradable to: 535.183.01-1]
    rf"^\s*([a-z0-9][\w+.-]{{0,100}})/\S{{0,80}}\s+(\S{{1,80}})\s+{_ARCH}(?:\s+\[([^\]]{{0,120}})\])?"
)
_RPM = re.compile(
    rf"^\s*([A-Za-z][\w+.-]{{0,100}}?)-(\d[\w.+~]{{0,40}})-([\w.+~]{{1,60}})\.{_ARCH}\s*$"
)
# dpkg --get-selections: a name (":arch" on multi-arch rows), tabs, and the selection state
_SELECTION = re.compile(
    rf"^\s*([a-z0-9][\w+.-]{{1,100}}?)(?::{_ARCH})?\s{{2,}}(install|hold|deinstall|purge)\s*$"
)
_HEADER = re.compile(
    r"^\|\|/ Name\s|^Desired=Unknown/Install|^Listing\.\.\.|^Sorting\.\.\.|^Full Text Search"
    r"|\bdpkg\s{1,4}--get-selections\b"
)
_CUDA_TAG = re.compile(r"\+cuda(\d{1,2}\.\d{1,2})")
_DRIVER_PACKAGE = re.compile(
    # Ubuntu's and NVIDIA's names, then Debian's (nvidia-smi, libnvidia-ml1, libcuda1)
    # and NVIDIA's and RPM Fusion's RPMs: each one the user-space driver of its release
    r"^(?:nvidia-driver(?:-cuda|-libs|-cuda-libs|-NVML|-bin)?|libnvidia-compute|"
    r"nvidia-compute-utils|nvidia-utils|nvidia-kernel-common|cuda-drivers|nvidia-smi|"
    r"libnvidia-ml1?|libcuda1|libnvidia-cfg1|libnvidia-ptxjitcompiler1|"
    r"xorg-x11-drv-nvidia(?:-cuda-libs|-cuda|-libs)?)(?:-\d{3})?(?:-server|-open)?$"
)
_PACKAGES = (
    (re.compile(r"^libnccl2?$"), ComponentName.NCCL, re.compile(r"^(\d{1,2}\.\d{1,3}\.\d{1,3})")),
    (
        re.compile(r"^libcudnn\d{1,2}(?:-cuda-\d{1,2})?$"),
        ComponentName.CUDNN,
        re.compile(r"^(\d{1,2}\.\d{1,3}\.\d{1,3})"),
    ),
    (
        _DRIVER_PACKAGE,
        ComponentName.DRIVER,
        re.compile(r"^(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b"),
    ),
    (
        # Ubuntu's and NVIDIA's deb names, then the RPM of RHEL, CentOS and Amazon Linux
        # (nvidia-fabric-manager-550.90.07-1.x86_64; NVIDIA/yum-packaging-fabric-manager)
        re.compile(
            r"^(?:nvidia-fabricmanager|cuda-drivers-fabricmanager|nvidia-fabric-manager)(?:-\d{3})?$"
        ),
        ComponentName.FABRIC_MANAGER,
        re.compile(r"^(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b"),
    ),
    (
        # the EFA installer's own packages (its RPMS/DEBS trees): AWS's libfabric build and the
        # aws-ofi-nccl plugin; upstream libfabric (libfabric1, Open MPI's dependency) is not it
        re.compile(r"^libfabric-aws(?:-devel|-dev|-bin)?$"),
        ComponentName.LIBFABRIC,
        re.compile(r"^(\d{1,2}\.\d{1,3}\.\d{1,3}(?:~?amzn\d{1,2}\.\d{1,2})?)"),
    ),
    (
        re.compile(r"^(?:libnccl-ofi|aws-ofi-nccl)(?:-devel|-dev)?$"),
        ComponentName.OFI_NCCL,
        re.compile(r"^(\d{1,2}\.\d{1,3}\.\d{1,3})"),
    ),
    (
        re.compile(r"^cuda-cudart-\d{1,2}-\d{1,2}$"),
        ComponentName.CUDA_RUNTIME,
        re.compile(r"^(\d{1,2}\.\d{1,2}\.\d{1,4})"),
    ),
)


def package_fact(line: Line, name: str, version: str) -> Fact | None:
    for named, component, numbered in _PACKAGES:
        if not named.match(name):
            continue
        found = numbered.match(version.split(":")[-1])  # an epoch (1:535.104) is not the version
        if found is None:
            return None
        fact = ComponentFact(line, component, version=found.group(1))
        fact.properties["package"] = f"{name} {version}"
        tag = _CUDA_TAG.search(version)
        if tag is not None and component is not ComponentName.DRIVER:
            fact.cuda = tag.group(1)
        elif component is ComponentName.CUDA_RUNTIME:
            fact.cuda = ".".join(found.group(1).split(".")[:2])
        return fact
    return None


class SystemPackages(Format):
    name = "system_packages"
    title = "system package listing (dpkg -l, apt list, rpm -qa)"
    anchor = _HEADER
    member = re.compile(f"{_DPKG.pattern}|{_APT.pattern}|{_RPM.pattern}|{_SELECTION.pattern}")

    def parse(self, lines: Sequence[Line]) -> list[Fact]:
        facts: list[Fact] = []
        for line in lines:
            text = line.text
            if (found := _DPKG.match(text)) is not None:
                if found.group(1)[1] != "i":
                    continue  # rc (removed, config left), un (never installed), ...
                fact = package_fact(line, found.group(2), found.group(3))
            elif (found := _APT.match(text)) is not None:
                if "installed" not in (found.group(3) or ""):
                    continue  # apt search lists what could be installed, too
                fact = package_fact(line, found.group(1), found.group(2))
            elif (found := _RPM.match(text)) is not None:
                fact = package_fact(line, found.group(1), f"{found.group(2)}-{found.group(3)}")
            elif (found := _SELECTION.match(text)) is not None:
                # no version: a driver package selected for install is read as present only
                name, state = found.group(1), found.group(2)
                if state in ("install", "hold") and _DRIVER_PACKAGE.match(name):
                    facts.append(ObservationFact(line, "linux-driver-package", name))
                continue
            else:
                fact = None
            if fact is not None:
                facts.append(fact)
        return facts
