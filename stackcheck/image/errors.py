"""The one error an image source, a layer or the cache raises: a clear line, exit code 2."""

from __future__ import annotations

from stackcheck.errors import StackcheckError


class ImageError(StackcheckError):
    """The image cannot be read: not an image, a corrupt or hostile layer, an unreachable source."""


def root_cause(exc: BaseException, depth: int = 0) -> str:
    """The innermost operating-system reason under EXC ("Connection refused", "No such file or
    directory"), looking through causes and the arguments wrapping libraries nest errors in;
    else EXC's own text, first line only."""
    if depth < 8:
        inner = [exc.__cause__, getattr(exc, "reason", None), *exc.args]
        for nested in inner:
            if isinstance(nested, BaseException):
                found = root_cause(nested, depth + 1)
                if found:
                    return found
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return "" if depth else (str(exc).splitlines() or [type(exc).__name__])[0][:200]
