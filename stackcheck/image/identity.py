"""The files an IMAGE argument names, for the result cache (stackcheck.results): an archive or
an OCI layout, and a stamp of them that says cheaply whether they changed since a scan read
them. An engine's or a registry's image has none here: what a reference points at now takes a
round trip to learn, and its report names where it was found. Light on purpose: a cache hit
imports this, not the image readers."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Literal

from stackcheck.image.errors import ImageError

Transport = Literal["docker-archive", "oci-archive", "oci", "registry", "docker"]
# How an IMAGE argument names where its image is (skopeo's spellings); the first three name
# files here. No prefix is another's start, so the order does not matter.
TRANSPORTS: dict[str, Transport] = {
    "docker-archive:": "docker-archive",
    "oci-archive:": "oci-archive",
    "oci:": "oci",
    "registry://": "registry",
    "docker://": "docker",
}
LOCAL: tuple[Transport, ...] = ("docker-archive", "oci-archive", "oci")


def split_transport(text: str) -> tuple[Transport | None, str]:
    """The transport an IMAGE argument names by its prefix, and the rest; (None, TEXT) for a
    path or a bare reference."""
    for prefix, transport in TRANSPORTS.items():
        if text.startswith(prefix):
            return transport, text[len(prefix) :]
    return None, text


def path_and_tag(value: str) -> tuple[Path, str | None]:
    """``PATH`` or ``PATH:TAG`` (skopeo's spelling), preferring a path that exists."""
    if not value:
        raise ImageError("no path given")
    if Path(value).exists() or ":" not in value:
        return Path(value), None
    path, tag = value.rsplit(":", 1)
    return Path(path), tag or None


def local_path(text: str) -> Path | None:
    """The file or folder an IMAGE argument names, or None for an engine or registry image."""
    transport, rest = split_transport(text)
    if transport in LOCAL:
        return path_and_tag(rest)[0] if rest else None
    if transport is not None or not Path(text).exists():
        return None
    return Path(text)


def _files(path: Path) -> list[tuple[str, os.stat_result]] | None:
    """Every file at PATH (itself, or every file under a folder) by relative name, with its
    status; None if anything there is not a regular file or a folder (a FIFO would block)."""
    try:
        top = path.stat()  # the named path may be a link; nothing under it may
        if stat.S_ISREG(top.st_mode):
            return [("", top)]
        if not stat.S_ISDIR(top.st_mode):
            return None
        found: list[tuple[str, os.stat_result]] = []
        for folder, names, files in os.walk(path):
            names.sort()
            for name in sorted(files) + [n for n in names if os.path.islink(Path(folder, n))]:
                member = Path(folder, name)
                status = member.lstat()
                if not stat.S_ISREG(status.st_mode):
                    return None
                found.append((str(member.relative_to(path)), status))
    except OSError:
        return None
    return found


def image_stamp(path: Path) -> tuple[str, int] | None:
    """What the file system says of the image's files, cheaply: a digest of their names, sizes,
    devices, inodes, modification and change times; and the latest of those times (ns). Equal
    stamps mean no file was written, replaced or renamed in between (a change time cannot be
    set back), as git's index and ccache trust."""
    files = _files(path)
    if files is None:
        return None
    parts = (
        f"{n}\0{s.st_size}\0{s.st_dev}\0{s.st_ino}\0{s.st_mtime_ns}\0{s.st_ctime_ns}"
        for n, s in files
    )
    newest = max((max(s.st_mtime_ns, s.st_ctime_ns) for _, s in files), default=0)
    return hashlib.sha256("\0\0".join(parts).encode()).hexdigest(), newest
