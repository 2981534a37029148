"""gunicorn's threaded worker, but a request reaches a thread only once it has arrived whole.

gunicorn's ``gthread`` worker hands a connection to one of its threads as soon as the first byte
arrives, and the thread then reads the rest with blocking calls: eight clients sending a byte every
half second held all eight threads, and ``/health`` and every translation waited for them
(bench/README.md, "Slow clients"). Here the worker's main loop, which already polls its sockets,
reads each request without blocking until its head and its body (``Content-Length`` bytes, or the
chunks up to the last one) are in memory, as nginx buffers requests in front of an app server; only
then does a thread parse and serve it. A slow client then costs a buffer, not a thread.

Bounds (docs/serving.md, "Limits"):

* ``HEAD_SECONDS``: a request head must arrive whole within this many seconds of its first byte
  (or of the connection, for a new one); ``BODY_STALL_SECONDS``: a body may not pause longer than
  this between two reads; ``READ_SECONDS``: a whole request within this. Past any of them the
  client gets 408 with a JSON ``error`` and the connection is closed.
* A body longer than the app's ``MAX_CONTENT_LENGTH`` is not buffered: the request goes to a thread
  at once and the app answers 413 without reading it.
* ``BUFFER_BYTES``: the bytes all of a worker's connections may hold at once; a request that would
  go beyond gets 503 (``Retry-After``) and the connection is closed.

TLS connections and HTTP/2 are served as ``gthread`` serves them (their bytes cannot be read ahead
here); the Procfile serves plain HTTP/1.1, with TLS ended in front of it.
"""

from __future__ import annotations

import json
import selectors
import time
from functools import partial

from gunicorn.http2 import negotiation
from gunicorn.workers.gthread import ThreadWorker

HEAD_SECONDS = 10.0
BODY_STALL_SECONDS = 10.0
READ_SECONDS = 60.0
BUFFER_BYTES = 64 * 1024 * 1024
MAX_HEAD_BYTES = 64 * 1024       # past this the head goes to the parser, which refuses it (431/400)
DEFAULT_BODY_BYTES = 1_000_000   # where the app states no MAX_CONTENT_LENGTH
RECV_BYTES = 256 * 1024


