"""Sizes and limits as people write them: ``64M``, ``1g``, ``10.24gb``, ``20Gi``, ``unlimited``."""

from __future__ import annotations

import re

_SIZE = re.compile(r"^\s*(\d{1,15}(?:\.\d{1,6})?)\s*([kmgtp]?)(i?)(b?)\s*$", re.IGNORECASE)
_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
UNLIMITED = -1


def size_bytes(text: str | None, default_unit: str = "") -> int | None:
    """Bytes in a size such as docker's ``--shm-size=1g`` (binary multiples, as docker and df
    use them) or Kubernetes' ``20Gi``; None when it is not a size."""
    if text is None:
        return None
    match = _SIZE.match(text.strip().strip("'\""))
    if match is None:
        return None
    number, unit = float(match.group(1)), (match.group(2) or default_unit).lower()
    return int(number * (1024 ** _POWERS[unit]))


def limit_bytes(text: str | None, default_unit: str = "") -> int | None:
    """A resource limit: a size, or -1 for ``unlimited`` / ``infinity`` / ``-1``."""
    if text is None:
        return None
    value = text.strip().strip("'\"").lower()
    if value in ("unlimited", "infinity", "-1"):
        return UNLIMITED
    return size_bytes(value, default_unit)
