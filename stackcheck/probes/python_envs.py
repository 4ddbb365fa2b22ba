"""Finding the Python environments of a tree without running any Python in it.

Looks where DLAMIs, DLCs, NGC images and people put them: the system interpreters, conda under
``/opt/conda`` (and its envs), venvs under ``/opt`` (a DLAMI's ``/opt/pytorch``), user sites, and
``VIRTUAL_ENV`` / ``CONDA_PREFIX`` from the environment.
"""

from __future__ import annotations

import posixpath
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from stackcheck.views.base import FileView

SITE_PATTERNS = (
    "/usr/lib/python3*/site-packages",
    "/usr/lib/python3*/dist-packages",
    "/usr/lib/python3/dist-packages",
    "/usr/lib64/python3*/site-packages",
    "/usr/local/lib/python3*/site-packages",
    "/usr/local/lib/python3*/dist-packages",
    "/opt/conda/lib/python3*/site-packages",
    "/opt/conda/envs/*/lib/python3*/site-packages",
    "/opt/*/lib/python3*/site-packages",
    "/opt/*/*/lib/python3*/site-packages",
    "/root/.local/lib/python3*/site-packages",
    "/root/*/lib/python3*/site-packages",
    "/root/*/envs/*/lib/python3*/site-packages",
    "/home/*/.local/lib/python3*/site-packages",
    "/home/*/*/lib/python3*/site-packages",
    "/home/*/*/envs/*/lib/python3*/site-packages",
)
_PYTHON_DIR = re.compile(r"/lib(?:64)?/(python3\.?\d*)/")
_DIST_INFO = re.compile(r"^(?P<name>.+?)-(?P<version>[^-]+)\.(?:dist-info|egg-info)$")


@dataclass(frozen=True)
class Distribution:
    name: str  # normalized: lower case, "_" and "." as "-"
    version: str
    record_dir: str  # the .dist-info directory


@dataclass
class PythonEnv:
    site_packages: str
    prefix: str
    python: str | None  # "python3.11"
    kind: Literal["system", "venv", "conda"]
    view: FileView

    @cached_property
    def distributions(self) -> dict[str, Distribution]:
        """Installed distributions by normalized name, from their dist-info directory names."""
        found: dict[str, Distribution] = {}
        for entry in self.view.listdir(self.site_packages):
            match = _DIST_INFO.match(entry)
            if match:
                name = normalize(match.group("name"))
                found[name] = Distribution(
                    name, match.group("version"), posixpath.join(self.site_packages, entry)
                )
        return found

    def distribution(self, name: str) -> Distribution | None:
        return self.distributions.get(normalize(name))

    def label(self) -> str:
        return f"{self.kind} {self.prefix}"


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def find_python_envs(
    view: FileView, env: Mapping[str, str], include_running: bool
) -> list[PythonEnv]:
    patterns = list(SITE_PATTERNS)
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        prefix = env.get(variable)
        if prefix and prefix.startswith("/"):
            patterns.append(posixpath.join(prefix, "lib/python3*/site-packages"))
    if include_running:
        patterns.extend(
            p
            for p in sys.path
            if p.startswith("/") and p.endswith(("site-packages", "dist-packages"))
        )
    found: dict[str, PythonEnv] = {}
    for pattern in patterns:
        for site in view.glob(pattern):
            real = view.resolve(site)
            if real is None or real in found or not view.is_dir(real):
                continue
            found[real] = _describe(view, real)
    return list(found.values())


def _describe(view: FileView, site: str) -> PythonEnv:
    match = _PYTHON_DIR.search(site + "/")
    python = match.group(1) if match else None
    prefix = site[: match.start()] if match else posixpath.dirname(site)
    prefix = prefix or "/"
    kind: Literal["system", "venv", "conda"] = "system"
    if view.is_dir(posixpath.join(prefix, "conda-meta")):
        kind = "conda"
    elif view.is_file(posixpath.join(prefix, "pyvenv.cfg")):
        kind = "venv"
    return PythonEnv(site_packages=site, prefix=prefix, python=python, kind=kind, view=view)
