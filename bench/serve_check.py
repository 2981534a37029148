"""Ask a running server (bench/gpu_check.sh's serve step) every kind of question once.

    python bench/serve_check.py PORT SERVER_PID

Waits until /health answers (or the server process is gone), then calls /health, /translate,
/api/attention and the inspector's /api/explain, /api/complete and /api/beam; prints one line
"PATH STATUS MS; ..." and exits 1 unless every answer was 200.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request

Q = "Wie spät ist es?"
CALLS = [("/health", None), ("/translate", {"q": Q, "source": "de", "target": "en"}), ("/api/attention", {"q": Q}),
         ("/api/explain", {"q": Q}), ("/api/complete", {"q": Q, "prefix": "What"}), ("/api/beam", {"q": Q})]


def wait_until_up(base: str, pid: int, seconds: float = 120) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return  # the server died: the calls below say so
        try:
            urllib.request.urlopen(base + "/health", timeout=2)
            return
        except urllib.error.HTTPError:
            return  # it answers, if not with 200
        except OSError:
            time.sleep(0.5)


def call(base: str, path: str, body: dict | None) -> tuple[int | str, float]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            code: int | str = response.status
    except urllib.error.HTTPError as error:
        code = error.code
    except OSError as error:
        code = type(error).__name__
    return code, 1000 * (time.perf_counter() - start)


def main(port: str, pid: str) -> int:
    base = f"http://127.0.0.1:{port}"
    wait_until_up(base, int(pid))
    results = [(path, *call(base, path, body)) for path, body in CALLS]
    print("; ".join(f"{path} {code} {ms:.0f} ms" for path, code, ms in results))
    return 0 if all(code == 200 for _, code, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
