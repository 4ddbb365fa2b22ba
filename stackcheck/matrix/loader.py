"""Loading the matrix: the bundled TOML files, then any user directories over them.

pydantic validates a matrix once per content: the validated matrix is kept as a pickle in the
user's cache directory, named by a hash of every matrix file read (and of the modules that
define the pickled classes, and the stackcheck, pydantic and Python versions), so a later run
with the same files skips TOML parsing and validation (0.08 s of a cached image rescan). A
cache file is read only when it is owned by this user and writable by no one else; anything
odd about it means the files are read again. Each write deletes the entries older than 30 days
and all but the 8 newest.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from stackcheck import limits
from stackcheck.atomic import write_atomically
from stackcheck.cachedir import prune, read_own
from stackcheck.errors import StackcheckError
from stackcheck.matrix.models import TABLE_KEYS, Matrix, entry_key
from stackcheck.matrix_files import (
    MatrixFiles,
    bundled_dir,
    feed_files,
    matrix_files,
    read_layers,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

META_KEYS = ("version", "built", "primary_sources")
# One entry per matrix content: a few user matrices, a few upgrades; older ones are deleted.
MATRIX_ENTRIES, MATRIX_ENTRY_AGE_S = 8, 30 * 86400


def read_tables(directory: Path) -> dict[str, Any]:
    """The top-level keys of every ``*.toml`` in ``directory``; tables from several files join."""
    return _tables(matrix_files(directory))


def _tables(files: MatrixFiles) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for path, raw in files:
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise StackcheckError(f"matrix file {path}: {exc}") from None
        for key, value in data.items():
            if key in META_KEYS:
                merged[key] = value
            elif key not in TABLE_KEYS:
                raise StackcheckError(f"matrix file {path}: unknown table {key!r}")
            elif not isinstance(value, list):
                raise StackcheckError(f"matrix file {path}: {key!r} must be an array of tables")
            else:
                merged.setdefault(key, []).extend(value)
    return merged


def _entry_key(table: str, entry: Any) -> tuple[Any, ...]:
    # What is not a table stays apart from every other entry: validation names each.
    return entry_key(table, entry) if isinstance(entry, dict) else (id(entry),)


def overlay(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``extra``'s entries replace ``base``'s entries with the same key, and add the rest."""
    result = dict(base)
    for table, entries in extra.items():
        if table in META_KEYS:
            continue
        by_key = {_entry_key(table, e): e for e in result.get(table, [])}
        for entry in entries:
            by_key[_entry_key(table, entry)] = entry
        result[table] = list(by_key.values())
    return result


def build(data: dict[str, Any], origin: str) -> Matrix:
    try:
        return Matrix.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise StackcheckError(
            f"{origin}: invalid matrix entry at {where}: {first['msg']}"
        ) from None


def load_matrix(extra_dirs: Sequence[str | Path] = (), cache_dir: Path | None = None) -> Matrix:
    """The bundled matrix with ``extra_dirs`` (user matrices) laid over it, in order; with
    ``cache_dir``, validated once per content of the files (see the module's doc)."""
    return load_layers(read_layers([bundled_dir(), *map(Path, extra_dirs)]), cache_dir)


def load_layers(layers: list[MatrixFiles], cache_dir: Path | None = None) -> Matrix:
    """The matrix of files already read (:func:`read_layers`): the bundled ones first."""
    cache = None if cache_dir is None else cache_dir / f"matrix-{_content_key(layers)}.pickle"
    if cache is not None:
        cached = _read_cache(cache)
        if cached is not None:
            return cached
    data = _tables(layers[0])
    for files in layers[1:]:
        data = overlay(data, _tables(files))
    matrix = build(data, "matrix")
    if cache is not None:
        _write_cache(cache, matrix)
    return matrix


def _content_key(layers: list[MatrixFiles]) -> str:
    import pydantic

    from stackcheck import __version__
    from stackcheck.matrix import models
    from stackcheck.snapshot import model

    digest = hashlib.sha256(f"{__version__} {pydantic.VERSION} {sys.version}".encode())
    for module in (models, model):  # the classes the pickle holds: a change to them is a miss
        digest.update(Path(str(module.__file__)).read_bytes())
    feed_files(digest, layers)
    return digest.hexdigest()[:32]


def _read_cache(path: Path) -> Matrix | None:
    data = read_own(path, limits.CACHE_ENTRY_BYTES)  # someone else's file is never unpickled
    if data is None:
        return None
    try:
        matrix = pickle.loads(data)
    except Exception:  # a truncated or stale entry: read the files instead
        return None
    return matrix if isinstance(matrix, Matrix) else None


def _write_cache(path: Path, matrix: Matrix) -> None:
    """Write atomically (a temporary file renamed into place); a cache that cannot be written
    costs only speed."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomically(path, pickle.dumps(matrix, protocol=pickle.HIGHEST_PROTOCOL))
        prune(path.parent, "matrix-*.pickle", MATRIX_ENTRIES, MATRIX_ENTRY_AGE_S)
    except OSError:
        return
