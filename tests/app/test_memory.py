"""app.memory: memory that malloc holds free goes back to the system (glibc, as on Debian and CI)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.memory import clean_file_mappings, glibc, release_free_memory

ROOT = Path(__file__).resolve().parents[2]


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



SMAPS = """\
00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/python3
Rss:                 300 kB
Anonymous:             0 kB
00651000-00652000 r--p 00051000 08:02 173521      /usr/bin/python3
Rss:                   4 kB
Anonymous:             4 kB
00652000-00655000 rw-p 00052000 08:02 173521      /usr/bin/python3
Anonymous:            12 kB
00e03000-00e24000 rw-p 00000000 00:00 0          [heap]
Anonymous:           132 kB
7f0c00000000-7f0c00021000 r--s 00000000 08:02 4711 /srv/model.bin
Anonymous:             0 kB
7f0c10000000-7f0c10021000 ---p 00000000 00:00 0
Anonymous:             0 kB
7ffd4e3f0000-7ffd4e3f2000 r-xp 00000000 00:00 0          [vdso]
Anonymous:             0 kB
"""


def test_clean_file_mappings_are_the_unwritten_read_only_ones():
    """Code and a read-only shared file are in; relocated read-only data (written once), writable
    data, the heap, anonymous and kernel mappings are out."""
    assert clean_file_mappings(SMAPS) == [(0x400000, 0x452000), (0x7F0C00000000, 0x7F0C00021000)]


@pytest.mark.slow
def test_unmapped_code_leaves_the_process_and_comes_back_when_run(tmp_path):
    """In a fresh process that ran torch: its code leaves the resident set, and torch computes the
    same result afterwards (the pages come back from the file)."""
    script = tmp_path / "unmap.py"
    script.write_text(
        "import re, torch\n"
        "from app.memory import unmap_clean_file_pages\n"
        "def code_kib():\n"
        "    total, code = 0, False\n"
        "    for line in open('/proc/self/smaps'):\n"
        "        if re.match(r'^[0-9a-f]+-', line):\n"
        "            code = ' r-xp ' in line and 'libtorch_cpu' in line\n"
        "        elif line.startswith('Rss:') and code:\n"
        "            total += int(line.split()[1])\n"
        "    return total\n"
        "x = torch.arange(12.0).reshape(3, 4)\n"
        "before = (x @ x.T).tolist()\n"
        "resident = code_kib()\n"
        "advised = unmap_clean_file_pages()\n"
        "left = code_kib()\n"
        "assert (x @ x.T).tolist() == before\n"
        "print(resident, left, advised)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    resident, left, advised = map(int, done.stdout.split())
    assert resident > 10_000 and left < resident / 10 and advised > resident * 1024
