"""Scanning an image: layers from the source (cache first, the rest walked in parallel), merged
into one view, then the host probes over it with the image's ENV as their environment."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from stackcheck.image.cache import LayerCache
from stackcheck.image.errors import ImageError, reads_image_json
from stackcheck.image.layer import LayerIndex, scan_layer
from stackcheck.image.progress import Progress
from stackcheck.image.source import ImageManifest, ImageSource, LayerAnalyzer, LayerRef
from stackcheck.image.stream import READ_SIZE, HashingReader, LayerStream, Readable
from stackcheck.image.tree import MergedTree
from stackcheck.probes import NEEDS, ProbeContext, run_probes
from stackcheck.snapshot.model import ImageInfo, ImageLayer, Snapshot
from stackcheck.views.image import ImageView
from stackcheck.views.needs import CompiledNeeds

_LAYER_EVIDENCE = ("file", "filename", "binary", "header", "package")


@dataclass
class ScanStats:
    layers: int = 0
    from_cache: int = 0
    bytes_read: int = 0


class Analyzer(LayerAnalyzer):
    def __init__(
        self,
        needs: CompiledNeeds,
        cache: LayerCache | None,
        progress: Progress,
        workers: int | None = None,
    ) -> None:
        self.needs = needs
        self.cache = cache
        self.progress = progress
        self.workers = workers or min(4, os.cpu_count() or 1)
        self.stats = ScanStats()
        self._stop = threading.Event()

    def cached(self, digest: str) -> LayerIndex | None:
        index = self.cache.load(digest) if self.cache is not None else None
        if index is not None:
            self.stats.from_cache += 1
        return index

    @property
    def keeps_records(self) -> bool:
        return self.cache is not None

    def recall(self, key: str) -> dict[str, object] | None:
        return self.cache.load_record(key) if self.cache is not None else None

    def remember(self, key: str, record: dict[str, object]) -> None:
        if self.cache is not None:
            self.cache.store_record(key, record)

    def scan(
        self, raw: Readable, layer: LayerRef, *, measure: bool = False
    ) -> tuple[LayerIndex, str, str]:
        label = f"layer {layer.location}"
        stream = LayerStream(
            raw,
            label,
            compressed_digest=layer.blob_digest,
            diff_id=layer.diff_id,
            measure=measure,
        )
        stream.on_progress = lambda count: self._advance(count, label)
        index = scan_layer(stream, self.needs)
        blob, tar = stream.digests()
        self.stats.bytes_read += stream.source.count
        if self.cache is not None:
            for digest in dict.fromkeys(d for d in (layer.blob_digest, layer.diff_id, blob, tar)):
                if digest and (not measure or digest in (blob, tar)):
                    self.cache.store(digest, index)
        self.progress.layer_done()
        return index, blob, tar

    def _advance(self, count: int, label: str) -> None:
        if self._stop.is_set():  # another layer failed, or the user pressed Ctrl-C
            raise ImageError(f"{label}: stopped")
        self.progress.advance(count)

    def scan_all(
        self,
        layers: Sequence[LayerRef],
        open_layer: Callable[[LayerRef], Readable],
        *,
        verify_cached: bool = True,
    ) -> list[LayerIndex]:
        found: dict[int, LayerIndex] = {}
        for position, layer in enumerate(layers):
            # A layer is the same whatever its compression: its diff_id finds it too.
            index = self.cached(layer.digest) or (
                self.cached(layer.diff_id) if layer.diff_id else None
            )
            if index is not None and verify_cached and not _still_matches(layer, open_layer):
                self.stats.from_cache -= 1  # changed since it was cached: a miss
                index = None
            if index is not None:
                found[position] = index
        todo = sorted(
            (i for i in range(len(layers)) if i not in found), key=lambda i: -(layers[i].size or 0)
        )
        self.progress.start(len(todo))

        def one(position: int) -> LayerIndex:
            return self.scan(open_layer(layers[position]), layers[position])[0]

        if len(todo) <= 1 or self.workers == 1:
            for position in todo:
                found[position] = one(position)
        else:
            with ThreadPoolExecutor(self.workers) as pool:
                futures = {position: pool.submit(one, position) for position in todo}
                try:
                    for position, future in futures.items():
                        found[position] = future.result()
                except BaseException:
                    self._stop.set()  # running walks stop at their next read
                    raise
                finally:
                    for future in futures.values():
                        future.cancel()
        return [found[position] for position in range(len(layers))]


def _still_matches(layer: LayerRef, open_layer: Callable[[LayerRef], Readable]) -> bool:
    """Whether the layer's bytes still hash to its digest: the blob digest over the bytes as
    stored (no inflating), else the diff_id over the uncompressed tar."""
    try:
        raw = open_layer(layer)
        if layer.blob_digest:
            reader = HashingReader(raw, layer.location, layer.blob_digest, measure=False)
            while reader.read(READ_SIZE):
                pass
            reader.verify()
        else:
            LayerStream(raw, layer.location, diff_id=layer.diff_id).finish()
    except ImageError:
        return False
    return True


@reads_image_json
def image_env(config: dict[str, Any]) -> dict[str, str]:
    env: dict[str, str] = {}
    for item in (config.get("config") or {}).get("Env") or []:
        name, _, value = str(item).partition("=")
        env[name] = value
    return env


@reads_image_json
def _layer_steps(config: dict[str, Any], count: int) -> list[str | None]:
    """The ``created_by`` of each layer: the history entries that made a layer, in order."""
    history = [h for h in config.get("history") or [] if isinstance(h, dict)]
    steps: list[str | None] = [
        str(h.get("created_by") or "") or None for h in history if not h.get("empty_layer")
    ]
    return steps if len(steps) == count else [None] * count


@reads_image_json
def image_info(source: ImageSource, manifest: ImageManifest) -> ImageInfo:
    config = manifest.config
    inner = config.get("config") or {}

    def strings(value: object) -> list[str] | None:
        return [str(v) for v in value] if isinstance(value, list) else None

    return ImageInfo(
        reference=source.reference,
        transport=source.transport,
        manifest_digest=manifest.manifest_digest,
        config_digest=manifest.config_digest,
        os=config.get("os"),
        architecture=config.get("architecture"),
        created=config.get("created"),
        env=[str(e) for e in inner.get("Env") or []],
        labels={str(k): str(v) for k, v in (inner.get("Labels") or {}).items()},
        entrypoint=strings(inner.get("Entrypoint")),
        cmd=strings(inner.get("Cmd")),
        working_dir=inner.get("WorkingDir") or None,
        user=inner.get("User") or None,
        layers=[
            ImageLayer(
                digest=layer.digest, size=layer.size, media_type=layer.media_type, created_by=step
            )
            for layer, step in zip(
                manifest.layers, _layer_steps(config, len(manifest.layers)), strict=True
            )
        ],
    )


def _stamp_layers(snapshot: Snapshot, view: ImageView) -> None:
    """Name the layer of every file-borne piece of evidence the probes left without one."""
    for component in snapshot.components.values():
        for installation in component.installations:
            installation.evidence = [
                replace(e, layer=view.provenance(e.source))
                if e.layer is None and e.kind in _LAYER_EVIDENCE and e.source.startswith("/")
                else e
                for e in installation.evidence
            ]


def scan_image(
    source: ImageSource, cache: LayerCache | None, progress: Progress
) -> tuple[Snapshot, ScanStats]:
    analyzer = Analyzer(CompiledNeeds(NEEDS), cache, progress)
    try:
        loaded = source.load(analyzer)
    finally:
        progress.finish()
    tree = MergedTree()
    for position, index in enumerate(loaded.indexes):
        tree.apply(index, position)
    manifest = loaded.manifest
    view = ImageView(tree, source.reference, [layer.digest for layer in manifest.layers])
    ctx = ProbeContext(view=view, env=image_env(manifest.config), env_kind="image-config")
    snapshot = run_probes(ctx, "image", source.reference)
    loops = [p for p in view.problems if p.startswith("symlink loop")]
    if loops:  # a loop where probes look is a broken image, not a fact to report around
        raise ImageError(f"{source.reference}: {loops[0]}")
    _stamp_layers(snapshot, view)
    snapshot.image = image_info(source, manifest)
    # An image runs as a container: host daemons (the fabric manager) live outside it.
    snapshot.platform.container = True
    analyzer.stats.layers = len(manifest.layers)
    return snapshot, analyzer.stats
