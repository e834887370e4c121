"""The Ads API (tests/upstreams/ads.py) answering as a broken or hostile API would, for the tests of
issue 11: redirects to another host, HTML login pages and invalid JSON with status 200, bodies of tens of
megabytes, a body that trickles in a byte at a time, answers that echo the caller's credential, nested
lists of megabytes, and Retry-After in both its forms. Binds 127.0.0.1 only.

    with HostileUpstream(token=TOKEN) as upstream:
        upstream.redirect_next(302, "https://login.example.net/sso?next=/campaigns")
        ...                                      # the next request, whatever it asks, gets that redirect
        upstream.echo_credentials = True         # every JSON answer now carries the request's Authorization

    python -m tests.upstreams.hostile --port 8080 --huge-mb 50   # standalone: the first answer is 50 MB
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from .ads import AdsUpstream
from .recording import MAX_DELAY_S, RecordedRequest, Reply, run_standalone

LOGIN_PAGE = (
    "<!DOCTYPE html>\n<html><head><title>Sign in - Example SSO</title></head>\n"
    '<body><form action="/login" method="post"><input name="user"><input name="password" type="password">'
    "</form></body></html>\n" + "<!-- padding -->\n" * 500
)
_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Streamed:
    """A 200 JSON answer written piece by piece, `pause_s` apart: a body of any size without holding it
    in memory, or one that trickles. `declare_length=False` sends no Content-Length: the body ends when
    the connection closes, so only reading it tells how big it is."""

    size_bytes: int
    piece_bytes: int = _CHUNK
    pause_s: float = 0.0
    declare_length: bool = True

    def pieces(self) -> Iterator[bytes]:
        """A JSON array of exactly size_bytes bytes: '[' then '1,' repeated, padded with spaces, then ']'."""
        inner = self.size_bytes - 2
        pairs, spaces = divmod(inner, 2)
        body = b"[" + b"1," * pairs
        if pairs:
            body = body[:-1] + b" "  # no trailing comma: the array stays valid JSON
        yield from _split(body, self.piece_bytes)
        yield from _split(b" " * spaces + b"]", self.piece_bytes)


def _split(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


class HostileUpstream(AdsUpstream):
    def __init__(self, token: str = "test-token") -> None:
        super().__init__(token)
        self.echo_credentials = False  # every JSON object answer also carries the request's credential

    # --- scripted answers: each applies to the next request, whatever it asks -----------------------

    def redirect_next(self, status: int, location: str) -> None:
        self.fail_next(status, None, {"location": location})

    def html_next(self, status: int = 200) -> None:
        self.fail_next(status, LOGIN_PAGE, {"content-type": "text/html; charset=utf-8"})

    def invalid_json_next(self) -> None:
        self.fail_next(200, '{"campaigns": [{"id": "cmp_001", "name": ', {"content-type": "application/json"})

    def retry_after_next(self, status: int, value: str) -> None:
        self.fail_next(status, {"message": "slow down"}, {"retry-after": value})

    def huge_next(self, size_bytes: int, declare_length: bool = True) -> None:
        """A 200 with a JSON array of size_bytes bytes, sent as fast as the socket takes it."""
        self._script(Streamed(size_bytes, declare_length=declare_length))

    def drip_next(self, size_bytes: int, pause_s: float) -> None:
        """A 200 that sends its headers at once and then one byte every pause_s, at most MAX_DELAY_S."""
        if size_bytes * pause_s > MAX_DELAY_S:
            raise ValueError(f"a drip must end within {MAX_DELAY_S:g} s")
        self._script(Streamed(size_bytes, piece_bytes=1, pause_s=pause_s))

    def nested_next(self, events: int) -> None:
        """A 200 campaign record whose `history` holds `events` entries (about 110 bytes each)."""
        campaign = dict(self.campaigns["cmp_001"])
        campaign["history"] = [
            {
                "at": f"2026-11-{n % 28 + 1:02d}T09:00:00Z",
                "event": "budget_changed",
                "by": "kim@example.com",
                "detail": {"from": 100_000 + n, "to": 100_001 + n},
            }
            for n in range(events)
        ]
        self.fail_next(200, campaign)

    def _script(self, answer: Streamed) -> None:
        with self._lock:
            self._scripted.append(answer)  # type: ignore[arg-type] - _send below knows Streamed

    # --- answering ----------------------------------------------------------------------------------

    def _dispatch(self, request: RecordedRequest) -> Reply:
        reply = super()._dispatch(request)
        if self.echo_credentials and isinstance(reply, Reply) and isinstance(reply.body, dict):
            echoed = {"authorization": request.headers.get("authorization", "")}
            return Reply(reply.status, {**reply.body, "debug": {"request_headers": echoed}}, reply.headers)
        return reply

    def _send(self, handler: BaseHTTPRequestHandler, reply: Any) -> None:
        if not isinstance(reply, Streamed):
            super()._send(handler, reply)
            return
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        if reply.declare_length:
            handler.send_header("content-length", str(reply.size_bytes))
        handler.end_headers()
        handler.wfile.flush()
        for piece in reply.pieces():
            if reply.pause_s and self._stopping.wait(reply.pause_s):
                return  # the test is over
            handler.wfile.write(piece)
            handler.wfile.flush()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--token", default="test-token")
    parser.add_argument(
        "--huge-mb", type=int, default=50, help="the first request gets a JSON array this big"
    )
    args = parser.parse_args(argv)
    upstream = HostileUpstream(token=args.token)
    upstream.huge_next(args.huge_mb * 1024 * 1024)
    run_standalone(
        upstream, args.port, f" (the first answer is {args.huge_mb} MB; the rest are the Ads API's)"
    )


if __name__ == "__main__":
    main()
