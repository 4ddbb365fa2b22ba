"""Layer indexes kept between scans, keyed by layer digest, analyzer version and what the probes
declared, so a rescan of an image that shares its base reads only its new layers.

Files are written to a temporary name in the cache directory and renamed into place, so a
crashed or concurrent scan never leaves a half-written entry; nothing is written elsewhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zlib
from pathlib import Path

from stackcheck.image.layer import LayerIndex
from stackcheck.limits import CACHE_ENTRY_BYTES

# Bump when the layer walk or the index format changes what a cached index means.
ANALYZER_VERSION = "2"  # 2: entries carry the SHA-256 of their own payload


_UNREADABLE = (
    OSError,
    ValueError,
    LookupError,
    TypeError,
    AttributeError,
    RecursionError,
    zlib.error,
)


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "stackcheck"


class LayerCache:
    def __init__(self, directory: Path, fingerprint: str) -> None:
        self.directory = directory / "layers"
        self.fingerprint = fingerprint
        self.hits = 0

    def _path(self, digest: str) -> Path:
        algorithm, _, hex_digest = digest.partition(":")
        name = f"{algorithm}-{hex_digest}-v{ANALYZER_VERSION}-{self.fingerprint}.json.z"
        return self.directory / name

    def load(self, digest: str) -> LayerIndex | None:
        if not digest.startswith("sha256:"):
            return None
        try:
            stored = self._path(digest).read_bytes()
            inflater = zlib.decompressobj()
            payload = inflater.decompress(stored, CACHE_ENTRY_BYTES)
            if inflater.unconsumed_tail or len(payload) < 32:
                return None
            if hashlib.sha256(payload[32:]).digest() != payload[:32]:
                return None  # changed or damaged since written: a miss, never a result
            index = LayerIndex.from_json(json.loads(payload[32:]))
        except (
            OSError,
            ValueError,
            KeyError,
            TypeError,
            AttributeError,
            RecursionError,
            zlib.error,
        ):
            return None  # absent or unreadable: the layer is simply read again
        self.hits += 1
        return index

    def store(self, digest: str, index: LayerIndex) -> None:
        if not digest.startswith("sha256:"):
            return
        body = json.dumps(index.to_json(), separators=(",", ":")).encode()
        data = zlib.compress(hashlib.sha256(body).digest() + body, 1)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".part")
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, self._path(digest))
        except OSError:
            return  # a cache that cannot be written only costs the next scan time
