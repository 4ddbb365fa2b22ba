"""A one-line progress display for long scans (layers done, bytes read, rate), on a terminal
only: in CI or when stderr is a file, it stays silent."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

_INTERVAL = 0.2


def _size(count: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000
    return f"{count:.1f} GB"


class Progress:
    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty()) if enabled is None else enabled
        self.lock = threading.Lock()
        self.layers = 0
        self.done = 0
        self.bytes = 0
        self.started = time.monotonic()
        self.shown = 0.0

    def start(self, layers: int) -> None:
        with self.lock:
            self.layers += layers

    def advance(self, count: int) -> None:
        with self.lock:
            self.bytes += count
            self._show(force=False)

    def layer_done(self) -> None:
        with self.lock:
            self.done += 1
            self._show(force=True)

    def _show(self, force: bool) -> None:
        now = time.monotonic()
        if not self.enabled or (not force and now - self.shown < _INTERVAL):
            return
        self.shown = now
        rate = self.bytes / max(now - self.started, 1e-6)
        self.stream.write(
            f"\rscanning: {self._layers()} · {_size(self.bytes)} · {_size(rate)}/s\033[K"
        )
        self.stream.flush()

    def _layers(self) -> str:
        # A compressed archive is walked front to back: its layer count is known only after.
        if self.layers < self.done or not self.layers:
            return f"{self.done} layer{'' if self.done == 1 else 's'}"
        return f"{self.done}/{self.layers} layers"

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()
