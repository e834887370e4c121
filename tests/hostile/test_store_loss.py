"""The preview store fails while the API holds an apply's request: the API's answer is never lost, and
no preview is ever applied twice, with a real redis-server and the real SQLite store.

- The store dies mid-apply (redis-server SIGKILLed; the SQLite store's directory taken away, which is
  what a read-only directory does to a store that opens a connection per step; this suite runs as root,
  for whom permissions refuse nothing). The first answer carries the API's result and says it could not
  be recorded. After the store is back (an empty Redis included), applying the same id sends nothing
  and never says "nothing was changed"; ids issued before the restart still verify (MCP_SIGNING_KEY).
- 80 rounds (20 of each fault) over 2 server processes sharing a Redis store through a proxy the test cuts, with the
  store cut or emptied (as a Redis without persistence restarts) while the API holds the request, or
  down before the apply: the changes the API received equal the rounds reported changed, none twice.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import signal
import socket
import socketserver
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.hostile.runtime_servers import SECRET, command, example_env, generate, has_traceback, http_process
from tests.support.mcp_client import result_text, stdio_client
from tests.support.processes import free_port, wait_for_port
from tests.upstreams.ads import AdsUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

PREVIEW = "ads_budget_change_preview"
APPLY = "ads_budget_change_apply"
CAMPAIGN = "cmp_003"  # daily budget 100,000 in the stand-in; the mapping allows +50%
SIGNING_KEY = "k" * 16 + "0123456789abcdef0123456789abcdef"
ROUNDS = 80  # each of the four faults 20 times, on either process, in a seeded order


@pytest.fixture(scope="module")
def ads_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate("ads", tmp_path_factory.mktemp("store-loss"))


class RedisProcess:
    """A redis-server on one port that the test kills (SIGKILL) and starts again, empty."""

    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip(
                "redis-server is not installed (scripts/test installs it with apt-get when run as root)"
            )
        self.binary, self.directory, self.port = binary, directory, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [self.binary, "--bind", "127.0.0.1", "--port", str(self.port), "--save", ""]
        command += ["--appendonly", "no", "--dir", str(self.directory)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for_port(self.process, self.port, "redis-server")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def flush(self) -> None:
        """Everything gone at once, as a restart without persistence leaves it."""
        import redis

        with redis.Redis(port=self.port) as client:
            client.flushall()


class SqliteStore:
    """The SQLite store's file; `kill` takes its directory away, `start` puts it back."""

    def __init__(self, directory: Path) -> None:
        self.home, self.away = directory / "store", directory / "store-away"
        self.home.mkdir()

    @property
    def url(self) -> str:
        return f"sqlite://{self.home / 'previews.db'}"

    def start(self) -> None:
        if self.away.exists():
            self.away.rename(self.home)

    def kill(self) -> None:
        self.home.rename(self.away)


@contextmanager
def _store(kind: str, directory: Path) -> Iterator[RedisProcess | SqliteStore]:
    store: RedisProcess | SqliteStore = RedisProcess(directory) if kind == "redis" else SqliteStore(directory)
    store.start()
    try:
        yield store
    finally:
        if isinstance(store, RedisProcess):
            store.kill()


def _patches(upstream: AdsUpstream) -> list[Any]:
    return [r for r in upstream.requests if r.method == "PATCH"]


async def _preview(client: Client, budget: int) -> str:
    result = await client.call_tool(PREVIEW, {"campaign_id": CAMPAIGN, "new_daily_budget_krw": budget})
    assert not result.is_error, result_text(result)
    return str(result.structured_content["preview_id"])


async def _apply_while(client: Client, preview_id: str, upstream: AdsUpstream, fault: Any) -> Any:
    """Applies `preview_id`; once the API holds its PATCH, `fault()` runs. Returns the apply's result."""
    answers: list[Any] = []
    before = len(_patches(upstream))

    async def apply() -> None:
        answers.append(await client.call_tool(APPLY, {"preview_id": preview_id}))

    async with anyio.create_task_group() as group:
        group.start_soon(apply)
        with anyio.fail_after(10):
            while len(_patches(upstream)) == before and not answers:
                await anyio.sleep(0.005)
        fault()
    return answers[0]


def _changed(result: Any) -> bool:
    """True for an apply that reports the change made; an error must say what the agent can do."""
    text = result_text(result)
    assert "nothing was changed" not in text, text
    assert not has_traceback(text) and SECRET not in text, text
    if result.is_error:
        assert "(check the outcome before doing anything else)" in text or "(wait and retry)" in text, text
        return False
    return True


