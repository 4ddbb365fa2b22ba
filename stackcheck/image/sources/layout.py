"""``oci:PATH``: an OCI image layout directory (``oci-layout``, ``index.json``, ``blobs/``)."""

from __future__ import annotations

from pathlib import Path

from stackcheck.image.errors import ImageError
from stackcheck.image.source import ImageSource, LayerAnalyzer, LoadedImage, oci_layout_manifest
from stackcheck.image.sources.blobs import DirectoryBlobs, location_of


class LayoutSource(ImageSource):
    transport = "oci"

    def __init__(self, path: Path, tag: str | None, platform: str) -> None:
        super().__init__(f"oci:{path}")
        if not path.is_dir():
            raise ImageError(f"{path}: not a directory (an OCI layout is one)")
        self.store = DirectoryBlobs(path)
        self.tag = tag
        self.platform = platform

    def load(self, analyzer: LayerAnalyzer) -> LoadedImage:
        manifest = oci_layout_manifest(self.store, self.tag, self.platform)
        indexes = analyzer.scan_all(
            manifest.layers, lambda layer: self.store.open(location_of(layer))
        )
        return LoadedImage(manifest, indexes)
