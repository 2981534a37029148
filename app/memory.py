"""Memory freed by the model calls goes back to the system, so that a worker's footprint follows
its load instead of keeping its peak.

glibc's malloc keeps freed memory for later, most of all after large blocks (left to itself it
raises its mmap threshold when one is freed, so the next ones come from the heap; gunicorn.conf.py
fixes the threshold for the server). ``release_free_memory`` asks it to return what is free
(``malloc_trim``). The service calls it when a worker's batching scheduler goes idle, after loading
(``init_app``), and after each noisy-channel scoring (whose logits, ``[pairs, length, vocabulary]``
floats, are the largest blocks a worker allocates), never after the other engine calls of a busy
worker: a trim takes about a millisecond. The settings that keep the allocators lean from the start
(``MALLOC_ARENA_MAX``, ``MALLOC_MMAP_THRESHOLD_``, ``MKL_DISABLE_FAST_MM``) are in gunicorn.conf.py;
the figures are in docs/journal/serving-load.md, "Memory".

``unmap_clean_file_pages`` is for gunicorn's master, once it has loaded the app and before it forks:
the library code that importing torch, loading the checkpoint and converting it ran (tens of MiB of
``libtorch_cpu.so``) stays mapped in the master alone, which never runs it again, and counts in full
in the server's PSS. Unmapping the pages it never wrote is safe: a page touched again is read back
from the file (the page cache), exactly as it was. A worker that goes idle after the PyTorch model
beside CTranslate2 ran (the inspector, an attention view) does the same, and unmaps that model's
weights (``unmap_pages`` over ``Translator.mapped_weights``), which would otherwise stay in it for
good.
"""

from __future__ import annotations

import ctypes
import functools
import mmap
import re
from collections.abc import Iterable


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


MADV_DONTNEED = 4  # <sys/mman.h>, Linux
MAPPING = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+ *(.*)$")


def clean_file_mappings(smaps: str) -> list[tuple[int, int]]:
    """The (start, end) of the mappings in ``smaps`` (the text of /proc/PID/smaps) that hold a
    file's pages read-only and unchanged: a path, no write permission, no anonymous (written,
    copy-on-write) pages. Relocated data is read-only too, but has been written: it is left out."""
    spans, current = [], None
    for line in smaps.splitlines():
        if (header := MAPPING.match(line)) is not None:
            start, end, perms, path = header.groups()
            current = (int(start, 16), int(end, 16)) if "w" not in perms and path.startswith("/") else None
        elif line.startswith("Anonymous:") and current is not None:
            if int(line.split()[1]) == 0:
                spans.append(current)
            current = None
    return spans


def unmap_clean_file_pages() -> int:
    """Unmap this process's unchanged pages of read-only file mappings (code and constants of the
    program and its libraries); they come back from the page cache when touched again. Returns the
    bytes of the mappings advised; 0 where /proc or madvise is missing (not Linux)."""
    try:
        with open("/proc/self/smaps") as f:
            smaps = f.read()
    except OSError:
        return 0
    return unmap_pages(clean_file_mappings(smaps))


def unmap_pages(spans: Iterable[tuple[int, int]]) -> int:
    """Unmap the pages of each (start, end) of a file mapping whose pages were never written (code,
    the PyTorch weights of ``Translator.mapped_weights``), widened to whole pages: they leave this
    process's memory and are read back from the page cache, exactly as they were, when next used.
    A caller that knows the addresses reads nothing from /proc (20-odd ms of smaps in a worker).
    The bytes advised; 0 where madvise is missing (not Linux)."""
    try:
        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return 0
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    page = mmap.PAGESIZE
    advised = 0
    for start, end in spans:
        start, end = start - start % page, -(-end // page) * page
        if madvise(start, end - start, MADV_DONTNEED) == 0:  # EINVAL for device mappings: skipped
            advised += end - start
    return advised
