"""The one error an image source, a layer or the cache raises: a clear line, exit code 2."""

from __future__ import annotations

from stackcheck.errors import StackcheckError


class ImageError(StackcheckError):
    """The image cannot be read: not an image, a corrupt or hostile layer, an unreachable source."""
