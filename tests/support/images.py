"""Real container images for tests: layer tars written from real file trees, packed the ways
engines and tools pack them.

- docker-archive, legacy (``docker save`` before Docker 25, ``podman save``): ``manifest.json``,
  ``<config>.json`` and ``<diff_id>.tar`` layers (optionally gzip, as some tools write them);
- docker-archive, OCI-style (Docker >= 25): ``manifest.json`` and ``index.json`` over
  ``blobs/sha256/``;
- OCI image layout (``oci:``), and its tar (``oci-archive:``), with gzip, zstd or plain layers.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tarfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import zstandard

Compression = Literal["none", "gzip", "zstd"]
_MEDIA = {
    "none": "application/vnd.oci.image.layer.v1.tar",
    "gzip": "application/vnd.oci.image.layer.v1.tar+gzip",
    "zstd": "application/vnd.oci.image.layer.v1.tar+zstd",
}


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def sha256_bytes(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass
class LayerTar:
    path: Path  # the uncompressed tar
    diff_id: str


@dataclass
class ImageSpec:
    layers: list[LayerTar]
    env: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    cmd: Sequence[str] = ("/bin/sh",)
    entrypoint: Sequence[str] | None = None
    architecture: str = "amd64"
    history: Sequence[str] = ()  # created_by of each layer, as `docker build` records them

    def config(self) -> bytes:
        inner: dict[str, object] = {
            "Env": [f"{k}={v}" for k, v in self.env.items()],
            "Cmd": list(self.cmd),
            "Labels": dict(self.labels),
        }
        if self.entrypoint is not None:
            inner["Entrypoint"] = list(self.entrypoint)
        document = {
            "architecture": self.architecture,
            "os": "linux",
            "created": "2026-12-01T00:00:00Z",
            "config": inner,
            "rootfs": {"type": "layers", "diff_ids": [layer.diff_id for layer in self.layers]},
        }
        if self.history:
            document["history"] = [{"created_by": step} for step in self.history]
        return json.dumps(document).encode()


class ImageBuilder:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def _next(self, suffix: str) -> Path:
        self.count += 1
        return self.workdir / f"{self.count:03d}{suffix}"

    def layer(
        self,
        tree: Path | None = None,
        extra: Iterable[tuple[tarfile.TarInfo, bytes | None]] = (),
        prefix: str | None = None,
    ) -> LayerTar:
        """A layer tar of ``tree`` (relative names, as ``docker save`` writes; only ``prefix``
        below it when given) plus raw members."""
        path = self._next(".tar")
        with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tar:
            if tree is not None:
                top = tree / prefix if prefix else tree
                entries = [top] if prefix else []
                for entry in [*entries, *sorted(top.rglob("*"))]:
                    tar.add(entry, arcname=str(entry.relative_to(tree)), recursive=False)
            for info, data in extra:
                tar.addfile(info, io.BytesIO(data) if data is not None else None)
        return LayerTar(path, sha256_file(path))

    @staticmethod
    def _compressed(layer: LayerTar, compression: Compression) -> bytes:
        data = layer.path.read_bytes()
        if compression == "gzip":
            return gzip.compress(data, compresslevel=1, mtime=0)
        if compression == "zstd":
            return zstandard.ZstdCompressor(level=1).compress(data)
        return data

    # -- docker-archive ------------------------------------------------------------------------
    def docker_archive(
        self,
        spec: ImageSpec,
        *,
        style: Literal["legacy", "oci"] = "legacy",
        layer_compression: Compression = "none",
        outer: Compression = "none",
        tag: str = "localhost/stackcheck-test:1",
    ) -> Path:
        config = spec.config()
        config_digest = sha256_bytes(config)
        members: list[tuple[str, bytes]] = []
        names = []
        if style == "legacy":
            members.append((f"{config_digest[7:]}.json", config))
            for layer in spec.layers:
                name = f"{layer.diff_id[7:]}.tar"
                members.append((name, self._compressed(layer, layer_compression)))
                names.append(name)
            config_name = f"{config_digest[7:]}.json"
        else:
            config_name = f"blobs/sha256/{config_digest[7:]}"
            members.append((config_name, config))
            for layer in spec.layers:
                name = f"blobs/sha256/{layer.diff_id[7:]}"
                members.append((name, layer.path.read_bytes()))
                names.append(name)
            members.append(("oci-layout", b'{"imageLayoutVersion": "1.0.0"}'))
        manifest = [{"Config": config_name, "RepoTags": [tag], "Layers": names}]
        members.append(("manifest.json", json.dumps(manifest).encode()))
        path = self._next(".docker.tar")
        _write_tar(path, members, outer)
        return path

    # -- OCI layout ------------------------------------------------------------------------------
    def _manifest(
        self, blobs: Path, spec: ImageSpec, compression: Compression
    ) -> dict[str, object]:
        """Put an image's blobs; return the descriptor of its manifest."""
        config = spec.config()
        layers = []
        for layer in spec.layers:
            data = self._compressed(layer, compression)
            layers.append(
                {"mediaType": _MEDIA[compression], "digest": _put(blobs, data), "size": len(data)}
            )
        manifest = json.dumps(
            {
                "schemaVersion": 2,
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": {
                    "mediaType": "application/vnd.oci.image.config.v1+json",
                    "digest": _put(blobs, config),
                    "size": len(config),
                },
                "layers": layers,
            }
        ).encode()
        return {
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": _put(blobs, manifest),
            "size": len(manifest),
        }

    def _layout(self, descriptor: dict[str, object], blobs: Path, tag: str) -> Path:
        root = blobs.parent.parent
        descriptor["annotations"] = {"org.opencontainers.image.ref.name": tag}
        (root / "index.json").write_text(
            json.dumps({"schemaVersion": 2, "manifests": [descriptor]})
        )
        (root / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
        return root

    def _blobs(self) -> Path:
        blobs = self._next(".oci") / "blobs" / "sha256"
        blobs.mkdir(parents=True)
        return blobs

    def oci_layout(
        self, spec: ImageSpec, compression: Compression = "gzip", tag: str = "1"
    ) -> Path:
        blobs = self._blobs()
        return self._layout(self._manifest(blobs, spec, compression), blobs, tag)

    def oci_index(self, platforms: Mapping[str, ImageSpec], tag: str = "1") -> Path:
        """A multi-platform image: index.json -> an image index -> one manifest a platform."""
        blobs = self._blobs()
        manifests = []
        for platform, spec in platforms.items():
            descriptor = self._manifest(blobs, spec, "gzip")
            os_name, architecture = platform.split("/")[:2]
            descriptor["platform"] = {"os": os_name, "architecture": architecture}
            manifests.append(descriptor)
        index = json.dumps(
            {
                "schemaVersion": 2,
                "mediaType": "application/vnd.oci.image.index.v1+json",
                "manifests": manifests,
            }
        ).encode()
        descriptor = {
            "mediaType": "application/vnd.oci.image.index.v1+json",
            "digest": _put(blobs, index),
            "size": len(index),
        }
        return self._layout(descriptor, blobs, tag)

    def oci_archive(self, layout: Path, outer: Compression = "none") -> Path:
        members = [
            (str(p.relative_to(layout)), p.read_bytes())
            for p in sorted(layout.rglob("*"))
            if p.is_file()
        ]
        path = self._next(".oci.tar")
        _write_tar(path, members, outer)
        return path


def _put(blobs: Path, data: bytes) -> str:
    digest = sha256_bytes(data)
    (blobs / digest[7:]).write_bytes(data)
    return digest


def _write_tar(path: Path, members: list[tuple[str, bytes]], outer: Compression) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    data = buffer.getvalue()
    if outer == "gzip":
        data = gzip.compress(data, compresslevel=1, mtime=0)
    elif outer == "zstd":
        data = zstandard.ZstdCompressor(level=1).compress(data)
    path.write_bytes(data)


def member(
    name: str,
    data: bytes | None = b"",
    *,
    kind: bytes = tarfile.REGTYPE,
    link: str = "",
    size: int | None = None,
) -> tuple[tarfile.TarInfo, bytes | None]:
    """A raw tar member, for whiteouts, hard links and hostile names a file tree cannot hold."""
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
    info.size = len(data or b"") if size is None else size
    return info, data if kind == tarfile.REGTYPE else None


def whiteout(path: str) -> tuple[tarfile.TarInfo, bytes | None]:
    head, name = os.path.split(path)
    return member(os.path.join(head, f".wh.{name}"))


def opaque(directory: str) -> tuple[tarfile.TarInfo, bytes | None]:
    return member(os.path.join(directory, ".wh..wh..opq"))
