"""Running a host command with a hard timeout, never a shell."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

DEFAULT_TIMEOUT = 3.0


@dataclass(frozen=True)
class CommandResult:
    argv: tuple[str, ...]
    stdout: str | None  # None when the command could not give an answer
    reason: str | None = None  # why there is no answer

    @property
    def command_line(self) -> str:
        return " ".join(self.argv)


def run(argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
    """Run ``argv`` with stdin closed; a missing tool, a failure or a hang becomes a reason."""
    key = tuple(argv)
    if shutil.which(argv[0]) is None:
        return CommandResult(key, None, f"{argv[0]} not found on PATH")
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return CommandResult(key, None, f"{argv[0]} did not answer within {timeout:g} s")
    except OSError as exc:
        return CommandResult(key, None, f"{argv[0]} could not run: {exc.strerror or exc}")
    stdout = done.stdout.decode("utf-8", errors="replace")
    if done.returncode != 0:
        first = (done.stderr.decode("utf-8", errors="replace") or stdout).strip().splitlines()
        detail = first[0] if first else "no output"
        return CommandResult(key, None, f"{argv[0]} exited {done.returncode}: {detail}")
    return CommandResult(key, stdout)
