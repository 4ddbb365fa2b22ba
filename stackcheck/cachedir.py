"""Where stackcheck keeps what it can rebuild: layer indexes, the validated matrix."""

from __future__ import annotations

import os
import time
from pathlib import Path


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "stackcheck"


def usable_cache_dir() -> Path | None:
    """The default cache directory, or None where there is no home to put one in (the files
    are then read each time)."""
    try:
        return default_cache_dir()
    except RuntimeError:
        return None


def prune(directory: Path, pattern: str, keep: int, max_age_s: float) -> None:
    """Delete the entries matching PATTERN in DIRECTORY older than MAX_AGE_S seconds, then all
    but the KEEP most recently written: every cache stays bounded. Deleting is best effort (a
    concurrent run may have taken an entry first)."""
    entries: list[tuple[float, Path]] = []
    for path in directory.glob(pattern):
        try:
            entries.append((path.stat().st_mtime, path))
        except OSError:
            continue
    entries.sort(reverse=True)
    oldest = time.time() - max_age_s
    for position, (written, path) in enumerate(entries):
        if position >= keep or written < oldest:
            path.unlink(missing_ok=True)


def read_own(path: Path, limit: int) -> bytes | None:
    """An entry's bytes, or None when it is absent, larger than ``limit``, or not this user's
    alone: a file someone else could have written is never trusted (never parsed, never
    unpickled)."""
    try:
        with path.open("rb") as handle:
            status = os.fstat(handle.fileno())
            if status.st_uid != os.getuid() or status.st_mode & 0o022:
                return None
            data = handle.read(limit + 1)
    except OSError:
        return None
    return None if len(data) > limit else data
