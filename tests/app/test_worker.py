"""app/worker.py: requests are read whole by the worker's loop before a thread serves them."""

import http.client
import json
import socket
import time

import pytest

from app import worker
from bench import slow_clients
from app.worker import Request

HEAD = b"POST /translate HTTP/1.1\r\nHost: x\r\n"


@pytest.mark.parametrize("data, complete", [
    (b"GET /health HTTP/1.1\r\nHost: x\r\n", False),
    (b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n", True),
    (HEAD + b"Content-Length: 5\r\n\r\nabcd", False),
    (HEAD + b"Content-Length: 5\r\n\r\nabcde", True),
    (HEAD + b"content-length:  5 \r\n\r\nabcde", True),
    (HEAD + b"Content-Length: 0\r\n\r\n", True),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n", False),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n0\r\n", False),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n0\r\n\r\n", True),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\n5;ext=1\r\nabcde\r\n0\r\nX-Trailer: 1\r\n", False),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\n5;ext=1\r\nabcde\r\n0\r\nX-Trailer: 1\r\n\r\n", True),
    # framing the parser refuses at once (400): nothing more to wait for
    (HEAD + b"Content-Length: 5\r\nContent-Length: 6\r\n\r\n", True),
    (HEAD + b"Content-Length: -1\r\n\r\n", True),
    (HEAD + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", True),
    (HEAD + b"Transfer-Encoding: chunked, gzip\r\n\r\n", True),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n", True),
    # a body over the app's limit: the app answers 413 without reading it
    (HEAD + b"Content-Length: 1001\r\n\r\n", True),
    (HEAD + b"Content-Length: 1000\r\n\r\n", False),
    (HEAD + b"Transfer-Encoding: chunked\r\n\r\n3e9\r\n" + b"a" * 1001, True),
    (b"PRI * HTTP/2.0\r\n", True),
])
def test_a_request_is_complete_when_the_parser_needs_nothing_more(data, complete):
    request = Request(max_body=1000)
    request.feed(data)
    assert request.complete is complete


def test_a_request_fed_a_byte_at_a_time_completes_at_its_last_byte():
    data = HEAD + b"Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    request = Request(max_body=1000)
    for k in range(len(data)):
        assert not request.complete, k
        request.feed(data[k:k + 1])
    assert request.complete and request.expects_continue and bytes(request.data) == data


def test_a_head_that_never_ends_is_complete_past_its_bound():
    request = Request(max_body=1000, max_head=100)
    request.feed(HEAD + b"X-A: " + b"a" * 60)
    assert not request.complete
    request.feed(b"a" * 10)
    assert request.complete


def test_the_error_answers_are_json_and_close_the_connection():
    head, body = worker.TIMEOUT.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 408 Request Timeout\r\n") and b"Connection: close" in head
    assert json.loads(body) == {"error": "the request did not arrive in time: send it whole within 60 s, "
                                         "the head within 10 s"}
    assert worker.BUSY.startswith(b"HTTP/1.1 503 Service Unavailable\r\n") and b"Retry-After: 5" in worker.BUSY


def exchange(port: int, data: bytes, timeout: float = 10) -> bytes:
    """Send ``data`` and read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
        return answer


def get(port: int, path: str, timeout: float) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST" if path == "/translate" else "GET", path,
                     "q=Guten+Morgen.&source=de&target=en" if path == "/translate" else None,
                     {"Content-Type": "application/x-www-form-urlencoded"})
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.mark.slow
def test_a_hundred_slow_clients_leave_the_service_answering(live_server):
    """gthread gave each connection a thread as soon as its first byte came: eight clients that
    never finished their head took every thread, and /health waited as long as they went on."""
    slow = [socket.create_connection(("127.0.0.1", live_server.port), timeout=30) for _ in range(100)]
    try:
        for s in slow:
            s.sendall(HEAD + b"X-Slow: a")
        started = time.monotonic()
        for _ in range(3):
            time.sleep(0.5)
            for s in slow:
                s.sendall(b"a")
            assert get(live_server.port, "/health", timeout=5) == 200
            assert get(live_server.port, "/translate", timeout=5) == 200
        answers = [s.recv(65536) for s in slow]   # the head deadline passes: 408, then the close
        waited = time.monotonic() - started
    finally:
        for s in slow:
            s.close()
    assert worker.HEAD_SECONDS <= waited < worker.HEAD_SECONDS + 5
    assert {a.split(b"\r\n", 1)[0] for a in answers} == {b"HTTP/1.1 408 Request Timeout"}
    assert all(a.endswith(b'{"error": "the request did not arrive in time: send it whole within 60 s, '
                          b'the head within 10 s"}') for a in answers)


@pytest.mark.slow
def test_bodies_by_length_and_by_chunks_and_pipelined_requests_are_served(live_server):
    body = b'{"q": "Guten Morgen.", "source": "de", "target": "en"}'
    json_head = b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    by_length = json_head + b"Content-Length: %d\r\n\r\n" % len(body) + body
    chunked = (json_head + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
               + b"%x\r\n%s\r\n" % (10, body[:10]) + b"%x\r\n%s\r\n" % (len(body) - 10, body[10:]) + b"0\r\n\r\n")
    answer = exchange(live_server.port, by_length + chunked)   # two requests in one write
    assert answer.count(b"HTTP/1.1 200 OK\r\n") == 2
    assert answer.count(b'{"translatedText":"Good morning."}') == 2


@pytest.mark.slow
def test_a_body_announced_with_expect_100_continue_is_invited_then_served(live_server):
    body = b'{"q": "Es regnet.", "source": "de", "target": "en"}'
    with socket.create_connection(("127.0.0.1", live_server.port), timeout=10) as s:
        s.sendall(b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
                  b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body))
        assert s.recv(65536) == b"HTTP/1.1 100 Continue\r\n\r\n"
        s.sendall(body)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    assert b"HTTP/1.1 200 OK\r\n" in answer and answer.endswith(b'{"translatedText":"It is raining."}\n')


@pytest.mark.slow
def test_a_body_over_the_limit_is_refused_before_it_is_sent(live_server):
    answer = exchange(live_server.port, b"POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                        b"Content-Length: 50000000\r\n\r\n{")
    assert answer.startswith(b"HTTP/1.1 413 ")


@pytest.mark.slow
def test_the_slow_clients_benchmark_reports_the_latencies_during_an_attack(live_server, capsys):
    code = slow_clients.main(["--url", live_server.url, "--connections", "20", "--duration", "2",
                              "--baseline", "1", "--attack", "body", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["connections"] == 20 and result["attack"] == "body"
    assert set(result["during"]) == {"/health", "/translate"}
    assert all(s["failed"] == 0 and s["requests"] >= 1 for s in result["during"].values())
    assert result["slow_sockets_got"] == {"(nothing)": 20}   # still being read: under the 10 s stall bound
