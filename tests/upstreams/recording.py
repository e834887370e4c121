"""A real HTTP upstream on 127.0.0.1 for tests: routes requests to handlers and records every one.

Tests start it in a thread of the test process; the generated server, a separate process, reaches it
over a socket exactly as it would reach the real API.

    class PetsUpstream(LoopbackUpstream):
        def __init__(self) -> None:
            super().__init__()
            self.route("GET", "/pets/{pet_id}", lambda request, path: Reply(200, {"id": path["pet_id"]}))

    with PetsUpstream() as upstream:
        upstream.fail_next(503)                  # the next request gets a 503, whatever it asks
        ...                                      # point the code under test at upstream.base_url
        [seen] = upstream.requests
"""

from __future__ import annotations

import json
import re
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, unquote, urlsplit

LOOPBACK = "127.0.0.1"  # the only address these servers ever bind
MAX_DELAY_S = 30.0  # a slow upstream, never a hung test
# Called with (upstream, request) for every request any upstream here receives, before it is answered:
# tests/support/prism.py has Prism judge what the stand-ins for real specs receive.
OBSERVERS: list[Callable[[LoopbackUpstream, RecordedRequest], None]] = []


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    method: str
    path: str  # as sent, still percent-encoded, without the query
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes
    json: Any = None  # the decoded body; None when it is empty or not JSON

    def param(self, name: str) -> str | None:
        """The first value of a query parameter, or None when it was not sent."""
        values = self.query.get(name)
        return values[0] if values else None


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    body: Any = None  # JSON-encoded; str or bytes are sent as they are
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


Handler = Callable[[RecordedRequest, dict[str, str]], Reply]


def error_reply(
    status: int, code: str, message: str, field: str | None = None, headers: dict[str, str] | None = None
) -> Reply:
    """A reply with the example specs' Error body: {code, message, field?}."""
    body = {"code": code, "message": message}
    if field is not None:
        body["field"] = field
    return Reply(status, body, headers or {})


