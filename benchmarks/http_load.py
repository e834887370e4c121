"""Streamable HTTP, mcpgen's server vs FastMCP's: per-call overhead over direct httpx, and throughput at
50 concurrent clients. run_all.py drives it (servers, upstreams, the README section).

Both servers are called the same way, with one light client: a raw JSON-RPC POST per request over httpx
(the handshake era's `initialize`, its session id when the server hands one out, then `tools/call`),
reading the answer as JSON or as an SSE event, whichever the server sends. The official SDK client
costs more per call than either server, so it would hide the servers' difference under load. Every
loop is bounded: a fixed number of calls, or a deadline every client checks before each call.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx

PROTOCOL = "2025-11-25"  # the handshake era: both servers speak it (mcpgen's also speaks 2026-07-28)
START_TIMEOUT_S = 60.0
CALL_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Target:
    """One side's request: a tool call on its MCP endpoint(s), or (`direct_path` set) a plain GET of
    that path on the upstream at urls[0], the floor every server adds its overhead to."""

    urls: tuple[str, ...]
    tool: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    direct_path: str | None = None
    token: str = "bench-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def http_server(command: list[str], env: dict[str, str], port: int, what: str) -> Iterator[str]:
    """A server process listening on 127.0.0.1:port (its stderr, the default log level's lines, to
    /dev/null); yields its MCP endpoint's URL and ends the process afterwards."""
    proc = subprocess.Popen(
        command,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{what} exited with {proc.returncode} before listening on {port}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not listen on {port} within {START_TIMEOUT_S:.0f} s")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


HAPROXY_CONFIG = """global
  maxconn 4096
defaults
  mode http
  option http-keep-alive
  timeout connect 5s
  timeout client 60s
  timeout server 60s
"""


@contextlib.contextmanager
def haproxy(pools: dict[str, list[int]]) -> Iterator[dict[str, str]]:
    """One haproxy process in front of every pool: a port of its own each, round robin over the pool's
    servers on 127.0.0.1; yields each pool's MCP endpoint URL."""
    ports = {name: free_port() for name in pools}
    lines = [HAPROXY_CONFIG]
    for name, servers in pools.items():
        lines += [f"frontend {name}_in", f"  bind 127.0.0.1:{ports[name]}", f"  default_backend {name}"]
        lines += [f"backend {name}", "  balance roundrobin"]
        lines += [f"  server {name}{i} 127.0.0.1:{port}" for i, port in enumerate(servers)]
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "haproxy.cfg"
        config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        # -db: stay in the foreground, so terminating this process ends it.
        command = ["haproxy", "-db", "-f", str(config)]
        first = next(iter(ports.values()))
        with http_server(command, {}, first, "haproxy"):
            yield {name: f"http://127.0.0.1:{port}/mcp" for name, port in ports.items()}


def _message(response: httpx.Response, request_id: int) -> dict[str, Any]:
    """The JSON-RPC answer to `request_id`, from a JSON body or from the data lines of an SSE stream."""
    response.raise_for_status()
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:"):
                message = json.loads(line[5:])
                if message.get("id") == request_id:
                    return dict(message)
        raise RuntimeError(f"no answer to request {request_id} in the event stream")
    return dict(response.json())


@dataclass
class RpcSession:
    """One MCP client over one kept-alive HTTP connection."""

    http: httpx.AsyncClient
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    next_id: int = 1

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id, self.next_id = self.next_id, self.next_id + 1
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        response = await self.http.post(self.url, json=body, headers=self.headers)
        if "mcp-session-id" in response.headers:
            self.headers["mcp-session-id"] = response.headers["mcp-session-id"]
        message = _message(response, request_id)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return dict(message["result"])

    async def open(self) -> RpcSession:
        self.headers = {"accept": "application/json, text/event-stream"}
        await self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "mcpgen-bench", "version": "1"},
            },
        )
        self.headers["mcp-protocol-version"] = PROTOCOL
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        (await self.http.post(self.url, json=initialized, headers=self.headers)).raise_for_status()
        return self

    async def call(self, target: Target) -> None:
        result = await self.request("tools/call", {"name": target.tool, "arguments": target.arguments})
        if result.get("isError"):
            raise RuntimeError(f"{target.tool}: {result.get('content')}")


