"""The upstream `check` calls: Prism serving the spec, or the user's sandbox, always behind a loopback
proxy that keeps every exchange (what the server sent, what the upstream answered) for the judge.

Prism is the pinned npm package @stoplight/prism-cli (PRISM_VERSION). It is looked for in
$MCPGEN_PRISM, on PATH, and in a checkout's .cache/prism (where the project's scripts install it).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PRISM_PACKAGE = "@stoplight/prism-cli"
PRISM_VERSION = "5.16.0"  # the pin of scripts/sweep/prism/package.json (tests/unit/test_check_parts.py)
PRISM_INSTALL = f"npm install -g {PRISM_PACKAGE}@{PRISM_VERSION}"
PRISM_ENV = "MCPGEN_PRISM"
PRISM_SEED = "mcpgen-check"  # the same dynamic answers on every run
LOOPBACK = "127.0.0.1"
PRISM_START_S = 60.0  # Node loading Prism on a busy machine
MAX_KEPT = 1_000_000  # bytes of one answer kept for judging
_CHECKOUT = Path(__file__).resolve().parents[2]  # the repository, when mcpgen runs from a checkout


class UpstreamUnavailable(Exception):
    """Node or Prism is missing, or Prism cannot serve the spec: the message says what to do."""


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request the generated server sent, and the upstream's answer."""

    method: str
    path: str  # with its query
    status: int
    content_type: str
    body: Any  # JSON-decoded when it parses, else the text (bounded); None when empty
    is_json: bool
    forced: str | None  # the Prefer header the proxy added (an error probe against Prism)


def find_prism(environ: Mapping[str, str] = os.environ) -> Path:
    """The `prism` executable: $MCPGEN_PRISM (the executable or an install directory), `prism` on
    PATH, or the checkout's .cache/prism. Raises UpstreamUnavailable saying how to install it."""
    given = environ.get(PRISM_ENV)
    if given:
        path = Path(given)
        for candidate in (path, path / "node_modules" / ".bin" / "prism", path / "bin" / "prism"):
            if candidate.is_file():
                return candidate
        raise UpstreamUnavailable(
            f"${PRISM_ENV} is {given}, which holds no prism executable; Prism is the npm package "
            f"{PRISM_PACKAGE}, version {PRISM_VERSION}: `{PRISM_INSTALL}`"
        )
    on_path = shutil.which("prism", path=environ.get("PATH"))
    if on_path:
        return Path(on_path)
    cached = _CHECKOUT / ".cache" / "prism" / "node_modules" / ".bin" / "prism"
    if cached.is_file():
        return cached
    raise UpstreamUnavailable(
        f"Prism is not installed. It is the npm package {PRISM_PACKAGE}, version {PRISM_VERSION}: "
        f"`{PRISM_INSTALL}` (needs Node 18 or later), or point ${PRISM_ENV} at a prism executable; "
        "or check against your own sandbox with --upstream URL"
    )


def node_problem(environ: Mapping[str, str] = os.environ) -> str | None:
    if shutil.which("node", path=environ.get("PATH")) is None:
        return (
            "Node is not installed, and Prism runs on it: install Node 18 or later "
            f"(https://nodejs.org, or apt-get install nodejs), then `{PRISM_INSTALL}`"
        )
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def prism_mock(prism: Path, spec: Path, log_file: Path) -> Iterator[str]:
    """`prism mock --dynamic` on a free 127.0.0.1 port, seeded; yields its base URL."""
    port = free_port()
    argv = [str(prism), "mock", "--dynamic", "--seed", PRISM_SEED, "-h", LOOPBACK, "-p", str(port), str(spec)]
    with log_file.open("wb") as log:
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_listening(process, port, log_file)
        yield f"http://{LOOPBACK}:{port}"
    finally:
        _stop(process)


def _wait_listening(process: subprocess.Popen[bytes], port: int, log_file: Path) -> None:
    deadline = time.monotonic() + PRISM_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise UpstreamUnavailable(f"Prism cannot serve the spec: {_last_lines(log_file)}")
        with contextlib.suppress(OSError):
            socket.create_connection((LOOPBACK, port), timeout=0.2).close()
            return
        time.sleep(0.2)
    raise UpstreamUnavailable(f"Prism did not listen within {PRISM_START_S:g} s: {_last_lines(log_file)}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _last_lines(log_file: Path) -> str:
    text = log_file.read_text(encoding="utf-8", errors="replace") if log_file.is_file() else ""
    lines = [line for line in text.splitlines() if line.strip()]
    useful = [line for line in lines if "error" in line.lower() or "fatal" in line.lower()] or lines
    return " | ".join(useful[-3:])[:600] or "no output"


class Recorder:
    """A loopback HTTP proxy in front of the upstream that keeps every exchange in order. `prefer`,
    when set, is sent as the Prefer header (Prism answers the status code it names)."""

    def __init__(self, target: str, timeout_s: float) -> None:
        import httpx  # the generated server's dependency too (environment.py checks it is there)

        self.target = target.rstrip("/")
        self.prefer: str | None = None
        self._exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._client = httpx.Client(timeout=timeout_s, follow_redirects=False)
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # the report says what matters
                return

            def _any(self) -> None:
                recorder._forward(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _any

        self._server = ThreadingHTTPServer((LOOPBACK, 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://{LOOPBACK}:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Recorder:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._client.close()

    def mark(self) -> int:
        with self._lock:
            return len(self._exchanges)

    def since(self, mark: int) -> tuple[Exchange, ...]:
        with self._lock:
            return tuple(self._exchanges[mark:])

    def _forward(self, handler: BaseHTTPRequestHandler) -> None:
        import httpx

        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        skipped = ("host", "content-length", "connection", "accept-encoding")
        sent = {k: v for k, v in handler.headers.items() if k.lower() not in skipped}
        prefer = self.prefer
        if prefer:
            sent["Prefer"] = prefer
        try:
            reply = self._client.request(
                handler.command, self.target + handler.path, headers=sent, content=raw
            )
            status, headers, content = reply.status_code, list(reply.headers.multi_items()), reply.content
        except httpx.HTTPError as exc:
            status, headers, content = 502, [], f"mcpgen check: the upstream failed: {exc!r}".encode()
        content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
        body, is_json = decode(content, content_type)
        exchange = Exchange(handler.command, handler.path, status, content_type, body, is_json, prefer)
        with self._lock:
            self._exchanges.append(exchange)
        handler.send_response(status)
        dropped = ("content-length", "transfer-encoding", "connection", "content-encoding")
        for name, value in headers:
            if name.lower() not in dropped:
                handler.send_header(name, value)
        handler.send_header("content-length", str(len(content)))
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(content)


def decode(content: bytes, content_type: str) -> tuple[Any, bool]:
    """(value, True) for a body that parses as JSON, else (its text, bounded, False)."""
    if not content:
        return None, False
    with contextlib.suppress(ValueError):
        return json.loads(content), True
    return content[:MAX_KEPT].decode("utf-8", errors="replace"), False
