"""How many CPU threads torch uses (the CPUs this process may really use, not the host's), and
which native bfloat16 instructions the CPU has."""

from __future__ import annotations

import math
import os
from pathlib import Path


def available_cpus() -> int:
    """CPUs this process may really use: its affinity mask, capped by a cgroup v2 CPU quota."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:  # containers: "max 100000" (no limit) or "200000 100000" (2 CPUs)
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cpus = min(cpus, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cpus)


def set_threads(requested: int | None = None) -> int:
    """Set torch's intra-op thread count and return it.

    An explicit ``requested`` wins; then ``OMP_NUM_THREADS``/``MKL_NUM_THREADS`` (torch already
    read it); otherwise the CPUs this process may use (affinity and container quota, not the
    host's core count), at most 16: beyond that, small matrices gain nothing from more threads."""
    import torch

    if requested is None:
        if os.environ.get("OMP_NUM_THREADS") or os.environ.get("MKL_NUM_THREADS"):
            return torch.get_num_threads()
        requested = min(available_cpus(), 16)
    torch.set_num_threads(requested)
    return requested


def cpu_bf16_support() -> str:
    """The CPU's native bfloat16 instructions, as /proc/cpuinfo lists them ('' where none): where
    there are none, bfloat16 matrix products are emulated and slower than float32's."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return ""
    return " ".join(sorted(flag for flag in set(flags) if flag in ("avx512_bf16", "amx_bf16")))
