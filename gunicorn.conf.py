"""gunicorn settings for the web service (Procfile and Dockerfile run ``gunicorn --config gunicorn.conf.py``).

Read from the environment: PORT (default 8000), WEB_CONCURRENCY (workers, default: one per two
cores with CTranslate2's parallel batches, one per core where batches go one at a time; at most 4),
GUNICORN_TIMEOUT (seconds, default 60). The app's own settings (MODEL_PATH, ...) are read by
``create_app``.
"""

import ctypes
import gc
import os
import re

from gunicorn import glogging

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"

NVIDIA_DRIVER = "/dev/nvidiactl"  # present where an NVIDIA driver is loaded


def serves_on_gpu(environ, driver: str = NVIDIA_DRIVER) -> bool:
    """Whether the app will put the model on a GPU (the DEVICE setting; "auto" means a GPU where a
    driver is present and CUDA_VISIBLE_DEVICES does not hide it), decided without touching CUDA:
    the master process must never initialize it, or every forked worker fails on its first CUDA
    call ("Cannot re-initialize CUDA in forked subprocess")."""
    device = environ.get("DEVICE", "auto").strip().lower()
    if device == "cpu":
        return False
    if device.startswith("cuda"):
        return True
    if environ.get("CUDA_VISIBLE_DEVICES", "0").strip() in ("", "-1"):
        return False
    return os.path.exists(driver)


gpu = serves_on_gpu(os.environ)


def parallel_batches(environ) -> bool:
    """Whether a worker's engine will translate several batches at once: CTranslate2 (ENGINE auto
    or ct2, and the package installed; on a CPU) with PARALLEL_BATCHES other than 1. Decided
    without importing it, as the master must stay light until it loads the app."""
    import importlib.util

    engine = environ.get("ENGINE", "auto").strip().lower()
    return (engine in ("auto", "ct2") and environ.get("PARALLEL_BATCHES", "0").strip() != "1"
            and importlib.util.find_spec("ctranslate2") is not None)


