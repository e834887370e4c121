"""A stand-in upstream from tests/upstreams, served for the benchmarks with HTTP/1.1 keep-alive.

    python benchmarks/upstream.py ads|deploy --port P --token T [--connections-to FILE]

The stand-ins answer HTTP/1.0 (`BaseHTTPRequestHandler`'s default), which closes the connection after
every answer: a client then pays one TCP connect per call however well it pools. Real APIs keep
connections alive, so the benchmarks serve the same handlers as HTTP/1.1 (every reply carries
Content-Length, so that is safe). With --connections-to, the number of TCP connections accepted is
written to FILE on exit (SIGTERM): the check that a client reuses its connections.
"""

from __future__ import annotations

import argparse
import signal
import socketserver
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.upstreams.ads import AdsUpstream  # noqa: E402
from tests.upstreams.deploy import DeployUpstream  # noqa: E402
from tests.upstreams.recording import run_standalone  # noqa: E402

CONNECTIONS = 0


def _count_connections() -> None:
    setup = socketserver.StreamRequestHandler.setup

    def counting_setup(self: socketserver.StreamRequestHandler) -> None:
        global CONNECTIONS
        CONNECTIONS += 1
        setup(self)

    socketserver.StreamRequestHandler.setup = counting_setup  # type: ignore[method-assign]


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("api", choices=["ads", "deploy"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--connections-to", type=Path)
    a = p.parse_args(argv)
    BaseHTTPRequestHandler.protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle on, the second waits for the client's delayed
    # ACK (~40 ms) on a kept-alive connection, which showed as a 40 ms p90 on every side.
    socketserver.StreamRequestHandler.disable_nagle_algorithm = True
    _count_connections()
    upstream = AdsUpstream(a.token) if a.api == "ads" else DeployUpstream(a.token)
    # SIGTERM ends it like Ctrl-C, so the count below is written.
    signal.signal(signal.SIGTERM, _interrupt)
    run_standalone(upstream, a.port)
    if a.connections_to:
        a.connections_to.write_text(f"{CONNECTIONS}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