def _unknown_outcome(result: Any) -> None:
    text = result_text(result)
    assert result.is_error and "(check the outcome before doing anything else)" in text, text
    assert "ads_campaigns_find" in text or "read" in text, text  # the action that checks
    assert "nothing was changed" not in text and "as far as it can verify" not in text, text


@pytest.mark.parametrize("store_kind", ["redis", "sqlite"])
async def test_a_store_lost_mid_apply_keeps_the_answer_and_never_applies_twice(
    ads_package: Path, tmp_path: Path, store_kind: str
) -> None:
    with AdsUpstream(token=SECRET) as upstream, _store(store_kind, tmp_path) as store, ExitStack() as stack:
        env = example_env(
            "ads",
            ads_package,
            upstream,
            tmp_path / "unused.db",
            MCP_STORE_URL=store.url,
            MCP_SIGNING_KEY=SIGNING_KEY,
        )
        _, first_url = stack.enter_context(http_process("ads_mcp", env, tmp_path / "first.log"))
        _, second_url = stack.enter_context(http_process("ads_mcp", env, tmp_path / "second.log"))
        async with Client(first_url) as first, Client(second_url) as second:
            held = await _preview(first, 120_000)
            untouched = await _preview(first, 110_000)  # issued before the restart, applied after it
            upstream.fail_next(200, {"id": CAMPAIGN, "daily_budget": 120_000}, delay_s=1.0)
            answer = await _apply_while(first, held, upstream, store.kill)
            assert not answer.is_error, result_text(answer)
            assert answer.structured_content["daily_budget"] == 120_000  # the API's answer
            assert "could not record it" in answer.structured_content["not_recorded"]
            # While the store is down: the process that made the change still answers for it.
            assert _changed(await first.call_tool(APPLY, {"preview_id": held}))
            store.start()  # Redis: a new, empty one
            again = await first.call_tool(APPLY, {"preview_id": held})
            assert _changed(again) and again.structured_content["daily_budget"] == 120_000
            elsewhere = await second.call_tool(APPLY, {"preview_id": held})
            later = await second.call_tool(APPLY, {"preview_id": untouched})
    assert len(_patches(upstream)) == (1 if store_kind == "redis" else 2)
    if store_kind == "redis":  # the records went with the data: both ids verify, their outcome is unknown
        _unknown_outcome(elsewhere)
        _unknown_outcome(later)
    else:  # the file came back whole: the first outcome was recorded once the store was back
        assert _changed(elsewhere) and elsewhere.structured_content["daily_budget"] == 120_000
        assert _changed(later), result_text(later)


async def test_without_a_signing_key_an_id_from_before_the_restart_says_to_check_first(
    ads_package: Path, tmp_path: Path
) -> None:
    """A Redis without persistence restarted: the key it kept is gone, so old ids cannot be verified;
    the refusal says this call sent nothing and to check first, never "nothing was changed"."""
    with AdsUpstream(token=SECRET) as upstream, _store("redis", tmp_path) as store:
        env = example_env("ads", ads_package, upstream, tmp_path / "unused.db", MCP_STORE_URL=store.url)
        with http_process("ads_mcp", env, tmp_path / "server.log") as (_, url):
            async with Client(url) as client:
                preview_id = await _preview(client, 120_000)
                assert isinstance(store, RedisProcess)
                store.kill()
                store.start()
                refused = await client.call_tool(APPLY, {"preview_id": preview_id})
    text = result_text(refused)
    assert refused.is_error and "This call sent nothing" in text and "ads_campaigns_find" in text, text
    assert "MCP_SIGNING_KEY" in text and "nothing was changed" not in text
    assert _patches(upstream) == []


