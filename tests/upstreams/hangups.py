"""The Ads API (tests/upstreams/ads.py) with slow operations that notice when their caller hangs up.

A held request waits up to `seconds` before it is handled, watching its connection all the while.
If the caller closes the connection first, the stand-in records the hang-up (when, and for which
request) and never handles the request: like an API that abandons work whose client went away, so
a change whose request was aborted in time is not applied later.

    with HangupAdsUpstream(token=TOKEN) as upstream:
        upstream.hold("POST", "/campaigns/cmp_001/pause", seconds=10)
        ...                                          # the call arrives: upstream.arrived.wait()
        [hangup] = upstream.wait_for_hangups(1)      # it was aborted: hangup.at, hangup.path
"""

from __future__ import annotations

import select
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

from .ads import AdsUpstream
from .recording import MAX_DELAY_S, RecordedRequest, _read_request

_POLL_S = 0.01  # how often a held request looks at its connection


@dataclass(frozen=True, slots=True)
class Hangup:
    method: str
    path: str
    at: float  # time.monotonic() when the stand-in saw the connection close
    held_s: float  # how long the request had been held by then


class HangupAdsUpstream(AdsUpstream):
    def __init__(self, token: str = "test-token") -> None:
        super().__init__(token)
        self.hangups: list[Hangup] = []
        self.arrived = threading.Event()  # a held request has arrived (cleared by hold())
        self._holds: dict[tuple[str, str], float] = {}
        self._changed = threading.Condition()

    def hold(self, method: str, path: str, seconds: float) -> None:
        """Hold every `method path` request up to `seconds` before handling it."""
        if not 0 < seconds <= MAX_DELAY_S:
            raise ValueError(f"seconds must be between 0 and {MAX_DELAY_S}")
        self._holds[(method.upper(), path)] = seconds
        self.arrived.clear()

    def reset(self) -> None:
        """No holds, hang-ups or recorded requests (the campaigns stay as they are)."""
        self._holds.clear()
        self.arrived.clear()
        with self._changed:
            self.hangups.clear()
        self.clear()

    def wait_for_hangups(self, count: int, timeout_s: float = 10.0) -> list[Hangup]:
        """The hang-ups once there are `count` of them, or as many as came within `timeout_s`."""
        with self._changed:
            self._changed.wait_for(lambda: len(self.hangups) >= count, timeout=timeout_s)
            return list(self.hangups)

    def _held_then_handled(self, handler: BaseHTTPRequestHandler, request: RecordedRequest) -> bool:
        """Holds a request the test asked to hold; False when its caller hung up meanwhile."""
        seconds = self._holds.get((request.method, request.path))
        if seconds is None:
            return True
        self.arrived.set()
        started = time.monotonic()
        while time.monotonic() - started < seconds and not self._stopping.is_set():
            if _closed(handler.connection):
                with self._lock:
                    self.requests.append(request)
                with self._changed:
                    self.hangups.append(
                        Hangup(request.method, request.path, time.monotonic(), time.monotonic() - started)
                    )
                    self._changed.notify_all()
                return False
        return True

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        upstream = self

        class _Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                request = _read_request(self)
                if not upstream._held_then_handled(self, request):
                    return
                try:
                    upstream._send(self, upstream._dispatch(request))
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

            def log_message(self, format: str, *args: object) -> None:
                pass

        return _Handler


def _closed(connection: socket.socket) -> bool:
    """True once the peer has closed the connection (readable, and a peek reads nothing)."""
    readable, _, _ = select.select([connection], [], [], _POLL_S)
    if not readable:
        return False
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except (ConnectionResetError, OSError):
        return True
