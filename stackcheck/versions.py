"""Version parsing for the stack's components, on top of `packaging`.

Vendors decorate versions (``1.22.0amzn4.0``, ``1.12.1-aws``, ``2.21.5-1+cuda12.4``,
``2.4.0+cu124``). Comparisons always go through :class:`packaging.version.Version`; this module
only cuts a version string down to the release part that ``packaging`` understands.
"""

from __future__ import annotations

import re
from functools import lru_cache

from packaging.version import InvalidVersion, Version

_RELEASE = re.compile(r"(\d+(?:\.\d+){0,4})")


@lru_cache(maxsize=4096)  # rules ask about the same few versions over and over (a fleet: per stack)
def parse(text: str | None) -> Version | None:
    """The numeric release of a vendor version string, or None if there is none."""
    if not text:
        return None
    match = _RELEASE.search(text.strip())
    if match is None:
        return None
    try:
        return Version(match.group(1))
    except InvalidVersion:
        return None


def key(text: str | None) -> Version:
    """A sort key: the parsed version, with unreadable ones first (``0``)."""
    return parse(text) or Version("0")


def release(text: str | None, parts: int) -> str | None:
    """The first ``parts`` numbers of a version: ``release("12.4.1", 2) == "12.4"``."""
    version = parse(text)
    if version is None:
        return None
    numbers = [*version.release, 0, 0, 0][:parts]
    return ".".join(str(n) for n in numbers)


def matches(text: str | None, specifier: str) -> bool | None:
    """Whether a vendor version falls in a PEP 440 specifier (``">=2.19.3,<2.20.3"``); None when
    either cannot be read."""
    # Imported here: the probes need only versions, and specifiers' import and patterns cost
    # `stackcheck probe` about 0.005 s.
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    version = parse(text)
    if version is None:
        return None
    try:
        return SpecifierSet(specifier).contains(version, prereleases=True)
    except InvalidSpecifier:
        return None


def major(text: str | None) -> int | None:
    version = parse(text)
    return None if version is None else version.major


def same_release(a: str | None, b: str | None, parts: int) -> bool:
    """True when both versions agree on their first ``parts`` numbers."""
    ra, rb = release(a, parts), release(b, parts)
    return ra is not None and ra == rb


def local_tag(text: str | None) -> str | None:
    """The PEP 440 local label (``cu124`` in ``2.4.0+cu124``), if any."""
    if not text or "+" not in text:
        return None
    try:
        return Version(text).local
    except InvalidVersion:
        return text.split("+", 1)[1] or None


def cuda_from_tag(tag: str | None) -> str | None:
    """``cu124`` -> ``12.4``, ``cu118`` -> ``11.8``, ``cu130`` -> ``13.0``; else None."""
    if not tag:
        return None
    match = re.fullmatch(r"cu(\d{2})(\d)", tag.strip().lower())
    if match is None:
        return None
    return f"{int(match.group(1))}.{match.group(2)}"


def cuda_from_int(value: int) -> str:
    """CUDA's integer encoding (12040, from ``cudaDriverGetVersion``) -> ``12.4``."""
    return f"{value // 1000}.{(value % 1000) // 10}"
