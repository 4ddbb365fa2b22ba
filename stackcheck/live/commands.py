"""Running a host command with a hard timeout, never a shell.

The command runs in a session (process group) of its own, and the whole group is killed when it
times out, floods its output or exits: a tool behind a shell wrapper leaves no children running.
Its output is read up to ``limits.SUBPROCESS_OUTPUT_BYTES``; past that the command is stopped and
what fits is kept, with a reason that says the rest was cut.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass

from stackcheck.limits import SUBPROCESS_OUTPUT_BYTES, SUBPROCESS_STDERR_BYTES

DEFAULT_TIMEOUT = 3.0
_PIECE = 1 << 16


@dataclass(frozen=True)
class CommandResult:
    argv: tuple[str, ...]
    stdout: str | None  # None when the command could not give an answer
    reason: str | None = None  # why there is no answer, or why the answer is partial

    @property
    def command_line(self) -> str:
        return " ".join(self.argv)


def run(argv: list[str], timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
    """Run ``argv`` with stdin closed; a missing tool, a failure or a hang becomes a reason."""
    key = tuple(argv)
    if shutil.which(argv[0]) is None:
        return CommandResult(key, None, f"{argv[0]} not found on PATH")
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, killed whole below
        )
    except OSError as exc:
        return CommandResult(key, None, f"{argv[0]} could not run: {exc.strerror or exc}")
    try:
        out, err, ended = _collect(process, timeout)
    finally:
        kill_group(process)
    if ended == "timeout":
        return CommandResult(key, None, f"{argv[0]} did not answer within {timeout:g} s")
    stdout = out.decode("utf-8", errors="replace")
    if ended == "cut":
        cut = f"{argv[0]} printed more than {SUBPROCESS_OUTPUT_BYTES} bytes; the rest was cut"
        return CommandResult(key, stdout, cut)
    if process.returncode != 0:
        first = (err.decode("utf-8", errors="replace") or stdout).strip().splitlines()
        detail = first[0] if first else "no output"
        return CommandResult(key, None, f"{argv[0]} exited {process.returncode}: {detail}")
    return CommandResult(key, stdout)


def _collect(process: subprocess.Popen[bytes], timeout: float) -> tuple[bytes, bytes, str]:
    """(stdout, stderr, how it ended: "exit", "timeout" or "cut"), each stream bounded."""
    assert process.stdout is not None and process.stderr is not None
    deadline = time.monotonic() + timeout
    caps = {process.stdout.fileno(): SUBPROCESS_OUTPUT_BYTES,
            process.stderr.fileno(): SUBPROCESS_STDERR_BYTES}  # fmt: skip
    chunks: dict[int, list[bytes]] = {fd: [] for fd in caps}
    sizes = dict.fromkeys(caps, 0)
    with selectors.DefaultSelector() as selector:
        for stream in (process.stdout, process.stderr):
            selector.register(stream, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return b"", b"", "timeout"
            for key, _ in selector.select(left):
                fd = key.fd
                data = os.read(fd, _PIECE)
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                keep = data[: caps[fd] - sizes[fd]]
                chunks[fd].append(keep)
                sizes[fd] += len(keep)
                if len(keep) < len(data) and fd == process.stdout.fileno():
                    return b"".join(chunks[fd]), b"", "cut"
    try:
        process.wait(max(deadline - time.monotonic(), 0.01))
    except subprocess.TimeoutExpired:
        return b"", b"", "timeout"
    out, err = (b"".join(chunks[s.fileno()]) for s in (process.stdout, process.stderr))
    return out, err, "exit"


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the command's whole process group (it leads it), then reap it and close pipes."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(1.0)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
