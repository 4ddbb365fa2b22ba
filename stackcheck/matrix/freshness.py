"""How old the bundled matrix is. Like a vulnerability database, it goes stale: after
``MAX_AGE_DAYS`` every command says so (on stderr for text output, in ``warnings`` for JSON)."""

from __future__ import annotations

from datetime import date

from stackcheck.matrix.models import Matrix

MAX_AGE_DAYS = 120


def age_days(matrix: Matrix, today: date) -> int | None:
    return None if matrix.built is None else (today - matrix.built).days


def stale_warning(matrix: Matrix, today: date) -> str | None:
    """One line when the matrix was built more than ``MAX_AGE_DAYS`` before ``today``."""
    age = age_days(matrix, today)
    if age is None or age <= MAX_AGE_DAYS:
        return None
    return (
        f"the compatibility matrix {matrix.version} was built on {matrix.built} ({age} days ago, "
        f"more than {MAX_AGE_DAYS}): newer drivers, CUDA, NCCL and images may be missing; "
        "update stackcheck, or add facts with --matrix-dir"
    )
