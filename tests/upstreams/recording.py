"""A real HTTP upstream on 127.0.0.1 for tests: routes requests to handlers and records every one.

Tests start it in a thread of the test process; the generated server, a separate process, reaches it
over a socket exactly as it would reach the real API.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    method: str
    path: str  # as sent, still percent-encoded, without the query
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


Handler = Callable[[RecordedRequest, dict[str, str]], Reply]


class LoopbackUpstream:
    """Subclasses register routes with `route(method, pattern, handler)`; patterns use {name} segments."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._scripted: list[Reply] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    def route(self, method: str, pattern: str, handler: Handler) -> None:
        regex = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")
        self._routes.append((method, regex, handler))

    def fail_next(self, status: int, body: Any = None, headers: dict[str, str] | None = None,
                  delay_s: float = 0.0, times: int = 1) -> None:
        """Answer the next `times` requests this way, whatever they ask (for failure tests)."""
        with self._lock:
            self._scripted.extend([Reply(status, body, headers or {}, delay_s)] * times)

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the upstream first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> LoopbackUpstream:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def serve_forever(self, port: int) -> None:
        """Run standalone (for the demo) on 127.0.0.1:port until interrupted."""
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._server.serve_forever()

    def _dispatch(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            scripted = self._scripted.pop(0) if self._scripted else None
        if scripted is not None:
            return scripted
        for method, regex, handler in self._routes:
            match = regex.match(request.path)
            if match and method == request.method:
                return handler(request, match.groupdict())
        return Reply(404, {"code": "no_route", "message": f"no route for {request.method} {request.path}"})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        upstream = self

        class _Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("content-length") or 0)
                request = RecordedRequest(
                    method=self.command,
                    path=parts.path,
                    query=parse_qs(parts.query, keep_blank_values=True),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=self.rfile.read(length) if length else b"",
                )
                reply = upstream._dispatch(request)
                if reply.delay_s:
                    time.sleep(min(reply.delay_s, 30.0))  # bounded: a slow upstream, never a hung test
                payload = b"" if reply.body is None else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    if payload:
                        self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to answer

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

        return _Handler
