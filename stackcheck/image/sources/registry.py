"""``registry://REF``: an image straight from an OCI distribution registry.

HTTPS, anonymous or with the credentials ``docker login`` left in ``~/.docker/config.json``
(``auth`` entries; credential helpers are programs and are not run), through the bearer-token
flow registries answer 401 with. Plain HTTP and unverified TLS only for a loopback registry or
with ``--insecure``. Every request has a timeout.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import ssl
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from stackcheck.image.errors import ImageError, root_cause
from stackcheck.image.source import (
    INDEX_TYPES,
    MANIFEST_TYPES,
    ImageSource,
    LayerAnalyzer,
    LayerRef,
    LoadedImage,
    resolve_manifest,
)
from stackcheck.image.sources.reference import DOCKER_HUB, Reference
from stackcheck.image.stream import Readable

_TIMEOUT = 30
_ACCEPT = ", ".join((*MANIFEST_TYPES, *INDEX_TYPES))
_CHALLENGE = re.compile(r'(\w+)="([^"]*)"')
_MANIFEST_LIMIT = 4 << 20


def docker_config() -> Path | None:
    """The Docker client's config.json: in $DOCKER_CONFIG, else ~/.docker; None where neither is
    set and there is no home directory (a container user without a passwd entry)."""
    folder = os.environ.get("DOCKER_CONFIG")
    if folder:
        return Path(folder) / "config.json"
    try:
        return Path.home() / ".docker" / "config.json"
    except RuntimeError:
        return None


def docker_credentials(registry: str) -> tuple[str, str] | None:
    """(user, password) for a registry from the Docker client's config, if stored there."""
    path = docker_config()
    if path is None:
        return None
    try:
        config = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    auths = config.get("auths") or {}
    keys = [registry, f"https://{registry}", f"http://{registry}"]
    if registry == DOCKER_HUB:
        keys.append("https://index.docker.io/v1/")
    for key in keys:
        entry = auths.get(key) or auths.get(key + "/")
        if not isinstance(entry, dict):
            continue
        if entry.get("auth"):
            user, _, password = base64.b64decode(entry["auth"]).decode().partition(":")
            return user, password
        if entry.get("username") and entry.get("password"):
            return str(entry["username"]), str(entry["password"])
    return None


