"""A time budget for one piece of work (one request of the web service), checked as it goes.

A request must never hold a worker for long: a thread cannot be stopped from outside, so the
work checks its own budget at the points where it can stop cleanly (before each call of the
model, between the sentences of a plan, between the parts of a file) and raises
``DeadlineExceeded`` once the budget is spent; the service answers it with a 503. The budget
is a context variable, so each request thread has its own, and code run without one (the
commands, the tests) is never stopped.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("deadline", default=None)  # (end, budget)


class DeadlineExceeded(RuntimeError):
    """The work took longer than its budget; the message says how long that was."""


@contextmanager
def budget(seconds: float | None) -> Iterator[None]:
    """Run the body with a budget of ``seconds`` (None or 0: none)."""
    token = _DEADLINE.set((time.monotonic() + seconds, seconds) if seconds else None)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def start(seconds: float | None) -> object:
    """``budget`` for code that cannot wrap a block (a request's hooks): returns a token for ``stop``."""
    return _DEADLINE.set((time.monotonic() + seconds, seconds) if seconds else None)


def stop(token: object) -> None:
    _DEADLINE.reset(token)  # type: ignore[arg-type]


def check() -> None:
    """Raise ``DeadlineExceeded`` when the current budget is spent."""
    current = _DEADLINE.get()
    if current is not None and time.monotonic() > current[0]:
        raise DeadlineExceeded(f"the work took longer than its budget of {current[1]:g} seconds")
