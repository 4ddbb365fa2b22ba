"""Blob stores over a directory, a plain tar (random access) and kept bytes, plus the walk over
a tar that can only be read once (a compressed archive, an engine's ``save`` stream)."""

from __future__ import annotations

import base64
import hashlib
import io
import posixpath
import re
import tarfile
from pathlib import Path
from typing import Any, BinaryIO

from stackcheck.image.errors import ImageError
from stackcheck.image.layer import LayerIndex, clean_path
from stackcheck.image.source import (
    BlobStore,
    ImageManifest,
    LayerAnalyzer,
    LayerRef,
    LoadedImage,
    blob_path,
)
from stackcheck.image.stream import Readable
from stackcheck.limits import KEPT_MEMBER_BYTES

_SMALL = 4 << 20
_BLOCK = 512
_LINK_HOPS = 8
_DIGEST_NAME = re.compile(r"(?:^|/)(?:blobs/sha256/)?([0-9a-f]{64})(?:\.tar)?$")


def member_name(name: str, label: str) -> str:
    path = clean_path(name, label)
    return "" if path is None else path[1:]


def location_of(layer: LayerRef) -> str:
    """The blob name of a layer: a member name as given, or the blob path of a digest."""
    return blob_path(layer.location) if layer.location.startswith("sha256:") else layer.location


class DirectoryBlobs(BlobStore):
    def __init__(self, root: Path) -> None:
        self.root = root
        self.label = str(root)

    def _path(self, name: str) -> Path:
        return self.root / member_name(name, self.label)

    def has(self, name: str) -> bool:
        return self._path(name).is_file()

    def open(self, name: str) -> Readable:
        if not self.has(name):
            raise ImageError(f"{self.label}: {name} is missing (the manifest points at it)")
        try:
            return self._path(name).open("rb")
        except OSError as exc:
            raise ImageError(f"{self.label}: cannot open {name}: {exc.strerror}") from None


class _Slice:
    """A member's bytes inside a plain tar, read through a handle of its own."""

    def __init__(self, path: Path, offset: int, size: int) -> None:
        self.handle: BinaryIO = path.open("rb")
        self.handle.seek(offset)
        self.left = size

    def read(self, size: int = 1 << 20, /) -> bytes:
        data = self.handle.read(min(size, self.left))
        self.left -= len(data)
        if not data:
            self.handle.close()
        return data


class TarBlobs(BlobStore):
    """Members of a plain tar on disk, opened at their offsets in any order."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.label = str(path)
        try:
            with tarfile.open(path, "r:") as tar:
                members = tar.getmembers()
        except (tarfile.TarError, EOFError) as exc:
            raise ImageError(f"{path}: not an image archive ({exc})") from None
        self.members = {member_name(m.name, self.label): m for m in members}

    def _resolve(self, name: str) -> tarfile.TarInfo | None:
        for _ in range(_LINK_HOPS):
            member = self.members.get(name)
            if member is None or not (member.issym() or member.islnk()):
                return member
            name = link_target(name, member)
        raise ImageError(f"{self.label}: {name}: too many links")

    def has(self, name: str) -> bool:
        member = self._resolve(member_name(name, self.label))
        return member is not None and member.isfile()

    def open(self, name: str) -> Readable:
        member = self._resolve(member_name(name, self.label))
        if member is None or not member.isfile():
            raise ImageError(f"{self.label}: {name} is missing from the archive")
        return _Slice(self.path, member.offset_data, member.size)


def link_target(name: str, member: tarfile.TarInfo) -> str:
    if member.issym():
        return posixpath.normpath(posixpath.join(posixpath.dirname(name), member.linkname))
    return posixpath.normpath(member.linkname.lstrip("./") if member.linkname else "")


class KeptBlobs(BlobStore):
    """The small members kept while a one-pass tar went by, with its links."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.data: dict[str, bytes] = {}
        self.links: dict[str, str] = {}
        self.scanned: dict[str, tuple[LayerIndex, set[str]]] = {}  # with the digests measured
        self.failed: dict[str, str] = {}  # small members that were not layers: why
        self.kept_bytes = 0

    def resolve(self, name: str) -> str:
        for _ in range(_LINK_HOPS):
            if name not in self.links:
                return name
            name = self.links[name]
        raise ImageError(f"{self.label}: {name}: too many links")

    def keep(self, name: str, data: bytes) -> None:
        self.kept_bytes += len(data)
        if self.kept_bytes > KEPT_MEMBER_BYTES:
            raise ImageError(
                f"{self.label}: more than {KEPT_MEMBER_BYTES >> 20} MiB of JSON members "
                "(manifests and configs are a few KB); refusing it"
            )
        self.data[name] = data

    def has(self, name: str) -> bool:
        resolved = self.resolve(member_name(name, self.label))
        return resolved in self.data or resolved in self.scanned

    def open(self, name: str) -> Readable:
        resolved = self.resolve(member_name(name, self.label))
        if resolved not in self.data:
            raise ImageError(f"{self.label}: {name} is missing from the archive")
        return io.BytesIO(self.data[resolved])


