"""Where the matrix's TOML files are and what they hold, without the models: the loader reads
them to validate, the result cache (stackcheck.results) hashes them to know a report is still
current. A module of its own, outside ``stackcheck.matrix``, whose package imports pydantic."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from stackcheck.errors import StackcheckError
from stackcheck.inputs import read_regular
from stackcheck.limits import MATRIX_FILE_BYTES

MatrixFiles = list[tuple[Path, bytes]]


def bundled_dir() -> Path:
    """``stackcheck/matrices`` in an installed wheel; the checkout's ``matrices/`` otherwise."""
    package = Path(__file__).resolve().parent
    installed = package / "matrices"
    return installed if installed.is_dir() else package.parent / "matrices"


def matrix_files(directory: Path) -> MatrixFiles:
    """Every ``*.toml`` in ``directory``, in name order, with its bytes."""
    if not directory.is_dir():
        raise StackcheckError(f"matrix directory {directory} does not exist")
    # A FIFO named *.toml would block a plain read: regular files only, bounded.
    return [
        (path, read_regular(path, "matrix file", MATRIX_FILE_BYTES)[0])
        for path in sorted(directory.glob("*.toml"))
    ]


def read_layers(directories: Sequence[Path]) -> list[MatrixFiles]:
    """The files of each directory, in order: read once, for the digest and the matrix alike."""
    return [matrix_files(directory) for directory in directories]


def feed_files(digest: hashlib._Hash, layers: Sequence[MatrixFiles]) -> None:
    """Add every file of every layer (its position, name, length and bytes) to ``digest``."""
    for position, files in enumerate(layers):
        for path, raw in files:
            digest.update(f"\0{position}\0{path.name}\0{len(raw)}\0".encode())
            digest.update(raw)


def layers_digest(layers: Sequence[MatrixFiles]) -> str:
    """The SHA-256 of the files of ``layers`` in order."""
    digest = hashlib.sha256()
    feed_files(digest, layers)
    return digest.hexdigest()


def matrix_digest(directories: Sequence[Path]) -> str | None:
    """The SHA-256 of the files of ``directories`` in order, or None where one cannot be read."""
    try:
        return layers_digest(read_layers(directories))
    except (StackcheckError, OSError):
        return None
