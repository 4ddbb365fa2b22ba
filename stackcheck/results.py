"""The result cache: a finished scan's output (stdout, stderr, exit code) kept under a key made of
everything that decides it, so scanning an unchanged image again prints the same bytes without
importing pydantic, the rules or the image readers (Trivy keeps its results by digest alike).

The key: what the scan read from the image (the SHA-256 of its snapshot without the time it was
taken: manifest and config digests, every layer's digest, every installation with its
evidence), every option of the command, the contents of every file it reads besides the image
(--host, --dockerfile, --baseline, --config or the configuration found in the current
directory), the current directory, whether stdout is a terminal and NO_COLOR (colour), today's
date (rules that read the date, such as the matrix's age), and stackcheck itself (its version,
Python's, the names, sizes and times of every file of the package, so a changed rule is a miss,
and the times of the package folders on Python's path, so an upgraded dependency is one too).
What a scan read is remembered (``images/``) with the stamp its image's files had
(stackcheck.image.identity), so a rescan knows it without reading them; a changed stamp means
the image is scanned again. The matrix is checked on the way out: an entry names the matrix
directories its scan read and the SHA-256 of their files, and is served only while they still
hash the same.

An entry is one file, ``results/<key>.json`` in the cache directory: the SHA-256 of its payload,
a newline, the payload; written atomically, read only when this user owns it and no one else can
write it, and only when it is whole. Anything else is a miss, never a result. After each write
the oldest entries go: those older than 30 days, and all but the newest 256.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import NamedTuple, TextIO, TypeVar

from stackcheck import __version__, clock, limits
from stackcheck.cachedir import prune, read_own
from stackcheck.errors import StackcheckError
from stackcheck.inputs import read_regular
from stackcheck.matrix_files import MatrixFiles, layers_digest, matrix_digest

ENTRIES, ENTRY_AGE_S = 256, 30 * 86400
_FORMAT = "1"  # bump when an entry's payload changes shape
_PACKAGE = Path(__file__).resolve().parent
T = TypeVar("T")


class Result(NamedTuple):  # not a dataclass: a cache hit does not import dataclasses (5 ms)
    stdout: str
    stderr: str
    code: int
    image: str  # what the scan read from the image: its snapshot's digest, sha256:...
    scanned: str  # when the scan ran, UTC, ISO 8601
    matrix_dirs: tuple[str, ...] = ()
    matrix: str = ""  # the SHA-256 of matrix_dirs' files when it ran


def code_fingerprint() -> str:
    """stackcheck's own code, cheaply: the name, size and modification time of every file of
    the package (not the bytecode), the version of Python that runs it, and the modification
    time of each package folder on its path (installing, upgrading or removing a package,
    pydantic say, adds or deletes a dist-info folder there)."""
    digest = hashlib.sha256(f"{__version__}\0{sys.version}".encode())
    for folder in sys.path:
        if folder.endswith(("site-packages", "dist-packages")):  # not the current directory
            with suppress(OSError):
                digest.update(f"\0{folder}\0{os.stat(folder).st_mtime_ns}".encode())
    for folder, names, files in os.walk(_PACKAGE):
        names[:] = sorted(n for n in names if n != "__pycache__")
        for name in sorted(files):
            status = os.stat(os.path.join(folder, name))
            digest.update(f"\0{folder}/{name}\0{status.st_size}\0{status.st_mtime_ns}".encode())
    return digest.hexdigest()


def _content(path: str | os.PathLike[str]) -> bytes | None:
    try:
        return read_regular(path, "input", limits.JSON_FILE_BYTES)[0]
    except StackcheckError:
        return None


def result_key(request: str, image: str) -> str:
    """A result's key: the request's digest and what the scan read from the image."""
    return hashlib.sha256(f"{request}\0{image}".encode()).hexdigest()


class ResultCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory / "results"
        self.images = directory / "images"
        self.code = code_fingerprint()  # once: a walk of the package

    def request_digest(
        self, options: Mapping[str, object], inputs: Sequence[str], found: Sequence[str]
    ) -> str | None:
        """What decides a request's output besides the image: ``options`` (every option, by name),
        the contents of ``inputs`` (files the command was given) and of ``found`` (files it would
        find, such as a configuration in the current directory; absent is a value), and the rest
        the module's doc names. None where an input cannot be read: the command then runs, and
        says why."""
        digest = hashlib.sha256()
        isatty = getattr(sys.stdout, "isatty", None)
        colour = bool(isatty and isatty()) and "NO_COLOR" not in os.environ
        for part in (_FORMAT, self.code, clock.today().isoformat(), os.getcwd(), colour):
            digest.update(f"{part}\0".encode())
        digest.update(repr(sorted(options.items())).encode())
        for path in inputs:
            data = _content(path)
            if data is None:
                return None
            digest.update(f"\0{path}\0{len(data)}\0".encode() + data)
        for path in found:
            data = _content(path) if os.path.exists(path) else b"\0absent"
            if data is None:
                return None
            digest.update(f"\0{path}\0{len(data)}\0".encode() + data)
        return digest.hexdigest()

    def load(self, key: str) -> Result | None:
        """The result stored under KEY if it is whole, this user's, and its matrix unchanged."""
        path = self.directory / f"{key}.json"
        document = _read(path)
        if not isinstance(document, dict):
            return None
        try:
            result = Result(
                stdout=_typed(document["stdout"], str),
                stderr=_typed(document["stderr"], str),
                code=_typed(document["code"], int),
                image=_typed(document["image"], str),
                scanned=_typed(document["scanned"], str),
                matrix_dirs=tuple(_typed(d, str) for d in _typed(document["matrix_dirs"], list)),
                matrix=_typed(document["matrix"], str),
            )
        except (LookupError, TypeError):
            return None
        if matrix_digest([Path(d) for d in result.matrix_dirs]) != result.matrix:
            return None  # a matrix file changed: the findings may differ
        with suppress(OSError):
            os.utime(path)  # recently used: pruned last
        return result

    def store(self, key: str, result: Result) -> None:
        """Keep RESULT under KEY, then prune; a cache that cannot be written costs only time."""
        _write(self.directory / f"{key}.json", result._asdict())

    def _memo(self, path: Path, reading: str) -> Path:
        name = f"{path.resolve()}\0{reading}\0{self.code}"
        return self.images / f"{hashlib.sha256(name.encode()).hexdigest()}.json"

    def recall_image(self, path: Path, reading: str, stamp: str) -> str | None:
        """What a scan read from the image at PATH (its content digest), when its files still
        have the stamp they had then, and READING (the argument, the platform) and stackcheck's
        code are the same; else None, and the image is scanned."""
        memo = self._memo(path, reading)
        known = _read(memo)
        if not isinstance(known, dict) or known.get("stamp") != stamp:
            return None
        content = known.get("content")
        if not isinstance(content, str):
            return None
        with suppress(OSError):
            os.utime(memo)  # recently used: pruned last
        return content

    def remember_image(
        self, path: Path, reading: str, stamp: tuple[str, int], stamped_at: int, content: str
    ) -> None:
        """Remember what a scan read from the image whose files had STAMP when it began (at
        STAMPED_AT, ns). A file written within the times' granularity of the stamp could be
        written again with the same stamp ("racy" in git's words): such a stamp is not kept."""
        if stamp[1] < stamped_at - _RACY_NS:
            _write(self._memo(path, reading), {"stamp": stamp[0], "content": content})