def walk_once(raw: Readable, label: str, analyzer: LayerAnalyzer) -> KeptBlobs:
    """Read a tar that cannot be re-read: keep small members, walk every large one as a layer."""
    kept = KeptBlobs(label)
    try:
        # Reads of 1 MiB: the default 10 KiB makes each inflate call too small to be fast.
        with tarfile.open(fileobj=raw, mode="r|", bufsize=1 << 20) as tar:  # type: ignore[call-overload]
            for member in tar:
                name = member_name(member.name, label)
                if member.issym() or member.islnk():
                    kept.links[name] = link_target(name, member)
                    continue
                if not member.isfile():
                    continue
                handle = tar.extractfile(member)
                assert handle is not None
                head = handle.peek(_BLOCK)[:_BLOCK]
                if member.size <= _SMALL and head.lstrip()[:1] in (b"{", b"["):
                    kept.keep(name, handle.read())  # a manifest, an index or a config
                    continue
                if member.size <= _SMALL and not _may_be_layer(head):
                    kept.failed[name] = f"{label}: {name} is not a layer (not a tar, gzip or zstd)"
                    continue
                # Anything else may be a layer: walked as it passes, never held whole.
                match = _DIGEST_NAME.search(name)
                hint = f"sha256:{match.group(1)}" if match else None
                cached = analyzer.cached(hint) if hint else None
                if cached is not None and hint is not None:
                    # Served only if the bytes going by still hash to the name it was kept by.
                    if _sha256_of(handle) == hint:
                        kept.scanned[name] = (cached, {hint})
                    else:
                        kept.failed[name] = f"{label}: {name}: digest mismatch (not {hint})"
                    continue
                layer = LayerRef(digest=hint or name, location=name)
                try:
                    index, blob, tar_digest = analyzer.scan(handle, layer, measure=True)
                except ImageError as exc:
                    if member.size > _SMALL:
                        raise
                    kept.failed[name] = str(exc)  # an error only if the manifest names it
                    continue
                kept.scanned[name] = (index, {blob, tar_digest})
    except (tarfile.TarError, EOFError) as exc:
        raise ImageError(f"{label}: not a readable image archive ({exc})") from None
    return kept


def _may_be_layer(head: bytes) -> bool:
    """Whether a member's first bytes can start a layer: compressed, or a tar header (whose
    checksum field adds up), or empty."""
    if head.startswith((b"\x1f\x8b", b"\x28\xb5\x2f\xfd")) or not head.strip(b"\x00"):
        return True
    if len(head) < _BLOCK:
        return False
    try:
        stored = int(head[148:156].split(b"\x00", 1)[0].strip() or b"-1", 8)
    except ValueError:
        return False
    return stored == sum(head) - sum(head[148:156]) + 256


def _sha256_of(handle: Readable) -> str:
    sha = hashlib.sha256()
    while data := handle.read(1 << 20):
        sha.update(data)
    return "sha256:" + sha.hexdigest()


def archive_key(path: Path) -> str:
    """An archive's identity for the cache: the SHA-256 of all its bytes. Hashing runs at disk
    speed, several times faster than inflating and walking the archive; a sample of it (size,
    first and last MiB) would trust a gzip trailer's CRC-32, which anyone can forge."""
    try:
        with path.open("rb") as handle:
            return _sha256_of(handle)
    except OSError as exc:
        raise ImageError(f"{path}: cannot read: {exc.strerror}") from None


def kept_record(kept: KeptBlobs, manifest: ImageManifest) -> dict[str, object]:
    """What a rescan needs instead of the walk: the small members that are not layers (the
    manifest, the config), the links, and the digests each walked layer is cached under."""
    layers = {
        kept.resolve(member_name(location_of(layer), kept.label)) for layer in manifest.layers
    }
    return {
        "data": {n: base64.b64encode(d).decode() for n, d in kept.data.items() if n not in layers},
        "links": kept.links,
        "scanned": {n: sorted(measured) for n, (_, measured) in kept.scanned.items()},
        "small_layers": {
            n: layer.digest
            for layer in manifest.layers
            if (n := kept.resolve(member_name(location_of(layer), kept.label))) in kept.data
        },
    }


def recalled(
    record: dict[str, Any] | None, label: str, analyzer: LayerAnalyzer
) -> KeptBlobs | None:
    """The walk's result rebuilt from a record and the layer cache; None when any layer's index
    is gone from the cache (the archive is then walked again)."""
    if record is None:
        return None
    kept = KeptBlobs(label)
    try:
        kept.data = {n: base64.b64decode(d) for n, d in record["data"].items()}
        kept.links = dict(record["links"])
        walked = {**record["scanned"], **{n: [d] for n, d in record["small_layers"].items()}}
        for name, digests in walked.items():
            index = next(filter(None, (analyzer.cached(d) for d in digests)), None)
            if index is None:
                return None
            kept.scanned[name] = (index, set(digests))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # a record of another shape: walk again
    return kept


def load_kept(kept: KeptBlobs, manifest: ImageManifest, analyzer: LayerAnalyzer) -> LoadedImage:
    """Match a one-pass walk's layers to the manifest, checking the digests it measured."""
    indexes = []
    for layer in manifest.layers:
        name = kept.resolve(member_name(location_of(layer), kept.label))
        if name in kept.scanned:
            index, measured = kept.scanned[name]
            if not {layer.blob_digest, layer.diff_id} & measured:
                raise ImageError(
                    f"{kept.label}: {name}: digest mismatch: expected {layer.digest}, "
                    f"got {', '.join(sorted(measured))}"
                )
            indexes.append(index)
        elif name in kept.failed:
            raise ImageError(kept.failed[name])
        elif name in kept.data:
            indexes.append(
                analyzer.cached(layer.digest)
                or analyzer.scan(io.BytesIO(kept.data[name]), layer)[0]
            )
        else:
            raise ImageError(f"{kept.label}: layer {location_of(layer)} is missing")
    return LoadedImage(manifest, indexes)


def sniff(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(4)
    except OSError as exc:
        raise ImageError(f"{path}: cannot read: {exc.strerror}") from None