class _CutProxy(socketserver.ThreadingTCPServer):
    """A TCP proxy to the store that the test cuts (every connection closed, new ones closed at once)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.open = threading.Event()
        self.open.set()
        self.connections: set[socket.socket] = set()
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Pipe)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.server_address[1]}/0"

    def cut(self) -> None:
        self.open.clear()
        with self.lock:
            for connection in self.connections:
                with contextlib.suppress(OSError):  # already closed by its other end
                    connection.shutdown(socket.SHUT_RDWR)

    def restore(self) -> None:
        self.open.set()


class _Pipe(socketserver.BaseRequestHandler):
    server: _CutProxy

    def handle(self) -> None:
        if not self.server.open.is_set():
            return
        upstream = socket.create_connection(("127.0.0.1", self.server.target_port))
        with self.server.lock:
            self.server.connections.update((self.request, upstream))
        pump = threading.Thread(target=_copy, args=(upstream, self.request), daemon=True)
        pump.start()
        _copy(self.request, upstream)
        pump.join(timeout=5)
        with self.server.lock:
            self.server.connections.difference_update((self.request, upstream))
        upstream.close()


def _copy(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    for end in (source, target):
        with contextlib.suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)


async def test_eighty_rounds_of_store_faults_lose_no_change_and_double_none(
    ads_package: Path, tmp_path: Path
) -> None:
    rng = random.Random(20260728)
    faults = ["calm", "cut", "emptied", "down before"]
    with (
        AdsUpstream(token=SECRET) as upstream,
        _store("redis", tmp_path) as redis_store,
        ExitStack() as stack,
    ):
        assert isinstance(redis_store, RedisProcess)
        proxy = _CutProxy(redis_store.port)
        stack.callback(proxy.server_close)
        stack.callback(proxy.shutdown)
        threading.Thread(target=proxy.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        env = example_env(
            "ads",
            ads_package,
            upstream,
            tmp_path / "unused.db",
            MCP_STORE_URL=proxy.url,
            MCP_SIGNING_KEY=SIGNING_KEY,
        )
        urls = [stack.enter_context(http_process("ads_mcp", env, tmp_path / f"p{n}.log"))[1] for n in (0, 1)]
        reported = 0
        started = time.monotonic()
        async with Client(urls[0]) as one, Client(urls[1]) as other:
            clients = [one, other]
            for round_ in range(ROUNDS):
                fault = faults[round_ % len(faults)]
                applier = rng.randrange(2)
                budget = 100_001 + round_
                preview_id = await _preview(clients[rng.randrange(2)], budget)
                # The API holds the request long enough for the fault to land before it answers, on a
                # loaded machine too (0.2 s was missed at load 8 on 2 cores).
                held_s = 0.6 if fault in ("cut", "emptied") else 0.0
                upstream.fail_next(200, {"id": CAMPAIGN, "daily_budget": budget}, delay_s=held_s)
                if fault == "down before":
                    proxy.cut()
                    down = await clients[applier].call_tool(APPLY, {"preview_id": preview_id})
                    assert "(wait and retry)" in result_text(down), result_text(down)
                    proxy.restore()
                    first = await clients[applier].call_tool(APPLY, {"preview_id": preview_id})
                else:
                    act = {"calm": lambda: None, "cut": proxy.cut, "emptied": redis_store.flush}[fault]
                    first = await _apply_while(clients[applier], preview_id, upstream, act)
                    proxy.restore()
                # The same id again, on the process that ran it, then on the other.
                answers = [first]
                for n in (applier, 1 - applier):
                    answers.append(await clients[n].call_tool(APPLY, {"preview_id": preview_id}))
                changed = [_changed(a) for a in answers]
                assert changed[0], (fault, result_text(first))
                kept = "not_recorded" in (first.structured_content or {})
                assert kept == (fault in ("cut", "emptied")), (fault, result_text(first))
                if fault == "emptied":  # the other process has no record to go by
                    _unknown_outcome(answers[2])
                reported += any(changed)
        elapsed = time.monotonic() - started
    budgets = [r.json["daily_budget"] for r in _patches(upstream)]
    assert len(budgets) == len(set(budgets)), "a preview was applied twice"
    assert len(budgets) == reported == ROUNDS
    assert elapsed < 120, elapsed


async def test_a_signing_key_too_short_to_be_secret_is_reported_when_a_call_needs_it(
    ads_package: Path, tmp_path: Path
) -> None:
    with AdsUpstream(token=SECRET) as upstream:
        env = example_env("ads", ads_package, upstream, tmp_path / "store.db", MCP_SIGNING_KEY="short")
        async with stdio_client(command("ads_mcp"), env) as client:
            listed = await client.list_tools()  # the server starts and lists its tools
            refused = await client.call_tool(
                PREVIEW, {"campaign_id": CAMPAIGN, "new_daily_budget_krw": 110_000}
            )
    text = result_text(refused)
    assert listed.tools and refused.is_error and "(needs a human)" in text, text
    assert "MCP_SIGNING_KEY" in text and "32 characters" in text and '"short"' not in text  # never the value
