"""Layer bytes as a stream: decompression (gzip, zstd or none, told apart by magic bytes), digest
checking, and bounds against decompression bombs.

gzip goes through ``isal`` (Intel ISA-L, about twice zlib's speed here) when it is installed,
else through zlib; output is produced in bounded pieces, whatever the compression ratio.
"""

from __future__ import annotations

import hashlib
import types
import zlib
from collections.abc import Callable
from typing import BinaryIO, Protocol

from stackcheck.image.errors import ImageError

_inflate_module: types.ModuleType
try:  # isal's inflate is ~2x zlib's; it is optional
    from isal import isal_zlib as _inflate_module
except ImportError:  # pragma: no cover - exercised where isal is not installed
    _inflate_module = zlib

READ_SIZE = 1 << 20
_OUT_SIZE = 4 << 20
_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# Past this many bytes out, an expansion beyond _MAX_RATIO:1 is taken for a bomb.
_RATIO_FLOOR = 1 << 30
_MAX_RATIO = 2000


class Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


class HashingReader:
    """Counts and hashes every byte read through it, then checks the expected digest."""

    def __init__(self, raw: Readable, label: str, expected: str | None, measure: bool) -> None:
        self.raw = raw
        self.label = label
        self.expected = expected
        self.hashing = expected is not None or measure
        self.sha = hashlib.sha256()
        self.count = 0

    def read(self, size: int = READ_SIZE, /) -> bytes:
        try:
            data = self.raw.read(size)
        except OSError as exc:
            raise ImageError(f"{self.label}: read failed: {exc}") from None
        if self.hashing:
            self.sha.update(data)
        self.count += len(data)
        return data

    def verify(self) -> None:
        if self.expected is None:
            return
        actual = "sha256:" + self.sha.hexdigest()
        if actual != self.expected:
            raise ImageError(
                f"{self.label}: digest mismatch: expected {self.expected}, got {actual}"
            )


class _Inflater:
    """gzip (possibly several members) to bytes, in pieces of at most _OUT_SIZE."""

    def __init__(self, raw: HashingReader, label: str, first: bytes) -> None:
        self.raw = raw
        self.label = label
        self.pending = first
        self.decoder = _inflate_module.decompressobj(31)
        self.done = False

    def read(self, size: int = _OUT_SIZE, /) -> bytes:
        while not self.done:
            if not self.pending:
                self.pending = self.raw.read(READ_SIZE)
                if not self.pending:
                    if self.decoder.eof:
                        self.done = True
                        break
                    raise ImageError(f"{self.label}: truncated gzip stream")
            try:
                out = self.decoder.decompress(self.pending, min(size, _OUT_SIZE))
            except (zlib.error, _inflate_module.error) as exc:  # isal raises its own error
                raise ImageError(f"{self.label}: corrupt gzip stream ({exc})") from None
            self.pending = self.decoder.unconsumed_tail
            if self.decoder.eof:
                rest = self.decoder.unused_data + self.pending
                self.pending = rest.lstrip(b"\x00")  # padding between members
                if self.pending:
                    self.decoder = _inflate_module.decompressobj(31)
                else:
                    self.pending = self.raw.read(READ_SIZE)
                    if self.pending:
                        self.decoder = _inflate_module.decompressobj(31)
                    else:
                        self.done = True
            if out:
                return bytes(out)
        return b""


class _Unzstd:
    def __init__(self, raw: HashingReader, label: str, first: bytes) -> None:
        import zstandard

        self.label = label
        self.error = zstandard.ZstdError
        self.reader = zstandard.ZstdDecompressor().stream_reader(
            _Prepend(first, raw),  # type: ignore[arg-type]  # any object with read() will do
            read_size=READ_SIZE,
            read_across_frames=True,
        )

    def read(self, size: int = _OUT_SIZE, /) -> bytes:
        try:
            return bytes(self.reader.read(min(size, _OUT_SIZE)))
        except self.error as exc:
            raise ImageError(f"{self.label}: corrupt zstd stream ({exc})") from None


class _Prepend:
    def __init__(self, first: bytes, raw: Readable) -> None:
        self.first = first
        self.raw = raw

    def read(self, size: int = READ_SIZE, /) -> bytes:
        if self.first:
            data, self.first = self.first[:size], self.first[size:]
            return data
        return self.raw.read(size)


class LayerStream:
    """The uncompressed tar bytes of one layer, with a guard against bombs.

    ``compressed_digest`` is checked against the bytes as stored (OCI blobs, registry), ``diff_id``
    against the uncompressed tar (docker-archive layers are named by it).
    """

    def __init__(
        self,
        raw: BinaryIO | Readable,
        label: str,
        compressed_digest: str | None = None,
        diff_id: str | None = None,
        measure: bool = False,
    ) -> None:
        """``measure`` hashes both forms even when no digest is expected (see ``digests``)."""
        self.label = label
        self.source = HashingReader(raw, label, compressed_digest, measure)
        self.diff_id = diff_id
        self.tar_sha = hashlib.sha256() if diff_id or measure else None
        self.out = 0
        first = self.source.read(READ_SIZE)
        self.compression = "none"
        decoder: Readable
        if first.startswith(_GZIP_MAGIC):
            self.compression = "gzip"
            decoder = _Inflater(self.source, label, first)
        elif first.startswith(_ZSTD_MAGIC):
            self.compression = "zstd"
            decoder = _Unzstd(self.source, label, first)
        else:
            decoder = _Prepend(first, self.source)
        self._decoder = decoder
        self.on_progress: Callable[[int], None] | None = None

    def read(self, size: int = _OUT_SIZE, /) -> bytes:
        before = self.source.count
        data = self._decoder.read(size)
        self.out += len(data)
        if self.tar_sha is not None:
            self.tar_sha.update(data)
        if self.out > _RATIO_FLOOR and self.out > _MAX_RATIO * max(self.source.count, 1):
            raise ImageError(
                f"{self.label}: expands more than {_MAX_RATIO}:1 "
                f"({self.out} bytes from {self.source.count}); refusing a decompression bomb"
            )
        if self.on_progress is not None:
            self.on_progress(self.source.count - before)
        return data

    def finish(self) -> None:
        """Drain what the tar walk left (end-of-archive padding), then check the digests."""
        while self.read(_OUT_SIZE):
            pass
        self.source.verify()
        if self.tar_sha is not None:
            check_digest(self.label, self.diff_id, self.tar_sha)

    def digests(self) -> tuple[str, str]:
        """(stored, uncompressed) sha256 digests, where they were computed; else empty."""
        blob = "sha256:" + self.source.sha.hexdigest() if self.source.hashing else ""
        tar = "sha256:" + self.tar_sha.hexdigest() if self.tar_sha is not None else ""
        return blob, tar


def check_digest(label: str, expected: str | None, sha: hashlib._Hash) -> None:
    if expected is None:
        return
    actual = "sha256:" + sha.hexdigest()
    if actual != expected:
        raise ImageError(f"{label}: digest mismatch: expected {expected}, got {actual}")
