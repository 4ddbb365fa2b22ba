"""What every probe is given: a view of the tree, the environment, and shared discovery.

Discovery that several probes need (the loader path, the Python environments, the package
database, the machine's DMI names) is computed once, on first use, and shared.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from stackcheck.live.host import LiveHost
from stackcheck.parsers.packages import dpkg_status
from stackcheck.probes.loader import LD_SO_CONF, LoaderPath, loader_path
from stackcheck.probes.python_envs import PythonEnv, find_python_envs
from stackcheck.probes.sysfs import DMI_PRODUCT, DMI_VENDOR
from stackcheck.snapshot.model import Evidence, EvidenceKind
from stackcheck.views.base import FileView
from stackcheck.views.needs import Needs

DPKG_STATUS = "/var/lib/dpkg/status"
_PACKAGE_DB_LIMIT = 64 << 20
_DMI_LIMIT = 256
# Shared discovery: every shared object (the loader resolves any DT_NEEDED name), the loader's
# configuration, the package database, what marks a Python environment, and the machine's DMI.
CONTEXT_NEEDS = Needs(
    names=("*.so", "*.so.*", "pyvenv.cfg", "*.egg-info", "pytorch-*.json"),
    contents=(LD_SO_CONF, f"{LD_SO_CONF}.d/*", DMI_VENDOR, DMI_PRODUCT),
    large_contents=((DPKG_STATUS, _PACKAGE_DB_LIMIT),),
)


@dataclass(frozen=True)
class Dmi:
    """The machine's DMI names, empty where absent (an image, a tree without /sys)."""

    vendor: str
    product: str


@dataclass
class ProbeContext:
    view: FileView
    env: Mapping[str, str] = field(default_factory=dict)
    env_kind: EvidenceKind = "env"  # "image-config" when the variables come from an image
    live: LiveHost | None = None  # None for a --root tree, an image or text

    def env_evidence(self, name: str) -> Evidence:
        return Evidence(kind=self.env_kind, source=name, detail=self.env.get(name))

    def file_evidence(self, path: str, detail: str | None = None) -> Evidence:
        return Evidence(kind="file", source=path, detail=detail, layer=self.view.provenance(path))

    @cached_property
    def loader(self) -> LoaderPath:
        return loader_path(self.view, self.env, self.env_kind)

    @cached_property
    def python_envs(self) -> list[PythonEnv]:
        return find_python_envs(self.view, self.env, include_running=self.live is not None)

    @cached_property
    def dmi(self) -> Dmi:
        """Read once: the instance type and bare metal both come from it."""
        vendor, product = (
            (self.view.read_text(path, _DMI_LIMIT) or "").strip()
            for path in (DMI_VENDOR, DMI_PRODUCT)
        )
        return Dmi(vendor, product)

    @cached_property
    def dpkg(self) -> dict[str, str]:
        """Installed Debian packages, name -> version."""
        text = self.view.read_text(DPKG_STATUS, limit=_PACKAGE_DB_LIMIT)
        return {} if text is None else {p.name: p.version for p in dpkg_status(text)}

    def python_env_of(self, path: str) -> PythonEnv | None:
        """The Python environment whose site-packages holds ``path``."""
        for env in self.python_envs:
            if path == env.site_packages or path.startswith(env.site_packages + "/"):
                return env
        return None

    def under_toolkit(self, path: str) -> bool:
        return posixpath.normpath(path).startswith("/usr/local/cuda")
