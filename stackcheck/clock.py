"""Today's date, in one place, so tests can set the clock (matrix age, end-of-patch dates)."""

from __future__ import annotations

from datetime import date, datetime, timezone


def today() -> date:
    return datetime.now(timezone.utc).date()
