"""From the IMAGE argument to a source: ``docker-archive:``, ``oci-archive:``, ``oci:``,
``docker://``, ``registry://``, a path, or a bare reference (engine, then registry)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from stackcheck.image.errors import ImageError
from stackcheck.image.identity import path_and_tag, split_transport
from stackcheck.image.source import ImageSource, LayerAnalyzer, LoadedImage
from stackcheck.image.sources.archive import ArchiveKind, ArchiveSource
from stackcheck.image.sources.blobs import sniff
from stackcheck.image.sources.engine import EngineSource, EngineUnavailable, NotInEngine
from stackcheck.image.sources.layout import LayoutSource
from stackcheck.image.sources.reference import parse_reference
from stackcheck.inputs import check_regular

if TYPE_CHECKING:
    from stackcheck.image.sources.registry import RegistrySource


def _existing(path: Path, what: str) -> Path:
    if not path.exists():
        raise ImageError(f"{what}: {path} does not exist")
    return path


class FallbackSource(ImageSource):
    """A bare reference: the local engine if it has the image, else the registry."""

    transport = "docker"

    def __init__(self, engine: EngineSource, registry: RegistrySource) -> None:
        super().__init__(engine.reference)
        self.engine = engine
        self.registry = registry

    def load(self, analyzer: LayerAnalyzer) -> LoadedImage:
        try:
            loaded = self.engine.load(analyzer)
        except (EngineUnavailable, NotInEngine) as engine_error:
            try:
                loaded = self.registry.load(analyzer)
            except ImageError as registry_error:
                raise ImageError(f"{engine_error}; {registry_error}") from None
            self.reference, self.transport = self.registry.reference, self.registry.transport
        return loaded


def open_source(text: str, platform: str, insecure: bool) -> ImageSource:
    transport, rest = split_transport(text)
    if transport == "docker-archive" or transport == "oci-archive":
        path, tag = path_and_tag(rest)
        check_regular(_existing(path, text), "image archive")  # a FIFO would block
        return ArchiveSource(path, transport, tag, platform)
    if transport == "oci":
        path, tag = path_and_tag(rest)
        return LayoutSource(_existing(path, text), tag, platform)
    from stackcheck.image.sources.registry import RegistrySource  # urllib, ssl: only if needed

    if transport == "registry":
        return RegistrySource(parse_reference(rest), platform, insecure)
    if transport is None and Path(text).exists():
        return _from_path(Path(text), platform)
    reference = parse_reference(rest)  # docker:// or a bare reference: engine, then registry
    return FallbackSource(EngineSource(rest), RegistrySource(reference, platform, insecure))


def _from_path(path: Path, platform: str) -> ImageSource:
    """A path with no transport: an OCI layout directory, or an archive of either kind."""
    if path.is_dir():
        return LayoutSource(path, None, platform)
    check_regular(path, "image archive")
    import tarfile

    if sniff(path).startswith((b"\x1f\x8b", b"\x28\xb5\x2f\xfd")):
        return ArchiveSource(path, "docker-archive", None, platform)
    try:
        with tarfile.open(path, "r:") as tar:
            names = {m.name.lstrip("./") for m in tar.getmembers()}
    except (tarfile.TarError, OSError) as exc:
        raise ImageError(f"{path}: not an image archive ({exc})") from None
    kind: ArchiveKind = "docker-archive" if "manifest.json" in names else "oci-archive"
    return ArchiveSource(path, kind, None, platform)
