"""Layer indexes kept between scans, keyed by layer digest, analyzer version and what the probes
declared, so a rescan of an image that shares its base reads only its new layers; and small
records (what a one-pass walk of a compressed archive kept), keyed by the archive's identity.

Files are written to a temporary name in the cache directory and renamed into place, so a
crashed or concurrent scan never leaves a half-written entry; nothing is written elsewhere.
"""

from __future__ import annotations

import json
import os
import tempfile
import zlib
from pathlib import Path

from stackcheck.image.layer import LayerIndex

# Bump when the layer walk or the index format changes what a cached index means.
ANALYZER_VERSION = "1"


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "stackcheck"


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
        try:
            data = json.loads(zlib.decompress(self._path(key, "record-").read_bytes()))
        except (OSError, ValueError, zlib.error):
            return None
        return data if isinstance(data, dict) else None

    def store_record(self, key: str, record: dict[str, object]) -> None:
        self._write(self._path(key, "record-"), record)

    def load(self, digest: str) -> LayerIndex | None:
        if not digest.startswith("sha256:"):
            return None
        try:
            data = json.loads(zlib.decompress(self._path(digest).read_bytes()))
            index = LayerIndex.from_json(data)
        except (OSError, ValueError, KeyError, TypeError, zlib.error):
            return None  # absent or unreadable: the layer is simply read again
        self.hits += 1
        return index

    def store(self, digest: str, index: LayerIndex) -> None:
        if digest.startswith("sha256:"):
            self._write(self._path(digest), index.to_json())

    def _write(self, path: Path, document: object) -> None:
        data = zlib.compress(json.dumps(document, separators=(",", ":")).encode(), 1)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".part")
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except OSError:
            return  # a cache that cannot be written only costs the next scan time