_RACY_NS = 2_000_000_000


def _read(path: Path) -> object:
    """The JSON document of an entry, or None unless it is this user's alone and whole."""
    stored = read_own(path, limits.CACHE_ENTRY_BYTES)
    if stored is None:
        return None
    checksum, _, payload = stored.partition(b"\n")
    if hashlib.sha256(payload).hexdigest().encode() != checksum:
        return None  # truncated or changed since written
    try:
        document: object = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    return document


def _write(path: Path, document: dict[str, object]) -> None:
    """Write an entry atomically, then prune its folder; a cache that cannot be written costs
    only time."""
    from stackcheck.atomic import write_atomically  # tempfile: only a miss writes

    payload = json.dumps(document, ensure_ascii=False).encode()
    data = hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomically(path, data)
        prune(path.parent, "*.json", ENTRIES, ENTRY_AGE_S)
    except OSError:
        return


def _typed(value: object, kind: type[T]) -> T:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not {kind.__name__}")
    return value


def matrix_of(
    directories: Sequence[Path], layers: Sequence[MatrixFiles]
) -> tuple[tuple[str, ...], str]:
    """The matrix directories a scan read (absolute) and the SHA-256 of their files, as read."""
    return tuple(str(d.resolve()) for d in directories), layers_digest(layers)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Recording:
    def __init__(self) -> None:
        self.stdout: list[str] = []
        self.stderr: list[str] = []


class _Tee(io.TextIOBase):
    """Writes through to a stream and keeps a copy; a terminal stays a terminal."""

    def __init__(self, stream: TextIO, copy: list[str]) -> None:
        self.stream = stream
        self.copy = copy

    def write(self, text: str) -> int:
        self.copy.append(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.stream, "encoding", None) or "utf-8")

    def fileno(self) -> int:
        return self.stream.fileno()


@contextmanager
def recording() -> Iterator[Recording]:
    """What the command writes to stdout and stderr meanwhile, as well as writing it."""
    record = Recording()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Tee(saved[0], record.stdout), _Tee(saved[1], record.stderr)
    try:
        yield record
    finally:
        sys.stdout, sys.stderr = saved
