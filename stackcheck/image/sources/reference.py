"""Image references as Docker spells them: ``[registry/]repository[:tag][@digest]``."""

from __future__ import annotations

import re
from dataclasses import dataclass

from stackcheck.image.errors import ImageError

DOCKER_HUB = "docker.io"
DOCKER_HUB_API = "registry-1.docker.io"
_REPOSITORY = re.compile(r"[a-z0-9]+(?:[._-]+[a-z0-9]+)*(?:/[a-z0-9]+(?:[._-]+[a-z0-9]+)*)*")
LOOPBACK = ("127.0.0.1", "localhost", "[::1]", "::1")


@dataclass(frozen=True)
class Reference:
    registry: str  # host[:port] as written, docker.io for Docker Hub
    repository: str
    tag: str | None
    digest: str | None

    @property
    def api_host(self) -> str:
        return DOCKER_HUB_API if self.registry == DOCKER_HUB else self.registry

    @property
    def version(self) -> str:
        """What to ask the registry's manifest endpoint for."""
        return self.digest or self.tag or "latest"

    @property
    def is_loopback(self) -> bool:
        host = self.registry.rsplit(":", 1)[0] if not self.registry.startswith("[") else ""
        return self.registry.startswith("[::1]") or host in LOOPBACK

    def __str__(self) -> str:
        text = f"{self.registry}/{self.repository}"
        if self.tag:
            text += f":{self.tag}"
        if self.digest:
            text += f"@{self.digest}"
        return text


def parse_reference(text: str) -> Reference:
    name, _, digest = text.partition("@")
    if digest and not digest.startswith("sha256:"):
        raise ImageError(f"{text}: only sha256 digests are supported")
    tag = None
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = name.rsplit(":", 1)
    parts = name.split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        registry, repository = parts[0], "/".join(parts[1:])
    else:
        registry, repository = DOCKER_HUB, name
        if len(parts) == 1:
            repository = f"library/{name}"
    if (
        not repository
        or any(not p for p in repository.split("/"))
        or repository != repository.lower()
    ):
        raise ImageError(f"{text}: not an image reference")
    return Reference(registry, repository, tag or (None if digest else "latest"), digest or None)