# On a CPU, translation is CPU-bound: with CTranslate2 a worker for every two cores (at most 4),
# each with cores / WEB_CONCURRENCY threads, on which it translates as many batches at once
# (PARALLEL_BATCHES); else (the PyTorch engine, one batch at a time) a worker per core; publish the
# final worker count for that. One worker with two batches at once served more requests than two
# workers with one each, in less memory: one copy of the weights and of the app instead of two;
# with PyTorch two workers served more (docs/journal/serving-load.md, "Parallel batches"). More batches per
# worker would make its Python (HTTP, the text pipeline) the limit, as it holds the GIL. On a GPU:
# one worker per GPU (each would hold its own copy of the model in GPU memory, and one process
# keeps the GPU busy).
# (This file is loaded before the app's directory is importable, so no "from app import ...".)
cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
per_worker = 2 if parallel_batches(os.environ) else 1
workers = int(os.environ.get("WEB_CONCURRENCY") or (1 if gpu else max(1, min(4, cores // per_worker))))
os.environ["WEB_CONCURRENCY"] = str(workers)
# Threads only wait on sockets: a browser's idle pre-opened connection would block a sync worker
# until the timeout, while gthread keeps serving other clients and keep-alive connections. Ours
# (app/worker.py) is gthread whose main loop reads each request whole before a thread takes it: a
# client that sends a byte now and then holds a buffer, not a thread (bench/README.md, "Slow clients").
worker_class = "app.worker.BufferingThreadWorker"
# 8: keep-alive connections stay with the worker that accepted them, and 8 clients often land 5-3
# or 6-2 on two workers; with 4 threads the busier worker made the rest wait (bench/README.md).
threads = int(os.environ.get("GUNICORN_THREADS", "8"))

# On a CPU, load the model once in the master: forked workers share its memory pages copy-on-write,
# and a missing or broken checkpoint stops gunicorn at start with a one-line "Error: ...". On a GPU
# each worker loads its own after the fork (CUDA does not survive a fork); a broken checkpoint then
# stops the worker, and gunicorn exits when workers cannot boot.
preload_app = not gpu

# METRICS=1 (app/metrics.py): every process writes its metrics to files in one directory and
# /metrics sums them (prometheus_client's multiprocess mode). prometheus_client chooses that mode
# when it is first imported, which is when the master preloads the app (or a worker loads it), so
# the variable is set here, before: a fresh private directory of this server, removed when the
# master exits, unless PROMETHEUS_MULTIPROC_DIR is given (then emptying it between runs is yours).
metrics = os.environ.get("METRICS", "").strip() == "1"
if metrics and not (os.environ.get("PROMETHEUS_MULTIPROC_DIR") or os.environ.get("prometheus_multiproc_dir")):
    import atexit
    import shutil
    import tempfile

    metrics_dir = tempfile.mkdtemp(prefix="nmt-metrics-")  # mode 0700, in $TMPDIR
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    master_pid = os.getpid()
    # Workers inherit the handler and run it when they exit (sys.exit): only the master removes it.
    atexit.register(lambda: os.getpid() == master_pid and shutil.rmtree(metrics_dir, ignore_errors=True))


def child_exit(server, worker):
    """A worker is gone (exited, recycled or killed): its live gauges (requests in flight) no longer
    count; its counters and histograms stay in the sums."""
    if metrics:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))  # a stuck worker is killed and replaced
graceful_timeout = 30
keepalive = 5

# The longest request line gunicorn lets through (its maximum; the default is 4094): longer ones get
# gunicorn's own bare 414 page. The app answers 414 itself (JSON on API paths, its error page
# elsewhere) for query strings over its own, lower bound (app/errors.py, MAX_QUERY_BYTES).
limit_request_line = 8190

# Recycle workers now and then so slow memory growth (fragmentation) cannot accumulate; the jitter
# keeps all workers from restarting at the same moment. Rarely: a recycled worker forgets its
# CTranslate2 translator and its batching rhythm, and at a few hundred requests a second 1,000
# meant a restart every few seconds (bench/README.md, load.py).
max_requests = 20000
max_requests_jitter = 2000

# Memory (docs/journal/serving-load.md, "Memory"). Under load, each request thread that runs the model (the
# torch alignment of spans) got its own glibc malloc arena and its own pool of MKL buffers, and
# kept them: with 8 threads a worker grew by about 100 MiB. Two arenas and MKL without its pool
# keep that near 30 MiB, at no measured cost in speed. And glibc raises its mmap threshold each
# time it frees a large mmapped block, so that the next large blocks (a batch's logits, the
# channel's scores: 1-6 MiB) come from the heap, where freed memory stays with the process until
# a trim; a fixed threshold of 1 MiB gives each such block back when it is freed. The app gives
# back what stays free when a worker goes idle (app/memory.py). An operator's own variable wins.
# The allocators read these when they start, so they are set here, before the app loads (and with
# ctypes: the app's modules are not importable yet).
os.environ.setdefault("MKL_DISABLE_FAST_MM", "1")
MALLOC_ARENAS = 2
MMAP_THRESHOLD = 1 << 20
# glibc's variable for each setting, its mallopt parameter number (malloc.h), and our value.
MALLOPT = {"MALLOC_ARENA_MAX": (-8, MALLOC_ARENAS), "MALLOC_MMAP_THRESHOLD_": (-3, MMAP_THRESHOLD)}


def set_malloc_options(environ) -> list[str]:
    """Apply ``MALLOPT`` to this process (and so to the workers it forks) where the operator has
    not set the variable; the variables applied (none where the C library is not glibc)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return []  # not glibc: nothing to tune
    applied = []
    for variable, (parameter, value) in MALLOPT.items():
        if variable not in environ and mallopt(parameter, value) == 1:
            applied.append(variable)
    return applied


set_malloc_options(os.environ)


def when_ready(server):
    """The master has loaded the app (preload_app) and is about to fork the workers: the objects
    loaded so far leave the garbage collector's generations, so that a worker's collections do
    not write to, and so copy, the memory pages it shares with the master; the library code that
    only loading ran leaves the master's memory."""
    gc.collect()
    gc.freeze()
    if preload_app:
        # The app is loaded, so importable. The library code that loading ran stays mapped in the
        # master alone and counted in full in its PSS (about 45 MiB: docs/journal/serving-load.md, "Memory").
        from app.memory import unmap_clean_file_pages

        unmap_clean_file_pages()


class RedactingLogger(glogging.Logger):
    """gunicorn's logger with API keys left out of the access log: clients may send ``api_key`` in
    the query string (LibreTranslate's clients do), and a log line must not hand it to whoever
    reads the logs. It goes from the request line, query string, referrer and every other atom."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        for name, value in atoms.items():
            if isinstance(value, str) and "api_key" in value.lower():
                atoms[name] = API_KEY_PARAMETER.sub(r"\1[redacted]", value)
        if "{authorization}i" in atoms:
            atoms["{authorization}i"] = "[redacted]"
        return atoms


API_KEY_PARAMETER = re.compile(r"(?i)((?:^|[?&;\s])api_key=)[^&;\s\"]*")
logger_class = RedactingLogger
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info")

# Heartbeat files in memory: a slow disk (common in containers) must not make workers look dead.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None

# gunicorn >= 25 opens a management socket at one fixed path per user; two servers on one machine
# (tests, a benchmark next to a dev server) would collide on it, and nothing here uses it.
control_socket_disable = True
