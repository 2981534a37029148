"""Stopping a run cleanly: SIGTERM and SIGINT ask train.py to save after its current step."""

from __future__ import annotations

import signal
import threading
from typing import Any


class StopSignals:
    """While entered, SIGTERM or SIGINT asks the run to stop after its current step and save: a
    scheduler's preemption, a watchdog (bench/gpu_train.sh) or Ctrl-C then loses no steps. A
    second signal gets the previous handler (Ctrl-C twice stops at once); a signal the process
    ignores (SIGINT of a background job) stays ignored. Only the main thread can install handlers;
    elsewhere this does nothing."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self) -> None:
        self.received: str | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> "StopSignals":
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                if signal.getsignal(signum) is not signal.SIG_IGN:
                    self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def _handle(self, signum: int, frame) -> None:
        self.received = signal.Signals(signum).name
        self._restore()

    def _restore(self) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}

    def __exit__(self, *exc) -> None:
        self._restore()
