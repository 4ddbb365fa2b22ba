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
