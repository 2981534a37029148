"""Several replicas (docs/serving.md, "Several machines"): two gunicorn instances of the Procfile's command,
two workers each, sharing one real redis-server (REDIS_URL) and one API key database, over HTTP as
a load balancer would reach them. Files, limits and metrics hold across them."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import uuid
from dataclasses import dataclass

import pytest
from bench import server

from .conftest import isolated_environ
from .test_metrics import value as metric

ROOT = server.ROOT
OK = {"source": "de", "target": "en"}


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body)


def call(port: int, method: str, path: str, body: bytes | None = None, content_type: str = "") -> Answer:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)  # a new connection each time
    try:
        headers = {"Connection": "close", **({"Content-Type": content_type} if content_type else {})}
        connection.request(method, path, body, headers)
        response = connection.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        connection.close()


def post_json(port: int, path: str, payload: dict) -> Answer:
    return call(port, "POST", path, json.dumps(payload).encode(), "application/json")


def post_file(port: int, name: str, data: bytes, **fields: str) -> Answer:
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                 f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return call(port, "POST", "/translate_file", body, f"multipart/form-data; boundary={boundary}")


def add_key(database, req_limit: int) -> str:
    done = subprocess.run([sys.executable, "-m", "commands.keys", "--db", str(database), "add", "--req-limit",
                           str(req_limit)], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@dataclass
class Replicas:
    ports: tuple[int, int]
    key: str           # a key without a limit
    limited_key: str   # a key with LIMITED requests per minute
    logs: list


LIMITED = 5


@pytest.fixture(scope="module")
def replicas(tiny_checkpoint, corpus_path, redis_server, tmp_path_factory):
    import redis

    redis.Redis.from_url(redis_server.url).flushall()
    tmp = tmp_path_factory.mktemp("replicas")
    database = tmp / "api_keys.db"
    key, limited_key = add_key(database, 0), add_key(database, LIMITED)
    processes, ports, logs = [], [], []
    try:
        for name in ("a", "b"):
            log_path = tmp / f"{name}.log"
            logs.append(log_path)
            with open(log_path, "wb") as log:
                process, port = server.start(
                    log, environ=isolated_environ(), MODEL_PATH=str(tiny_checkpoint), CORPUS_PATH=str(corpus_path),
                    WEB_CONCURRENCY="2", BEAM_SIZE="1", REDIS_URL=redis_server.url, API_KEYS_DB=str(database),
                    METRICS="1")
            processes.append(process)
            ports.append(port)
        yield Replicas(tuple(ports), key, limited_key, logs)
    finally:
        for process in processes:
            server.stop(process)
    for log_path in logs:
        assert "Traceback" not in log_path.read_text(errors="replace")


def test_a_file_uploaded_through_one_replica_downloads_once_through_the_other(replicas):
    a, b = replicas.ports
    uploaded = post_file(a, "brief.txt", "Guten Morgen.\nVielen Dank.\n".encode(), api_key=replicas.key, **OK)
    assert uploaded.status == 200, uploaded.body
    url = uploaded.json()["translatedFileUrl"]
    path = url[url.index("/download_file/"):]
    expected = [post_json(a, "/translate", {"q": q, "api_key": replicas.key, **OK}).json()["translatedText"]
                for q in ("Guten Morgen.", "Vielen Dank.")]
    got = call(b, "GET", path)
    assert got.status == 200
    assert got.body.decode() == "\n".join(expected) + "\n"
    assert got.headers["content-disposition"] == "attachment; filename=brief_en.txt"
    # once: gone through either replica now
    for port in (a, b):
        gone = call(port, "GET", path)
        assert gone.status == 404 and "error" in gone.json()


def test_a_limit_holds_across_both_replicas(replicas):
    a, b = replicas.ports
    statuses = [post_json(port, "/translate", {"q": "Hallo.", "api_key": replicas.limited_key, **OK})
                for port in (a, b) * 4]
    assert [s.status for s in statuses] == [200] * LIMITED + [429] * (8 - LIMITED)
    refused = statuses[-1]
    assert refused.json() == {"error": f"Too many requests: the limit is {LIMITED} per 1 minute"}
    assert 0 < int(refused.headers["retry-after"]) <= 60
    # the other key's budget is its own
    assert post_json(b, "/translate", {"q": "Hallo.", "api_key": replicas.key, **OK}).status == 200


def test_metrics_of_a_replica_count_what_either_of_its_workers_answered(replicas):
    a, b = replicas.ports
    before = [metric(call(port, "GET", "/metrics").body.decode(), "nmt_requests_total",
                     endpoint="/detect", status="200") for port in (a, b)]
    # new connections each time: gunicorn's two workers of replica a share them out
    for _ in range(20):
        assert post_json(a, "/detect", {"q": "Guten Morgen.", "api_key": replicas.key}).status == 200
    for _ in range(3):  # whichever worker of a answers the scrape, it counts all 20 of a's
        text = call(a, "GET", "/metrics").body.decode()
        assert metric(text, "nmt_requests_total", endpoint="/detect", status="200") == before[0] + 20
    # replica b has its own metrics (Prometheus scrapes each instance; it sums them)
    text = call(b, "GET", "/metrics").body.decode()
    assert metric(text, "nmt_requests_total", endpoint="/detect", status="200") == before[1]