class Request:
    """The bytes of one HTTP/1.x request as they arrive; ``complete`` once the head and the body
    (by ``Content-Length`` or chunked transfer coding) are all there, or once the bytes are such that
    gunicorn's parser will answer without reading more: a head too long or malformed, a body over
    ``max_body`` (the app answers 413 before reading it), an HTTP/2 preface."""

    def __init__(self, max_body: int, max_head: int = MAX_HEAD_BYTES):
        self.max_body, self.max_head = max_body, max_head
        self.data = bytearray()
        self.complete = False
        self.expects_continue = False  # the head asks for "100 Continue" before its body
        self.head_end: int | None = None
        self._length: int | None = None    # body bytes expected (Content-Length)
        self._chunked = False
        self._scan = 0                     # where the chunk scan goes on

    def feed(self, data: bytes) -> None:
        self.data += data
        if not self.complete:
            self.complete = self._check()

    def _check(self) -> bool:
        if self.head_end is None:
            if self.data.startswith(b"PRI * HTTP/2.0"):
                return True
            end = self.data.find(b"\r\n\r\n")
            if end < 0:
                return len(self.data) > self.max_head
            self.head_end = end + 4
            if not self._read_head(bytes(self.data[:end])):
                return True  # malformed framing: the parser refuses it
            if self._length is not None and self._length > self.max_body:
                return True
            self._scan = self.head_end
        if self._chunked:
            return self._chunks_done()
        return len(self.data) - self.head_end >= (self._length or 0)

    def _read_head(self, head: bytes) -> bool:
        """Take the framing headers of ``head``; False where they are malformed or ambiguous."""
        lengths, codings = [], []
        for line in head.split(b"\r\n")[1:]:
            name, colon, value = line.partition(b":")
            if not colon:
                continue
            name, value = name.strip().lower(), value.strip().lower()
            if name == b"content-length":
                lengths.append(value)
            elif name == b"transfer-encoding":
                codings.append(value)
            elif name == b"expect" and value == b"100-continue":
                self.expects_continue = True
        if codings:
            self._chunked = True
            return not lengths and b",".join(codings).split(b",")[-1].strip() == b"chunked"
        if len(lengths) > 1 or (lengths and not lengths[0].isdigit()):
            return False
        self._length = int(lengths[0]) if lengths else None
        return True

    def _chunks_done(self) -> bool:
        while True:
            line_end = self.data.find(b"\r\n", self._scan)
            if line_end < 0:
                return len(self.data) - self.head_end > self.max_body
            size_text = bytes(self.data[self._scan:line_end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                return True  # the parser refuses it
            if size == 0:  # the last chunk, then trailer fields up to an empty line
                return self.data.startswith(b"\r\n", line_end + 2) or self.data.find(b"\r\n\r\n", line_end) >= 0
            if line_end + 2 + size + 2 > len(self.data):
                return len(self.data) - self.head_end > self.max_body
            self._scan = line_end + 2 + size + 2


def error_response(status: int, reason: str, message: str, retry_after: int | None = None) -> bytes:
    body = json.dumps({"error": message}).encode()
    extra = f"Retry-After: {retry_after}\r\n" if retry_after else ""
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"{extra}Connection: close\r\n\r\n").encode() + body


TIMEOUT = error_response(408, "Request Timeout", "the request did not arrive in time: send it whole "
                         f"within {READ_SECONDS:g} s, the head within {HEAD_SECONDS:g} s")
BUSY = error_response(503, "Service Unavailable", "the server is receiving too many requests at once: "
                      "try again shortly", retry_after=5)


class BufferingThreadWorker(ThreadWorker):
    """``gthread`` with the request read by the main loop (module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reading: dict = {}   # connection -> (Request, deadline of the head or of the read, last read)
        self.buffered = 0

    def buffers(self, conn) -> bool:
        return not self.cfg.is_ssl and not conn.is_http2 and not negotiation.prior_knowledge_allowed(
            self.cfg, conn.client)

    def max_body(self) -> int:
        config = getattr(self.wsgi, "config", None) or {}
        return config.get("MAX_CONTENT_LENGTH") or DEFAULT_BODY_BYTES

    def enqueue_req(self, conn):
        """Every way a connection reaches a thread (accepted, kept alive and readable, pipelined)
        comes here: read its request in the loop first."""
        if not self.alive or not self.buffers(conn) or conn in self.reading:
            return super().enqueue_req(conn)
        request = Request(self.max_body())
        if conn.parser is not None:  # kept alive: bytes of the next request may be read ahead
            request.feed(conn.parser.unreader.take_buffered())
        if request.complete:
            return self.dispatch(conn, request)
        now = time.monotonic()
        self.reading[conn] = (request, now, now)
        self.buffered += len(request.data)
        conn.sock.setblocking(False)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_request_bytes, conn))

    def on_request_bytes(self, conn, _sock):
        request, started, _ = self.reading[conn]
        try:
            data = conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client went away before its request was whole
            return self.drop(conn)
        if self.buffered + len(data) > BUFFER_BYTES:
            return self.drop(conn, BUSY)
        self.buffered += len(data)
        had_head = request.head_end is not None
        request.feed(data)
        if request.complete:
            return self.dispatch(conn, request)
        if request.head_end is not None and not had_head and request.expects_continue:
            self.send_quietly(conn, b"HTTP/1.1 100 Continue\r\n\r\n")
        self.reading[conn] = (request, started, time.monotonic())

    def dispatch(self, conn, request: Request):
        """The request is whole: a thread parses it from the bytes read here (gunicorn answers its
        "100 Continue" itself then, a second interim answer that HTTP/1.1 clients skip)."""
        if conn in self.reading:
            self.forget(conn)
        conn.data_ready = True
        conn.sock.setblocking(True)
        conn.init()
        conn.parser.unreader.unread(bytes(request.data))
        super().enqueue_req(conn)

    def forget(self, conn):
        request, _, _ = self.reading.pop(conn)
        self.buffered -= len(request.data)
        try:
            self.poller.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass

    def drop(self, conn, answer: bytes | None = None):
        self.forget(conn)
        if answer:
            self.send_quietly(conn, answer)
        self.nr_conns -= 1
        conn.close()

    @staticmethod
    def send_quietly(conn, data: bytes):
        try:
            conn.sock.send(data)  # a short answer fits the socket's buffer; a full one is not waited for
        except OSError:
            pass

    def murder_pending(self):
        """Also close the connections whose request did not arrive in time (408)."""
        super().murder_pending()
        now = time.monotonic()
        for conn, (request, started, last) in list(self.reading.items()):
            late = (now - started > READ_SECONDS
                    or (request.head_end is None and now - started > HEAD_SECONDS)
                    or (request.head_end is not None and now - last > BODY_STALL_SECONDS))
            if late:
                self.drop(conn, TIMEOUT if request.data else None)
