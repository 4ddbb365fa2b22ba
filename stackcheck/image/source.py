"""The image-source interface, and the two manifest formats every source speaks.

A source yields the image's config and its layers in order. Sources that can open any blob at
any time (an OCI layout, a plain tar, a registry) give a manifest and open layers on demand, so
uncached layers are read in parallel; sources that arrive as one stream (an engine's ``save``, a
compressed archive) walk it once and hand each layer to the analyzer as it passes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from stackcheck.errors import StackcheckError
from stackcheck.image.errors import ImageError, reads_image_json
from stackcheck.image.layer import LayerIndex
from stackcheck.image.stream import Readable
from stackcheck.inputs import load_json

INDEX_TYPES = (
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
)
MANIFEST_TYPES = (
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
)
_SMALL = 4 << 20  # manifests and configs; anything larger is not one


@dataclass(frozen=True)
class LayerRef:
    digest: str  # what names the layer: its blob digest, or its diff_id in a docker-archive
    location: str  # where the source finds it: a member name, a blob path, a digest
    size: int | None = None
    media_type: str | None = None
    blob_digest: str | None = None  # checked over the bytes as stored
    diff_id: str | None = None  # checked over the uncompressed tar


@dataclass
class ImageManifest:
    config: dict[str, Any]
    layers: list[LayerRef]
    config_digest: str | None = None
    manifest_digest: str | None = None
    media_type: str | None = None


@dataclass
class LoadedImage:
    manifest: ImageManifest
    indexes: list[LayerIndex] = field(default_factory=list)


class LayerAnalyzer(ABC):
    """What a source calls to turn layers into indexes: the cache, the walk, the parallelism."""

    @abstractmethod
    def cached(self, digest: str) -> LayerIndex | None: ...

    @abstractmethod
    def scan(
        self, raw: Readable, layer: LayerRef, *, measure: bool = False
    ) -> tuple[LayerIndex, str, str]:
        """Walk one layer; returns the index and the (blob, tar) digests it measured."""

    @abstractmethod
    def scan_all(
        self,
        layers: Sequence[LayerRef],
        open_layer: Callable[[LayerRef], Readable],
        *,
        verify_cached: bool = True,
    ) -> list[LayerIndex]:
        """Every layer's index, in order: cached ones from the cache, the rest in parallel.

        With ``verify_cached`` a cached index is served only after the layer's bytes are hashed
        again and still match its digest (files can change under a cache); else it is a miss."""

    @property
    @abstractmethod
    def keeps_records(self) -> bool:
        """Whether records are kept between scans (a cache): else a source need not work out
        the key it would keep one under."""

    @abstractmethod
    def recall(self, key: str) -> dict[str, object] | None:
        """A record a source remembered under KEY in an earlier scan (no cache: None)."""

    @abstractmethod
    def remember(self, key: str, record: dict[str, object]) -> None:
        """Keep RECORD under KEY for later scans, where there is a cache."""


class ImageSource(ABC):
    transport: str

    def __init__(self, reference: str) -> None:
        self.reference = reference

    @abstractmethod
    def load(self, analyzer: LayerAnalyzer) -> LoadedImage:
        """The manifest and every layer's index, each layer read at most once."""


# -- the two formats -------------------------------------------------------------------------


def parse_json(data: bytes, what: str) -> dict[str, Any]:
    try:
        value = load_json(data, what)
    except StackcheckError as exc:
        raise ImageError(str(exc)) from None
    if not isinstance(value, dict):
        raise ImageError(f"{what} is not a JSON object")
    return value


def parse_platform(text: str) -> tuple[str, str, str | None]:
    parts = text.split("/")
    if len(parts) not in (2, 3) or not all(parts):
        raise ImageError(f"--platform {text!r}: expected OS/ARCH[/VARIANT], e.g. linux/amd64")
    return parts[0], parts[1], parts[2] if len(parts) == 3 else None


@reads_image_json
def select_from_index(index: dict[str, Any], platform: str, what: str) -> dict[str, Any]:
    """The manifest descriptor of an index that matches ``platform`` (os/arch[/variant])."""
    wanted_os, wanted_arch, wanted_variant = parse_platform(platform)
    offered = []
    for descriptor in index.get("manifests") or []:
        found = descriptor.get("platform") or {}
        offered.append("/".join(p for p in (found.get("os"), found.get("architecture")) if p))
        if (
            found.get("os") == wanted_os
            and found.get("architecture") == wanted_arch
            and (wanted_variant is None or found.get("variant") == wanted_variant)
        ):
            return dict(descriptor)
    shown = ", ".join(o for o in offered if o) or "none"
    raise ImageError(f"{what}: no manifest for platform {platform} (offered: {shown})")


@reads_image_json
def layers_of(manifest: dict[str, Any], config: dict[str, Any], what: str) -> list[LayerRef]:
    """LayerRefs of an OCI or Docker v2 manifest, with the config's diff_ids beside them."""
    descriptors = manifest.get("layers")
    if not isinstance(descriptors, list):
        raise ImageError(f"{what}: manifest has no layers")
    diff_ids = (config.get("rootfs") or {}).get("diff_ids") or []
    layers = []
    for position, descriptor in enumerate(descriptors):
        digest = descriptor.get("digest")
        if not isinstance(digest, str) or not digest.startswith("sha256:"):
            raise ImageError(f"{what}: layer {position} has no sha256 digest")
        layers.append(
            LayerRef(
                digest=digest,
                location=digest,
                size=descriptor.get("size"),
                media_type=descriptor.get("mediaType"),
                blob_digest=digest,
                diff_id=diff_ids[position] if position < len(diff_ids) else None,
            )
        )
    return layers


