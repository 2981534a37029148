"""app.memory: memory that malloc holds free goes back to the system (glibc, as on Debian and CI)."""

from __future__ import annotations

import ctypes
import mmap
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app.memory import clean_file_mappings, glibc, release_free_memory, unmap_pages

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


def mapping_rss_kib(path: Path) -> int:
    """Resident KiB of this process's mappings of ``path`` (/proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            inside = line.rstrip().endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


def test_unmapped_pages_of_a_file_leave_the_process_and_read_back_the_same(tmp_path):
    data = bytes(range(256)) * (4 * 4096)  # 4 MiB
    path = tmp_path / "weights.bin"
    path.write_bytes(data)
    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), len(data), access=mmap.ACCESS_COPY)  # private, as torch.load(mmap=True)
    try:
        start = ctypes.addressof(ctypes.c_char.from_buffer(mapped))
        assert mapped[:] == data and mapping_rss_kib(path) >= 4000  # read: resident
        # A range that is not page-aligned is widened to whole pages.
        assert unmap_pages([(start + 100, start + len(data) - 100)]) == len(data)
        assert mapping_rss_kib(path) == 0
        assert mapped[:] == data  # read back from the file
    finally:
        del start
        mapped.close()


def test_an_idle_worker_unmaps_the_pytorch_weights_the_attention_view_read(make_app):
    """Beside CTranslate2 the PyTorch weights are mapped from a file; the attention view reads
    them, and the service's idle hook (``release_memory``) takes them out of the process again,
    while the next view is the same."""
    service = make_app(ENGINE="ct2", TRANSLATION_CACHE=0).extensions["translation_service"]
    # Called here, not by the batcher's scheduler thread going idle at a moment of its own.
    assert service.batcher.on_idle == service.release_memory  # tests/app/test_batching.py
    service.batcher.on_idle = None
    torch_side = service.translator.torch
    start, end = torch_side.mapped_weights()
    state = torch_side.model.state_dict().values()
    assert all(start <= t.untyped_storage().data_ptr() < end for t in state)
    file = next(Path(p) for p in Path(f"/proc/{os.getpid()}/map_files").iterdir()
                if int(p.name.split("-")[0], 16) <= start < int(p.name.split("-")[1], 16)).resolve()
    assert service.translate(["Guten Morgen."]) == ["Good morning."]
    assert torch_side.take_weights_read() is False  # CTranslate2 translated and aligned
    seen = service.attention("Guten Morgen.")
    assert mapping_rss_kib(file) > 1000  # the tiny model's 0.96M weights in float32: 3.7 MiB
    service.release_memory()
    assert mapping_rss_kib(file) <= 16  # the file's own headers and index around the weights
    assert torch_side.take_weights_read() is False  # taken by release_memory
    assert service.attention("Guten Morgen.") == seen
    assert torch_side.take_weights_read() is True