class RegistryClient:
    def __init__(self, reference: Reference, insecure: bool) -> None:
        self.reference = reference
        plain = insecure or reference.is_loopback
        self.schemes = ["https", "http"] if plain else ["https"]
        self.tls = ssl.create_default_context()
        if insecure:
            self.tls.check_hostname = False
            self.tls.verify_mode = ssl.CERT_NONE
        self.scheme: str | None = None
        self.authorization: str | None = None
        self.credentials = docker_credentials(reference.registry)

    def _url(self, scheme: str, path: str) -> str:
        return f"{scheme}://{self.reference.api_host}/v2/{path}"

    def _open(self, url: str, accept: str | None) -> Any:
        request = urllib.request.Request(url)
        if accept:
            request.add_header("Accept", accept)
        if self.authorization:
            # Not sent on to a redirect: blob downloads go to presigned storage URLs (S3, a
            # CDN) that reject a second credential.
            request.add_unredirected_header("Authorization", self.authorization)
        context = self.tls if url.startswith("https:") else None
        return urllib.request.urlopen(request, timeout=_TIMEOUT, context=context)

    def _unreachable(self, tried: list[str]) -> ImageError:
        """One line saying what was tried: each URL and why it failed, and the credentials."""
        config = docker_config()
        where = f" in {config}" if config is not None else " (no DOCKER_CONFIG, no home directory)"
        found = "found" if self.credentials is not None else "none"
        return ImageError(
            f"registry {self.reference.registry} unreachable: tried {'; '.join(tried)}; "
            f"credentials{where}: {found}"
        )

    def _attempt(self, url: str, reason: str) -> str:
        if url.startswith("http:"):
            how = "plain HTTP"
        else:
            how = "TLS, unverified" if self.tls.verify_mode == ssl.CERT_NONE else "TLS"
        return f"{url.split('/v2/', 1)[0]} ({how}): {reason}"

    def get(self, path: str, accept: str | None = None) -> Any:
        """A response for ``/v2/<path>``, after whatever authentication the registry asks."""
        tried: list[str] = []
        for scheme in [self.scheme] if self.scheme else self.schemes:
            url = self._url(scheme, path)
            try:
                try:
                    response = self._open(url, accept)
                except urllib.error.HTTPError as exc:
                    if exc.code != 401 or self.authorization:
                        raise
                    self.authorization = self._authorize(exc.headers.get("WWW-Authenticate", ""))
                    response = self._open(url, accept)
            except urllib.error.HTTPError as exc:
                raise ImageError(self._http_error(exc, path)) from None
            except (urllib.error.URLError, OSError) as exc:
                tried.append(self._attempt(url, root_cause(exc)))
                continue
            self.scheme = scheme
            return response
        raise self._unreachable(tried)

    def _authorize(self, challenge: str) -> str:
        scheme, _, rest = challenge.partition(" ")
        if scheme.lower() == "basic":
            if self.credentials is None:
                raise ImageError(f"registry {self.reference.registry} needs a login")
            token = base64.b64encode(":".join(self.credentials).encode()).decode()
            return f"Basic {token}"
        fields = dict(_CHALLENGE.findall(rest))
        if scheme.lower() != "bearer" or "realm" not in fields:
            raise ImageError(f"registry {self.reference.registry}: unsupported auth {challenge!r}")
        query = {"service": fields.get("service", "")}
        query["scope"] = fields.get("scope") or f"repository:{self.reference.repository}:pull"
        request = urllib.request.Request(f"{fields['realm']}?{urllib.parse.urlencode(query)}")
        if self.credentials is not None:
            basic = base64.b64encode(":".join(self.credentials).encode()).decode()
            request.add_header("Authorization", f"Basic {basic}")
        try:
            context = self.tls if request.full_url.startswith("https:") else None
            with urllib.request.urlopen(request, timeout=_TIMEOUT, context=context) as response:
                answer = json.loads(response.read(_MANIFEST_LIMIT))
        except (OSError, ValueError) as exc:
            raise ImageError(
                f"registry {self.reference.registry}: token request failed ({exc})"
            ) from None
        token = answer.get("token") or answer.get("access_token")
        if not token:
            raise ImageError(f"registry {self.reference.registry}: the token service gave none")
        return f"Bearer {token}"

    def _http_error(self, exc: urllib.error.HTTPError, path: str) -> str:
        try:
            errors = json.loads(exc.read(65536)).get("errors") or []
            detail = "; ".join(f"{e.get('code')}: {e.get('message')}" for e in errors)
        except (OSError, ValueError, AttributeError):
            detail = exc.reason
        where = f"{self.reference.registry}/{self.reference.repository}"
        if exc.code == 404 and "/blobs/" in f"/{path}":
            return f"{where}: the manifest points at a missing blob {path.rsplit('/', 1)[1]}"
        if exc.code == 404:
            return f"{where}: no image {self.reference.version} ({detail})"
        return f"{where}: HTTP {exc.code} ({detail})"

    def read(self, path: str, accept: str | None = None) -> bytes:
        with self.get(path, accept) as response:
            data: bytes = response.read(_MANIFEST_LIMIT + 1)
        if len(data) > _MANIFEST_LIMIT:
            raise ImageError(f"{self.reference}: {path} is too large for a manifest or config")
        return data


class RegistrySource(ImageSource):
    transport = "registry"

    def __init__(self, reference: Reference, platform: str, insecure: bool) -> None:
        super().__init__(f"registry://{reference}")
        self.client = RegistryClient(reference, insecure)
        self.platform = platform

    def load(self, analyzer: LayerAnalyzer) -> LoadedImage:
        reference = self.client.reference
        repository = reference.repository
        top = self.client.read(f"{repository}/manifests/{reference.version}", _ACCEPT)
        top_digest = "sha256:" + hashlib.sha256(top).hexdigest()
        if reference.digest and reference.digest != top_digest:
            raise ImageError(f"{reference}: manifest digest mismatch (got {top_digest})")

        def manifest_bytes(digest: str) -> bytes:
            if digest == top_digest:
                return top
            return self.client.read(f"{repository}/manifests/{digest}", _ACCEPT)

        manifest = resolve_manifest(
            {"digest": top_digest},
            manifest_bytes,
            lambda digest: self.client.read(f"{repository}/blobs/{digest}"),
            self.platform,
            str(reference),
        )
        # A registry serves blobs by digest and they were checked when cached: fetching them
        # again only to re-check would cost the download the cache is there to save.
        indexes = analyzer.scan_all(manifest.layers, self._open_layer, verify_cached=False)
        return LoadedImage(manifest, indexes)

    def _open_layer(self, layer: LayerRef) -> Readable:
        repository = self.client.reference.repository
        response: Readable = self.client.get(f"{repository}/blobs/{layer.digest}")
        return response
