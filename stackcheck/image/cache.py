"""Layer indexes kept between scans, keyed by layer digest, analyzer version and what the probes
declared, so a rescan of an image that shares its base reads only its new layers; and small
records (what a one-pass walk of a compressed archive kept), keyed by the archive's identity.

Files are written to a temporary name in the cache directory and renamed into place, so a
crashed or concurrent scan never leaves a half-written entry; nothing is written elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from contextlib import suppress
from pathlib import Path

from stackcheck.atomic import write_atomically
from stackcheck.cachedir import prune, read_own
from stackcheck.image.layer import LayerIndex
from stackcheck.limits import CACHE_ENTRY_BYTES

__all__ = ["LayerCache"]

# Bump when the layer walk or the index format changes what a cached index means.
ANALYZER_VERSION = "2"  # 2: entries carry the SHA-256 of their own payload
# The newest entries kept, and for how long: a DLC image has ~100 layers, so about forty images.
ENTRIES, ENTRY_AGE_S = 4096, 30 * 86400


_UNREADABLE = (
    OSError,
    ValueError,
    LookupError,
    TypeError,
    AttributeError,
    RecursionError,
    zlib.error,
)


class LayerCache:
    def __init__(self, directory: Path, fingerprint: str) -> None:
        self.directory = directory / "layers"
        self.fingerprint = fingerprint
        self.hits = 0

    def _path(self, digest: str, kind: str = "") -> Path:
        algorithm, _, hex_digest = digest.partition(":")
        name = f"{kind}{algorithm}-{hex_digest}-v{ANALYZER_VERSION}-{self.fingerprint}.json.z"
        return self.directory / name

    def load_record(self, key: str) -> dict[str, object] | None:
        """A record stored under KEY ("sha256:..."), or None."""
        data = self._read(self._path(key, "record-"))
        return data if isinstance(data, dict) else None

    def store_record(self, key: str, record: dict[str, object]) -> None:
        self._write(self._path(key, "record-"), record)

    def load(self, digest: str) -> LayerIndex | None:
        if not digest.startswith("sha256:"):
            return None
        path = self._path(digest)
        document = self._read(path)
        if not isinstance(document, dict):
            return None
        try:
            index = LayerIndex.from_json(document)
        except _UNREADABLE:
            return None  # of another shape: the layer is simply read again
        with suppress(OSError):
            os.utime(path)  # recently used: pruned last
        self.hits += 1
        return index

    def store(self, digest: str, index: LayerIndex) -> None:
        if digest.startswith("sha256:"):
            self._write(self._path(digest), index.to_json())

    @staticmethod
    def _read(path: Path) -> object | None:
        """The JSON document of an entry, bounded in size, or None when it is absent, unreadable,
        or no longer matches the SHA-256 of its payload written with it."""
        stored = read_own(path, CACHE_ENTRY_BYTES)  # someone else's file is never trusted
        if stored is None:
            return None
        try:
            inflater = zlib.decompressobj()
            payload = inflater.decompress(stored, CACHE_ENTRY_BYTES)
            if inflater.unconsumed_tail or len(payload) < 32:
                return None
            if hashlib.sha256(payload[32:]).digest() != payload[:32]:
                return None  # changed or damaged since written: a miss, never a result
            document: object = json.loads(payload[32:])
        except _UNREADABLE:
            return None
        return document

    def _write(self, path: Path, document: object) -> None:
        body = json.dumps(document, separators=(",", ":")).encode()
        data = zlib.compress(hashlib.sha256(body).digest() + body, 1)
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomically(path, data)
            prune(self.directory, "*.json.z", ENTRIES, ENTRY_AGE_S)
        except OSError:
            return  # a cache that cannot be written only costs the next scan time
