"""Where stackcheck keeps what it can rebuild: layer indexes, the validated matrix."""

from __future__ import annotations

import os
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
