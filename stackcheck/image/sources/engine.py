"""``docker://REF``: an image held by a Docker-compatible engine (Docker, podman's API service),
through the ``docker`` SDK, which follows ``DOCKER_HOST``. Its ``save`` stream is walked once."""

from __future__ import annotations

import os
from collections.abc import Iterator

from stackcheck.image.errors import ImageError, root_cause
from stackcheck.image.source import ImageSource, LayerAnalyzer, LoadedImage, docker_archive_manifest
from stackcheck.image.sources.blobs import load_kept, walk_once

_TIMEOUT = 60
_DEFAULT_HOST = "unix:///var/run/docker.sock"  # the SDK's, without DOCKER_HOST


class EngineUnavailable(ImageError):
    """No engine answered; a bare reference then goes to the registry."""


class NotInEngine(ImageError):
    """The engine answered but does not hold the image."""


class _Chunks:
    """A file-like reader over the SDK's chunk generator."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.chunks = chunks
        self.pending = b""

    def read(self, size: int = -1, /) -> bytes:
        while size < 0 or len(self.pending) < size:
            chunk = next(self.chunks, b"")
            if not chunk:
                break
            self.pending += chunk
        if size < 0:
            size = len(self.pending)
        data, self.pending = self.pending[:size], self.pending[size:]
        return data


class EngineSource(ImageSource):
    transport = "docker"

    def __init__(self, reference: str) -> None:
        super().__init__(f"docker://{reference}")
        self.name = reference

    def load(self, analyzer: LayerAnalyzer) -> LoadedImage:
        import docker
        from docker.errors import DockerException, ImageNotFound

        host = os.environ.get("DOCKER_HOST")
        where = f"{host} (DOCKER_HOST)" if host else f"{_DEFAULT_HOST} (the default)"
        tls = ", TLS" if os.environ.get("DOCKER_TLS_VERIFY") else ""
        try:
            client = docker.from_env(timeout=_TIMEOUT)
            client.ping()
        except DockerException as exc:
            raise EngineUnavailable(
                f"no Docker-compatible engine at {where}{tls}: {root_cause(exc)}"
            ) from None
        host = host or _DEFAULT_HOST
        try:
            image = client.images.get(self.name)
            label = f"{self.reference} ({image.short_id})"
            kept = walk_once(_Chunks(iter(image.save(chunk_size=1 << 20))), label, analyzer)
        except ImageNotFound:
            raise NotInEngine(f"the engine at {host} has no image {self.name}") from None
        except DockerException as exc:
            raise ImageError(f"{self.reference}: the engine at {host} failed: {exc}") from None
        finally:
            client.close()
        return load_kept(kept, docker_archive_manifest(kept, None), analyzer)
