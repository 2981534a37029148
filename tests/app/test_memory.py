"""app.memory: memory that malloc holds free goes back to the system (glibc, as on Debian and CI)."""

from __future__ import annotations

import ctypes
import os

import pytest

from app.memory import glibc, release_free_memory


def resident_mib() -> float:
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(glibc() is None, reason="malloc_trim is glibc's")
def test_free_memory_in_the_middle_of_the_heap_goes_back():
    libc = glibc()
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    # 160 MiB in blocks below the mmap threshold, so from the heap, written so that they are
    # resident; one block allocated after them keeps the heap's top from shrinking by itself.
    blocks = [libc.malloc(4096) for _ in range(40_000)]
    for block in blocks:
        ctypes.memset(block, 1, 4096)
    pin = libc.malloc(4096)
    try:
        for block in blocks:
            libc.free(block)
        held = resident_mib()
        assert release_free_memory() is True
        assert held - resident_mib() > 100
    finally:
        libc.free(pin)

