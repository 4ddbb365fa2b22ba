"""One layer, read once: a hand-written walk over its 512-byte tar headers that keeps what the
probes declared (:mod:`stackcheck.views.needs`) and skips every other byte.

``tarfile`` costs ~22 µs a member, which dominates layers of many small files; this walk only
parses the header fields a filesystem view needs (ustar with prefix, GNU long names, pax path,
linkpath and size). Member paths must stay inside the image: an absolute path or a ``..`` is an
error, as is a declared size no real layer has (a tar bomb).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from stackcheck.binary.collect import BinaryCollector, BinaryFacts
from stackcheck.image.errors import ImageError
from stackcheck.image.stream import LayerStream
from stackcheck.limits import TAR_MAX_MEMBERS, TREE_MAX_DEPTH
from stackcheck.views.needs import CompiledNeeds

MAX_MEMBER_BYTES = 64 << 30  # larger than any file a real image holds
_BLOCK = 512
_ZERO_BLOCK = bytes(_BLOCK)
_WHITEOUT = ".wh."
_OPAQUE = ".wh..wh..opq"
_REGULAR = frozenset(b"07S\x00")

# (path, kind, size, target): kind is file, dir, symlink, hardlink, other, whiteout or opaque.
Entry = tuple[str, str, int, "str | None"]


@dataclass
class LayerIndex:
    """What one layer holds, as far as the probes care: every entry that can matter, the small
    files they read, and the facts of the binaries they look into."""

    entries: list[Entry] = field(default_factory=list)
    contents: dict[str, bytes] = field(default_factory=dict)
    binaries: dict[str, BinaryFacts] = field(default_factory=dict)
    members: int = 0
    tar_bytes: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "entries": self.entries,
            "contents": {p: base64.b64encode(d).decode() for p, d in self.contents.items()},
            "binaries": {p: f.to_json() for p, f in self.binaries.items()},
            "members": self.members,
            "tar_bytes": self.tar_bytes,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LayerIndex:
        return cls(
            entries=[(str(p), str(k), int(s), t) for p, k, s, t in data["entries"]],
            contents={p: base64.b64decode(d) for p, d in data["contents"].items()},
            binaries={p: BinaryFacts.from_json(f) for p, f in data["binaries"].items()},
            members=int(data["members"]),
            tar_bytes=int(data["tar_bytes"]),
        )


class _Blocks:
    """The decompressed tar as blocks: exact takes, chunked reads and skips over one buffer."""

    def __init__(self, stream: LayerStream) -> None:
        self.stream = stream
        self.data = b""
        self.pos = 0
        self.consumed = 0

    def take(self, size: int) -> bytes:
        end = self.pos + size
        if end <= len(self.data):
            self.pos = end
            self.consumed += size
            return self.data[end - size : end]
        return b"".join(self.pieces(size))

    def pieces(self, size: int) -> Iterator[bytes]:
        """``size`` bytes in the pieces they arrive in; short only at the end of the stream."""
        while size > 0:
            if self.pos >= len(self.data):
                self.data = self.stream.read()
                self.pos = 0
                if not self.data:
                    return
            piece = self.data[self.pos : self.pos + size]
            self.pos += len(piece)
            self.consumed += len(piece)
            size -= len(piece)
            yield piece

    def skip(self, size: int, label: str) -> None:
        if self.pos + size <= len(self.data):
            self.pos += size
            self.consumed += size
            return
        for piece in self.pieces(size):
            size -= len(piece)
        if size:
            raise ImageError(f"{label}: truncated tar stream")


def _number(field_bytes: bytes) -> int:
    if field_bytes and field_bytes[0] & 0x80:  # GNU base-256, for sizes of 8 GiB and more
        return int.from_bytes(field_bytes, "big") & ~(0xFF << (8 * (len(field_bytes) - 1)))
    text = field_bytes.split(b"\x00", 1)[0].strip()
    try:
        return int(text, 8) if text else 0
    except ValueError:
        raise ValueError(f"bad number {text!r}") from None


def _pax_size(value: str, label: str) -> int:
    if not value.isascii() or not value.isdigit():
        raise ImageError(f"{label}: corrupt tar header (pax size {value[:40]!r} is not a number)")
    return int(value[:20])


def _text(raw: bytes) -> str:
    return raw.split(b"\x00", 1)[0].decode("utf-8", "surrogateescape")


def _pax(data: bytes) -> dict[str, str]:
    records: dict[str, str] = {}
    while data:
        length_text, _, _ = data.partition(b" ")
        try:
            length = int(length_text)
        except ValueError:
            break
        record, data = data[:length], data[length:]
        key, _, value = record.partition(b" ")[2].rstrip(b"\n").partition(b"=")
        records[key.decode("utf-8", "replace")] = value.decode("utf-8", "surrogateescape")
        if length <= 0:
            break
    return records


def clean_path(name: str, label: str) -> str | None:
    """``./usr/lib/`` -> ``/usr/lib``; None for the root itself; errors for escapes."""
    if name.startswith("/"):
        raise ImageError(f"{label}: member {name!r} has an absolute path")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ImageError(f"{label}: member {name!r} leaves the image root (path traversal)")
    if len(parts) > TREE_MAX_DEPTH:
        raise ImageError(
            f"{label}: member {name[:60]!r}... is {len(parts)} directories deep "
            f"(more than {TREE_MAX_DEPTH}); refused"
        )
    return "/" + "/".join(parts) if parts else None


def scan_layer(stream: LayerStream, needs: CompiledNeeds) -> LayerIndex:
    """Walk one layer's tar once; the stream's digests are checked at the end."""
    label = stream.label
    blocks = _Blocks(stream)
    index = LayerIndex()
    long_name: str | None = None
    long_link: str | None = None
    pax: dict[str, str] = {}
    while True:
        header = blocks.take(_BLOCK)
        if len(header) < _BLOCK:
            if header or index.members == 0:
                raise ImageError(f"{label}: truncated tar stream")
            break  # some writers omit the end-of-archive blocks
        if header == _ZERO_BLOCK:
            break
        try:
            stored = _number(header[148:156])
            size = _number(header[124:136])
        except ValueError:
            stored, size = -1, 0
        if stored != sum(header) - sum(header[148:156]) + 256:  # the field counts as spaces
            what = "not a tar archive" if index.members == 0 else "corrupt tar header"
            raise ImageError(f"{label}: {what} (bad header checksum)")
        kind = header[156]
        if "size" in pax:
            size = _pax_size(pax["size"], label)
        if size > MAX_MEMBER_BYTES:
            raise ImageError(
                f"{label}: member {_text(header[:100])!r} declares {size} bytes "
                f"(more than {MAX_MEMBER_BYTES >> 30} GiB): refusing a possible tar bomb"
            )
        padded = size + (-size % _BLOCK)
        if kind in b"LKxg":  # metadata for the next member (or, 'g', for all: not needed)
            data = blocks.take(padded)[:size]
            if len(data) < size:
                raise ImageError(f"{label}: truncated tar stream")
            if kind == ord("L"):
                long_name = _text(data)
            elif kind == ord("K"):
                long_link = _text(data)
            elif kind == ord("x"):
                pax = _pax(data)
            continue
        index.members += 1
        if index.members > TAR_MAX_MEMBERS:
            raise ImageError(
                f"{label}: more than {TAR_MAX_MEMBERS} members in one layer; refusing it"
            )
        name = pax.get("path") or long_name or _text(header[:100])
        if long_name is None and "path" not in pax and header[257:263] == b"ustar\x00":
            prefix = _text(header[345:500])
            name = f"{prefix}/{name}" if prefix else name
        link = pax.get("linkpath") or long_link
        if link is None and kind in b"12":
            link = _text(header[157:257])
        long_name = long_link = None
        pax = {}
        path = clean_path(name, label)
        if path is None:
            blocks.skip(padded, label)
            continue
        base = path.rsplit("/", 1)[1]
        if base.startswith(_WHITEOUT):
            parent = path.rsplit("/", 1)[0]
            if base == _OPAQUE:
                index.entries.append((parent or "/", "opaque", 0, None))
            else:
                index.entries.append((f"{parent}/{base[len(_WHITEOUT) :]}", "whiteout", 0, None))
            blocks.skip(padded, label)
            continue
        if kind in _REGULAR:
            _regular(blocks, index, needs, path, base, size, label)
            blocks.skip(padded - size, label)
            continue
        if kind == ord("5"):
            index.entries.append((path, "dir", 0, None))
        elif kind == ord("2"):
            index.entries.append((path, "symlink", 0, link))
        elif kind == ord("1"):
            index.entries.append((path, "hardlink", 0, clean_path(link or "", label)))
        else:
            index.entries.append((path, "other", 0, None))
        blocks.skip(padded, label)
    stream.finish()
    index.tar_bytes = stream.out
    return index


def _regular(
    blocks: _Blocks,
    index: LayerIndex,
    needs: CompiledNeeds,
    path: str,
    name: str,
    size: int,
    label: str,
) -> None:
    named, limit, binary = needs.classify(path, name)
    if limit is None and binary is None:
        if named:
            index.entries.append((path, "file", size, None))
        blocks.skip(size, label)
        return
    index.entries.append((path, "file", size, None))
    collector = BinaryCollector(size, binary[0], binary[1]) if binary is not None else None
    kept: list[bytes] = []
    kept_size = 0
    read = 0
    for piece in blocks.pieces(size):
        read += len(piece)
        if collector is not None:
            collector.feed(piece)
        if limit is not None and kept_size < limit:
            kept.append(piece[: limit - kept_size])
            kept_size += len(kept[-1])
    if read < size:
        raise ImageError(f"{label}: truncated tar stream (in {path})")
    if limit is not None:
        index.contents[path] = b"".join(kept)
    if collector is not None:
        index.binaries[path] = collector.finish()