Step = Callable[[], Awaitable[None]]


async def opened(stack: contextlib.AsyncExitStack, target: Target, client: int) -> Step:
    """One client of `target` on its own kept-alive connection, ready to repeat its request; client
    number `client` takes the target's URLs in turn."""
    url = target.urls[client % len(target.urls)]
    http = await stack.enter_async_context(
        httpx.AsyncClient(timeout=CALL_TIMEOUT_S, limits=httpx.Limits(max_connections=1))
    )
    path = target.direct_path
    if path is not None:
        headers = {"Authorization": f"Bearer {target.token}"}

        async def get() -> None:
            (await http.get(url + path, headers=headers)).raise_for_status()

        return get
    session = await RpcSession(http, url).open()
    return lambda: session.call(target)


async def per_call(targets: dict[str, Target], calls: int, warmup: int) -> dict[str, list[float]]:
    """Milliseconds per request, one client a side, the sides called in turns (rotated each round)."""
    async with contextlib.AsyncExitStack() as stack:
        steps = {name: await opened(stack, t, 0) for name, t in targets.items()}
        names = list(steps)
        times: dict[str, list[float]] = {n: [] for n in names}
        for i in range(warmup + calls):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                t0 = time.perf_counter()
                await steps[name]()
                if i >= warmup:
                    times[name].append((time.perf_counter() - t0) * 1000)
        return times


async def _warm(step: Step) -> None:
    """One call before the clock starts; a kept-alive connection the server closed while the other
    clients were opening theirs (uvicorn closes idle ones after 5 s) is opened again once."""
    try:
        await step()
    except httpx.TransportError:
        await step()


@dataclass
class Window:
    """One side's load window: completed calls, their latencies, errors, the window's length."""

    completed: int
    errors: int
    seconds: float
    latencies_ms: list[float]


async def load_window(target: Target, clients: int, seconds: float) -> Window:
    """`clients` concurrent clients (spread over the target's URLs in turn), each calling as fast as
    its answers come, until the deadline; every client has opened its session and made one call
    before the clock starts."""
    latencies: list[float] = []
    errors = 0
    async with contextlib.AsyncExitStack() as stack:
        steps = [await opened(stack, target, i) for i in range(clients)]
        async with anyio.create_task_group() as warm:
            for step in steps:
                warm.start_soon(_warm, step)
        start = time.perf_counter()
        deadline = start + seconds
        last = start

        async def worker(step: Step) -> None:
            nonlocal errors, last
            while time.perf_counter() < deadline:
                t0 = time.perf_counter()
                try:
                    await step()
                except (httpx.HTTPError, RuntimeError):
                    errors += 1
                    continue
                done = time.perf_counter()
                latencies.append((done - t0) * 1000)
                last = max(last, done)

        async with anyio.create_task_group() as tg:
            for step in steps:
                tg.start_soon(worker, step)
    return Window(len(latencies), errors, last - start, latencies)


async def throughput(targets: dict[str, Target], clients: int, seconds: float, rounds: int) -> dict[str, Any]:
    """Requests per second and latency percentiles under `clients` concurrent clients, each side's
    window taken in turns (the order rotated each round) so all see the same machine load."""
    names = list(targets)
    windows: dict[str, list[Window]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            windows[name].append(await load_window(targets[name], clients, seconds))
    out: dict[str, Any] = {}
    for name, ws in windows.items():
        lat = [v for w in ws for v in w.latencies_ms]
        qs = statistics.quantiles(lat, n=100, method="inclusive") if len(lat) > 1 else lat * 99
        out[name] = {
            "req_per_s": sum(w.completed for w in ws) / sum(w.seconds for w in ws),
            "req_per_s_rounds": [w.completed / w.seconds for w in ws],
            "calls": sum(w.completed for w in ws),
            "errors": sum(w.errors for w in ws),
            "p50_ms": statistics.median(lat),
            "p99_ms": qs[98],
        }
    return out
