"""Memory freed by the model calls goes back to the system, so that a worker's footprint follows
its load instead of keeping its peak.

glibc's malloc keeps freed memory for later, most of all after large blocks (it raises its mmap
threshold when one is freed, so the next ones come from the heap). ``release_free_memory`` asks it
to return what is free (``malloc_trim``). The service calls it when a worker's batching scheduler
goes idle, after loading (``init_app``), never between the engine calls of a busy worker: a trim
takes about a millisecond. The settings that keep the allocators lean from the start
(``MALLOC_ARENA_MAX``, ``MKL_DISABLE_FAST_MM``) are in gunicorn.conf.py; the figures are in
bench/README.md, "Memory".
"""

from __future__ import annotations

import ctypes
import functools


@functools.cache
def glibc() -> ctypes.CDLL | None:
    """This process's C library where it is glibc (whose malloc can be trimmed), else None."""
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # a symbol of glibc only
        libc.malloc_trim  # noqa: B018 - present since glibc 2.0
        return libc
    except (OSError, AttributeError):
        return None


def release_free_memory() -> bool:
    """Return the memory malloc holds free to the system; whether it could (glibc only)."""
    libc = glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True
