"""How a recommendation describes what it would change: ``driver 535.161.07 -> 580.105.08``."""

from __future__ import annotations


def change(label: str, have: str | None, get: str | None) -> str | None:
    """``label have -> get``; nothing when either side is unknown or they are the same."""
    if not get or not have or have == get:
        return None
    return f"{label} {have} -> {get}"


def changes(*items: tuple[str, str | None, str | None]) -> list[str]:
    return [c for c in (change(*item) for item in items) if c]
