"""``docker-archive:PATH`` and ``oci-archive:PATH``: a tar of an image, plain or compressed.

A plain tar is opened at each member's offset, so uncached layers are read in parallel and cached
ones are not read at all; a gzip or zstd archive can only be read front to back, once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from stackcheck.image.source import (
    BlobStore,
    ImageManifest,
    ImageSource,
    LayerAnalyzer,
    LoadedImage,
    docker_archive_manifest,
    oci_layout_manifest,
)
from stackcheck.image.sources.blobs import (
    TarBlobs,
    archive_key,
    kept_record,
    load_kept,
    location_of,
    recalled,
    sniff,
    walk_once,
)
from stackcheck.image.stream import LayerStream

_COMPRESSED = (b"\x1f\x8b", b"\x28\xb5\x2f\xfd")
ArchiveKind = Literal["docker-archive", "oci-archive"]


class ArchiveSource(ImageSource):
    def __init__(
        self,
        path: Path,
        kind: ArchiveKind,
        tag: str | None,
        platform: str,
    ) -> None:
        super().__init__(f"{kind}:{path}")
        self.transport = kind
        self.path = path
        self.tag = tag
        self.platform = platform

    def _manifest(self, store: BlobStore) -> ImageManifest:
        if self.transport == "docker-archive":
            return docker_archive_manifest(store, self.tag)
        return oci_layout_manifest(store, self.tag, self.platform)

    def load(self, analyzer: LayerAnalyzer) -> LoadedImage:
        if sniff(self.path).startswith(_COMPRESSED):
            # Read front to back only: a rescan skips the walk when every layer it found is
            # still cached, using what the walk kept (manifest, config) from a small record.
            # Without a cache the archive is not hashed for a key nobody would use.
            key = archive_key(self.path) if analyzer.keeps_records else None
            if key is not None:
                kept = recalled(analyzer.recall(key), str(self.path), analyzer)
                if kept is not None:
                    return load_kept(kept, self._manifest(kept), analyzer)
            with self.path.open("rb") as handle:
                kept = walk_once(LayerStream(handle, str(self.path)), str(self.path), analyzer)
            loaded = load_kept(kept, self._manifest(kept), analyzer)
            if key is not None:
                analyzer.remember(key, kept_record(kept, loaded.manifest))
            return loaded
        store = TarBlobs(self.path)
        manifest = self._manifest(store)
        indexes = analyzer.scan_all(manifest.layers, lambda layer: store.open(location_of(layer)))
        return LoadedImage(manifest, indexes)