class BlobStore(ABC):
    """Named blobs of a layout: files of a directory or members of a tar."""

    label: str

    @abstractmethod
    def has(self, name: str) -> bool: ...

    @abstractmethod
    def open(self, name: str) -> Readable: ...

    def read(self, name: str) -> bytes:
        if not self.has(name):
            raise ImageError(f"{self.label}: {name} is missing")
        data = self.open(name).read(_SMALL + 1)
        if len(data) > _SMALL:
            raise ImageError(f"{self.label}: {name} is too large for a manifest or config")
        return data


def blob_path(digest: str) -> str:
    algorithm, _, hex_digest = digest.partition(":")
    return f"blobs/{algorithm}/{hex_digest}"


def verified(data: bytes, digest: str | None, what: str) -> bytes:
    import hashlib

    if digest is not None and "sha256:" + hashlib.sha256(data).hexdigest() != digest:
        raise ImageError(f"{what}: digest mismatch for {digest}")
    return data


@reads_image_json
def docker_archive_manifest(store: BlobStore, tag: str | None) -> ImageManifest:
    """``manifest.json`` of ``docker save`` (legacy and Docker >= 25's OCI-style alike)."""
    if not store.has("manifest.json"):
        what = "an OCI image (use oci-archive:)" if store.has("index.json") else "not an image"
        raise ImageError(f"{store.label}: no manifest.json: {what}")
    entries = load_json(store.read("manifest.json") or b"null", f"{store.label}: manifest.json")
    if not isinstance(entries, list) or not entries:
        raise ImageError(f"{store.label}: manifest.json lists no image")
    entry = entries[0]
    if tag is not None:
        tagged = [e for e in entries if tag in (e.get("RepoTags") or [])]
        if not tagged:
            raise ImageError(f"{store.label}: no image tagged {tag}")
        entry = tagged[0]
    config_name = entry.get("Config")
    if not isinstance(config_name, str):
        raise ImageError(f"{store.label}: manifest.json names no config")
    config_digest = None
    if config_name.startswith("blobs/sha256/"):
        config_digest = "sha256:" + config_name.rsplit("/", 1)[1]
    config = parse_json(
        verified(store.read(config_name), config_digest, store.label),
        f"{store.label}: {config_name}",
    )
    diff_ids = (config.get("rootfs") or {}).get("diff_ids") or []
    names = entry.get("Layers") or []
    if len(names) != len(diff_ids):
        raise ImageError(
            f"{store.label}: manifest.json lists {len(names)} layers, the config {len(diff_ids)}"
        )
    layers = []
    for name, diff_id in zip(names, diff_ids, strict=True):
        if not store.has(name):
            raise ImageError(f"{store.label}: layer {name} is missing from the archive")
        layers.append(LayerRef(digest=diff_id, location=name, diff_id=diff_id))
    return ImageManifest(config=config, layers=layers, config_digest=config_digest)


@reads_image_json
def oci_layout_manifest(store: BlobStore, tag: str | None, platform: str) -> ImageManifest:
    """``index.json`` of an OCI image layout, down to one platform's manifest."""
    if not store.has("index.json"):
        what = "a docker-archive (use docker-archive:)" if store.has("manifest.json") else ""
        raise ImageError(f"{store.label}: no index.json: not an OCI layout {what}".rstrip())
    index = parse_json(store.read("index.json"), f"{store.label}: index.json")
    descriptors = index.get("manifests") or []
    if tag is not None:
        descriptors = [
            d
            for d in descriptors
            if (d.get("annotations") or {}).get("org.opencontainers.image.ref.name") == tag
        ]
        if not descriptors:
            raise ImageError(f"{store.label}: no image named {tag} in index.json")
    if not descriptors:
        raise ImageError(f"{store.label}: index.json lists no image")
    descriptor = descriptors[0]
    if len(descriptors) > 1 and any("platform" in d for d in descriptors):
        descriptor = select_from_index({"manifests": descriptors}, platform, store.label)

    def read(digest: str) -> bytes:
        return store.read(blob_path(digest))

    return resolve_manifest(descriptor, read, read, platform, store.label)


@reads_image_json
def resolve_manifest(
    descriptor: dict[str, Any],
    fetch_manifest: Callable[[str], bytes],
    fetch_blob: Callable[[str], bytes],
    platform: str,
    what: str,
) -> ImageManifest:
    """Follow a descriptor through nested indexes to a manifest, then read its config."""
    for _ in range(4):  # an index of indexes, at most this deep
        digest = descriptor.get("digest")
        if not isinstance(digest, str):
            raise ImageError(f"{what}: a manifest descriptor has no digest")
        document = parse_json(verified(fetch_manifest(digest), digest, what), f"{what}: {digest}")
        media_type = document.get("mediaType") or descriptor.get("mediaType")
        if media_type in INDEX_TYPES or "manifests" in document:
            descriptor = select_from_index(document, platform, what)
            continue
        config_descriptor = document.get("config") or {}
        config_digest = config_descriptor.get("digest")
        if not isinstance(config_digest, str):
            raise ImageError(f"{what}: manifest {digest} has no config")
        config = parse_json(
            verified(fetch_blob(config_digest), config_digest, what), f"{what}: config"
        )
        return ImageManifest(
            config=config,
            layers=layers_of(document, config, what),
            config_digest=config_digest,
            manifest_digest=digest,
            media_type=media_type,
        )
    raise ImageError(f"{what}: indexes nested too deep")
