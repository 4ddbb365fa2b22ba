"""Reading a local git checkout (or bare mirror) at a revision, bounded in time and bytes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from stackcheck.errors import StackcheckError

_TIMEOUT_S = 60
_MAX_BYTES = 8 * 1024 * 1024


def _git(repo: Path, *arguments: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *arguments],
            capture_output=True,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StackcheckError(f"git {' '.join(arguments)} in {repo}: {exc}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise StackcheckError(
            f"git {' '.join(arguments)} in {repo}: {message[-1] if message else 'failed'}"
        )
    return done.stdout[:_MAX_BYTES].decode("utf-8", "replace")


def tags(repo: Path) -> list[str]:
    return _git(repo, "tag", "--list").split()


def commit(repo: Path, revision: str) -> str:
    return _git(repo, "rev-parse", f"{revision}^{{commit}}").strip()


def show(repo: Path, revision: str, path: str) -> str | None:
    """The file at ``revision``, or None when it does not exist there."""
    try:
        return _git(repo, "show", f"{revision}:{path}")
    except StackcheckError:
        return None


def grep(repo: Path, revision: str, pattern: str, *paths: str) -> list[str]:
    """Every line matching the extended regex ``pattern`` at ``revision`` (pathspecs allowed)."""
    try:
        out = _git(
            repo, "grep", "-h", "-I", "-E", "--no-color", "-e", pattern, revision, "--", *paths
        )
    except StackcheckError:
        return []  # git grep exits 1 when nothing matches
    return out.splitlines()
