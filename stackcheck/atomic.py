"""Writing a file so that a reader sees the old one or the new one, never a part: the report a
collector scrapes (--output), a layer cache entry, the cached matrix."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write DATA to a temporary file beside PATH and rename it over PATH. The temporary name
    starts with a dot and ends in .tmp, so a collector reading *.prom skips it; ``mode`` where
    the file must be readable by others (mkstemp's 0600 otherwise). Raises OSError, leaving
    nothing behind."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
