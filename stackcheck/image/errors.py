"""The one error an image source, a layer or the cache raises: a clear line, exit code 2."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from stackcheck.errors import StackcheckError


class ImageError(StackcheckError):
    """The image cannot be read: not an image, a corrupt or hostile layer, an unreachable source."""


# What a reader of image JSON meets when a document has the wrong shape (a list where an object
# belongs, a number for a string): each becomes an ImageError, never a traceback.
_SHAPE_ERRORS = (AttributeError, TypeError, KeyError, IndexError, ValueError, RecursionError)

_F = TypeVar("_F", bound=Callable[..., Any])


def reads_image_json(function: _F) -> _F:
    """Decorate a reader of manifests, indexes or configs: a malformed document is refused
    with one line naming the reader and the problem."""

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except StackcheckError:
            raise
        except _SHAPE_ERRORS as exc:
            what = function.__name__.replace("_", " ")
            detail = " ".join(str(exc).split())[:200]
            raise ImageError(
                f"malformed image metadata ({what}: {type(exc).__name__}: {detail})"
            ) from None

    return guarded  # type: ignore[return-value]


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
