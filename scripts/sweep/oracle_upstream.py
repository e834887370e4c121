"""The oracle's upstream: Prism serving the real spec, behind a loopback proxy that records every
exchange (the request mcpgen sent, and what Prism answered about it).

Prism validates each request against the spec. A request that breaks it is answered with a 4xx and
either an `sl-violations` header (when the spec documents a 400/422 answer Prism can use) or a
problem+json body whose `validation` list names each violation; a request without the credential the
spec's security asks for gets 401 UNAUTHORIZED; a path or method the spec lacks gets 404/405.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from scripts.sweep.oracle_variants import reshape

ROOT = Path(__file__).resolve().parents[2]
PRISM_PIN = Path(__file__).resolve().parent / "prism"  # package.json + package-lock.json
PRISM_HOME = ROOT / ".cache" / "prism"
PRISM_BIN = PRISM_HOME / "node_modules" / ".bin" / "prism"
LOOPBACK = "127.0.0.1"
PRISM_START_S = 45.0
MAX_BODY = 200_000  # bytes of a recorded body kept for judging


class PrismRefused(Exception):
    """Prism could not serve the spec (it exited, or never listened): the spec is excluded, with why."""


def install_prism() -> Path:
    """`npm ci` the pinned Prism into .cache/prism once; returns the `prism` executable."""
    if (
        PRISM_BIN.is_file()
        and (PRISM_HOME / "package-lock.json").read_bytes() == (PRISM_PIN / "package-lock.json").read_bytes()
    ):
        return PRISM_BIN
    PRISM_HOME.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        (PRISM_HOME / name).write_bytes((PRISM_PIN / name).read_bytes())
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=PRISM_HOME,
                   check=True, capture_output=True, timeout=600)  # fmt: skip
    return PRISM_BIN


def prism_version() -> str:
    lock = json.loads((PRISM_PIN / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"]["node_modules/@stoplight/prism-cli"]["version"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def prism(spec: Path, *, dynamic: bool, log_file: Path) -> Iterator[str]:
    """`prism mock` on a free 127.0.0.1 port; yields its base URL. Static by default, or `--dynamic`
    with a fixed seed (schema-shaped random bodies, the same on every run)."""
    port = free_port()
    argv = [str(PRISM_BIN), "mock", "-h", LOOPBACK, "-p", str(port), str(spec)]
    if dynamic:
        argv += ["--dynamic", "--seed", "oracle"]
    with log_file.open("wb") as log:
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            _wait_listening(process, port, log_file)
            yield f"http://{LOOPBACK}:{port}"
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


def _wait_listening(process: subprocess.Popen, port: int, log_file: Path) -> None:
    deadline = time.monotonic() + PRISM_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise PrismRefused(_last_lines(log_file))
        try:
            socket.create_connection((LOOPBACK, port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.2)
    raise PrismRefused(f"did not listen within {PRISM_START_S:g} s")


def _last_lines(log_file: Path) -> str:
    lines = [ln for ln in log_file.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
    useful = [ln for ln in lines if "error" in ln.lower() or "fatal" in ln.lower()] or lines
    return " | ".join(useful[-3:])[:600] or "Prism exited without output"


# ---- the recording proxy ------------------------------------------------------------------------


@dataclass
class Exchange:
    """One request the generated server sent, and Prism's answer."""

    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: Any  # JSON-decoded when it was JSON, else the text (bounded)
    status: int = 0
    response_headers: dict[str, str] = field(default_factory=dict)
    response: Any = None
    forced: str | None = None  # the Prefer header the oracle added (an error probe)
    # The variant of a real API's answer this layer made of Prism's (oracle_variants), and what it says
    # (kind, page, more, total, text); None when the answer is Prism's own.
    variant: dict[str, Any] | None = None
    prism_status: int = 0  # Prism's own status, before a variant reshaped the answer

    def violations(self) -> list[dict[str, Any]]:
        """Prism's findings about this exchange, from the header or the problem body."""
        found: list[dict[str, Any]] = []
        header = self.response_headers.get("sl-violations")
        if header:
            with contextlib.suppress(ValueError):
                found += [v for v in json.loads(header) if isinstance(v, dict)]
        if isinstance(self.response, dict) and isinstance(self.response.get("validation"), list):
            found += [v for v in self.response["validation"] if isinstance(v, dict)]
        return found

    def prism_error(self) -> str | None:
        """The Prism error kind of a problem answer Prism made itself (UNAUTHORIZED, NO_PATH_MATCHED_ERROR...)."""
        if isinstance(self.response, dict):
            kind = str(self.response.get("type") or "")
            if "stoplight.io/prism/errors#" in kind:
                return kind.rsplit("#", 1)[1]
        return None


class Recorder:
    """A loopback HTTP proxy in front of Prism that keeps every exchange in order."""

    def __init__(self, target: str):
        self.target = target
        self.exchanges: list[Exchange] = []
        self.prefer: str | None = None  # set by the oracle for an error probe
        self.variant: dict[str, Any] | None = None  # set by the oracle for a variant step (oracle_variants)
        self._lock = threading.Lock()
        self._client = httpx.Client(timeout=30.0, follow_redirects=False)
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet: the oracle reports what matters
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

    def since(self, mark: int) -> list[Exchange]:
        with self._lock:
            return list(self.exchanges[mark:])

    def mark(self) -> int:
        with self._lock:
            return len(self.exchanges)

    def _forward(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        split = urlsplit(handler.path)
        headers = {k.lower(): v for k, v in handler.headers.items()}
        exchange = Exchange(
            method=handler.command,
            path=split.path,
            query=parse_qsl(split.query, keep_blank_values=True),
            headers=headers,
            body=_decode(raw, headers.get("content-type", "")),
            forced=self.prefer,
        )
        variant = self.variant
        sent = {k: v for k, v in headers.items() if k not in ("host", "content-length", "connection")}
        if self.prefer:
            sent["prefer"] = self.prefer
        try:
            reply = self._client.request(
                handler.command, self.target + handler.path, headers=sent, content=raw
            )
            status, reply_headers, content = reply.status_code, dict(reply.headers), reply.content
        except httpx.HTTPError as exc:
            status, reply_headers, content = 599, {}, f"oracle proxy: Prism failed: {exc!r}".encode()
        exchange.status = exchange.prism_status = status
        exchange.response_headers = {k.lower(): v for k, v in reply_headers.items()}
        exchange.response = _decode(content, exchange.response_headers.get("content-type", ""))
        if variant is not None and isinstance(exchange.response, (dict, list)):
            status, headers, body, note = reshape(
                variant, base_url=self.base_url, path=exchange.path, query=exchange.query, body_sent=exchange.body,
                status=status, headers=exchange.response_headers, body=exchange.response)  # fmt: skip
            exchange.variant = note
            if note["kind"] != "none":
                exchange.status, exchange.response_headers, exchange.response = status, headers, body
                content = json.dumps(body).encode()
                reply_headers = {k: v for k, v in headers.items() if k != "content-length"}
        with self._lock:
            self.exchanges.append(exchange)
        handler.send_response(status)
        for name, value in reply_headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding"):
                handler.send_header(name, value)
        handler.send_header("content-length", str(len(content)))
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(content)


def _decode(raw: bytes, content_type: str) -> Any:
    if not raw:
        return None
    text = raw[:MAX_BODY].decode("utf-8", errors="replace")
    if "json" in content_type.lower() or text.lstrip()[:1] in ("{", "["):
        with contextlib.suppress(ValueError):
            return json.loads(raw)
    return text