class ApiError(Exception):
    """Raise from a handler (or a helper it calls) to answer with an Error body."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.reply = error_reply(status, code, message, field)


def int_param(request: RecordedRequest, name: str, default: int, low: int, high: int) -> int:
    """An integer query parameter within [low, high]; 422 naming it otherwise."""
    raw = request.param(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(422, "invalid", f"{name} must be an integer, not {raw!r}", name) from None
    if not low <= value <= high:
        raise ApiError(422, "invalid", f"{name} must be between {low} and {high}", name)
    return value


def enum_param(request: RecordedRequest, name: str, allowed: tuple[str, ...]) -> str | None:
    """An optional query parameter that must be one of `allowed`; 422 naming it otherwise."""
    value = request.param(name)
    if value is not None and value not in allowed:
        raise ApiError(422, "invalid", f"{name} must be one of {', '.join(allowed)}", name)
    return value


def json_object(request: RecordedRequest) -> dict[str, Any]:
    """The body as a JSON object; 400 when it is missing, malformed or another JSON type."""
    if not isinstance(request.json, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object")
    return request.json


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a handler still sleeping on a delay must not keep the process alive
    request_queue_size = 64  # tests fire bursts of parallel requests; the default backlog of 5 drops some


class LoopbackUpstream:
    """Subclasses register routes with `route(method, pattern, handler)`; patterns use {name} segments.

    A handler gets the request and the path parameters (percent-decoded) and returns a Reply. Handlers
    run one at a time, so a subclass's in-memory store needs no locking of its own.
    """

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._scripted: deque[Reply] = deque()
        self._lock = threading.Lock()  # guards requests and _scripted
        self._handling = threading.Lock()  # serializes handlers
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- configuration ---------------------------------------------------------------------------

    def route(self, method: str, pattern: str, handler: Handler) -> None:
        regex = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")
        self._routes.append((method.upper(), regex, handler))

    def authorize(self, request: RecordedRequest) -> Reply | None:
        """Override to refuse a request before routing; None lets it through."""
        return None

    def fail_next(
        self,
        status: int,
        body: Any = None,
        headers: dict[str, str] | None = None,
        delay_s: float = 0.0,
        times: int = 1,
    ) -> None:
        """Answer the next `times` requests this way, whatever they ask (for failure tests)."""
        if times < 1:
            raise ValueError("times must be at least 1")
        if not 0 <= delay_s <= MAX_DELAY_S:
            raise ValueError(f"delay_s must be between 0 and {MAX_DELAY_S}")
        reply = Reply(status, body, dict(headers or {}), delay_s)
        with self._lock:
            self._scripted.extend([reply] * times)

    def clear(self) -> None:
        """Forget the recorded requests (scripted failures still pending stay pending)."""
        with self._lock:
            self.requests.clear()

    # --- lifecycle -------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("start the upstream first")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self, port: int = 0) -> Self:
        """Serve on 127.0.0.1:port (0: any free port) in a daemon thread."""
        if self._server is not None:
            raise RuntimeError("already started")
        self._stopping.clear()
        self._server = _Server((LOOPBACK, port), self._handler_class())
        # A short poll interval keeps stop() fast: shutdown() waits for the loop's next poll.
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=type(self).__name__,
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()  # wakes handlers sleeping on a delay
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- request handling ------------------------------------------------------------------------

    def _dispatch(self, request: RecordedRequest) -> Reply:
        for observe in OBSERVERS:
            observe(self, request)
        with self._lock:
            self.requests.append(request)
            scripted = self._scripted.popleft() if self._scripted else None
        if scripted is not None:
            return scripted
        with self._handling:
            try:
                return self.authorize(request) or self._route(request)
            except ApiError as error:
                return error.reply
            except Exception as error:  # noqa: BLE001 - a bug in a handler must still answer, not hang
                return error_reply(500, "upstream_bug", f"{type(error).__name__}: {error}")

    def _route(self, request: RecordedRequest) -> Reply:
        allowed = []
        for method, regex, handler in self._routes:
            match = regex.match(request.path)
            if match is None:
                continue
            if method == request.method:
                return handler(request, {k: unquote(v) for k, v in match.groupdict().items()})
            allowed.append(method)
        if allowed:
            return error_reply(
                405,
                "method_not_allowed",
                f"{request.method} is not allowed on {request.path}",
                headers={"allow": ", ".join(allowed)},
            )
        return error_reply(404, "no_route", f"no route for {request.method} {request.path}")

    def _send(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.delay_s:
            self._stopping.wait(reply.delay_s)
        headers = {k.lower(): v for k, v in reply.headers.items()}
        if reply.body is None:
            payload = b""
        elif isinstance(reply.body, (bytes, str)):
            payload = reply.body.encode() if isinstance(reply.body, str) else reply.body
            headers.setdefault("content-type", "text/plain; charset=utf-8")
        else:
            payload = json.dumps(reply.body).encode()
            headers.setdefault("content-type", "application/json")
        headers["content-length"] = str(len(payload))
        handler.send_response(reply.status)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(payload)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        upstream = self

        class _Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                request = _read_request(self)
                try:
                    upstream._send(self, upstream._dispatch(request))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to answer

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

        return _Handler


def _read_request(handler: BaseHTTPRequestHandler) -> RecordedRequest:
    parts = urlsplit(handler.path)
    length = int(handler.headers.get("content-length") or 0)
    body = handler.rfile.read(length) if length else b""
    return RecordedRequest(
        method=handler.command,
        path=parts.path,
        query=parse_qs(parts.query, keep_blank_values=True),
        headers={k.lower(): v for k, v in handler.headers.items()},
        body=body,
        json=_decode_json(body),
    )


def _decode_json(body: bytes) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:  # also covers bad UTF-8
        return None


def run_standalone(upstream: LoopbackUpstream, port: int, note: str = "") -> None:
    """Serve on 127.0.0.1:port until Ctrl-C; one line on stderr says where (for trying servers by hand)."""
    # A parent that ignores SIGINT (a test worker, nohup) hands that on; Ctrl-C must stop this all the same.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    upstream.start(port)
    print(f"{type(upstream).__name__} listening on {upstream.base_url}{note}", file=sys.stderr, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        upstream.stop()


class DroppingUpstream:
    """Reads each request and closes the connection without answering: a request that may have
    arrived, with no reply to say so (for unknown-outcome tests, E4). Binds 127.0.0.1 only.

        with DroppingUpstream() as dropping:
            ...                                  # point the code under test at dropping.base_url
            assert dropping.received == 1
    """

    def __init__(self) -> None:
        self.received = 0
        self._listener: Any = None  # a listening socket while started
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._listener is None:
            raise RuntimeError("start the upstream first")
        host, port = self._listener.getsockname()[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> Self:
        import socket  # only this test double needs raw sockets

        self._listener = socket.create_server((LOOPBACK, 0))
        self._listener.settimeout(0.05)  # so the accept loop notices stop() promptly
        self._thread = threading.Thread(target=self._serve, name="DroppingUpstream", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        listener, self._listener = self._listener, None
        if self._thread is not None:
            self._thread.join(timeout=5)
        if listener is not None:
            listener.close()

    def _serve(self) -> None:
        while self._listener is not None:
            try:
                connection, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            with connection:
                connection.settimeout(5)
                try:
                    if connection.recv(65536):
                        self.received += 1
                except OSError:
                    pass
