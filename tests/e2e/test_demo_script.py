"""./scripts/demo as a user and a client run it: with --stdio nothing but protocol reaches stdout, stopping it
by its PID stops the server and the stand-in API too, and a port in use is named with how to free it.

The demo installs mcpgen into its own venv (--dir, a temp dir here) and generates the ads example there.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest
from mcp import Client

from tests.support.paths import ROOT
from tests.support.processes import free_port

pytestmark = pytest.mark.e2e

DEMO = ROOT / "scripts" / "demo"
INSTALL_TIMEOUT_S = 600  # a fresh venv, mcpgen and the generated package from the package index
PROGRESS = (
    "demo: installing mcpgen",
    "demo: generating the ads server",
    "demo: installing the generated package",
)


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("demo")


def _lines(stream: IO[str]) -> queue.Queue[str | None]:
    """Every line of `stream` as it arrives; None once it closes."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _until(
    lines: queue.Queue[str | None],
    wanted: str,
    seen: list[str],
    timeout_s: float,
    match: Callable[[str], bool] | None = None,
) -> None:
    """Collects lines into `seen` until one contains `wanted` (or satisfies `match`)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            break
        if line is None:
            pytest.fail(f"the demo ended before printing {wanted!r}:\n{''.join(seen)[-3000:]}")
        seen.append(line)
        if (match or (lambda text: wanted in text))(line):
            return
    pytest.fail(f"the demo did not print {wanted!r} within {timeout_s} s:\n{''.join(seen)[-3000:]}")


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


def _released(port: int, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _listening(port):
            return True
        time.sleep(0.1)
    return False


def _children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.fixture
def demo_process() -> Iterator[list[subprocess.Popen]]:
    """Demo processes started by a test, each in a session of its own so that a failing test leaves none."""
    started: list[subprocess.Popen] = []
    yield started
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def _start(demo_process: list[subprocess.Popen], *args: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [str(DEMO), *args], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    demo_process.append(process)
    return process


def _message(line: str) -> dict:
    """The JSON-RPC message on a line, or {} for a line that is not one."""
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def _index(lines: list[str], prefix: str) -> int:
    return next(n for n, line in enumerate(lines) if line.startswith(prefix))


def _request(number: int, method: str, params: dict) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n"


@pytest.mark.slow
def test_stdio_demo_writes_nothing_but_protocol_on_stdout(demo_dir: Path, demo_process: list) -> None:
    upstream_port = free_port()
    demo = _start(demo_process, "--stdio", "--dir", str(demo_dir), "--upstream-port", str(upstream_port))
    assert demo.stdin is not None and demo.stdout is not None and demo.stderr is not None
    stderr, stdout = _lines(demo.stderr), _lines(demo.stdout)
    # A client writes at once and waits; the install takes a while before the server reads.
    initialize = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    demo.stdin.write(_request(1, "initialize", initialize))
    demo.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    demo.stdin.write(_request(2, "tools/list", {}))
    call = {"name": "ads_campaigns_find", "arguments": {"action": "get", "campaign_id": "cmp_009"}}
    demo.stdin.write(_request(3, "tools/call", call))
    demo.stdin.flush()
    seen: list[str] = []
    _until(
        stdout,
        "the answer to request 3",
        seen,
        INSTALL_TIMEOUT_S,
        lambda line: _message(line).get("id") == 3,
    )
    demo.stdin.close()  # how a client ends a stdio server
    assert demo.wait(timeout=30) == 0
    assert [line for line in seen if _message(line).get("jsonrpc") != "2.0"] == []  # nothing but protocol
    messages = [_message(line) for line in seen]
    by_id = {m["id"]: m for m in messages if "id" in m}
    assert by_id[2]["result"]["tools"] and "ads_campaigns_find" in {
        t["name"] for t in by_id[2]["result"]["tools"]
    }
    assert (
        not by_id[3]["result"].get("isError") and by_id[3]["result"]["structuredContent"]["id"] == "cmp_009"
    )
    progress: list[str] = []
    while (line := stderr.get(timeout=10)) is not None:
        progress.append(line)
    for step in PROGRESS:
        assert any(line.startswith(step) for line in progress), (step, progress[-20:])
    assert any("generated ads_mcp" in line for line in progress)  # mcpgen's own summary went to stderr
    # pip's progress while it installs, one line a package: the first install is never silent (issue 16).
    installing = progress[
        _index(progress, "demo: installing mcpgen") : _index(progress, "demo: generating the ads server")
    ]
    assert any(line.startswith(("demo:   Collecting", "demo:   Processing")) for line in installing), (
        installing
    )
    assert _released(upstream_port), "the stand-in Ads API still listens after the demo ended"


@pytest.mark.slow
@pytest.mark.anyio
async def test_stopping_the_demo_by_its_pid_stops_the_server_and_the_stand_in(
    demo_dir: Path, demo_process: list
) -> None:
    port, upstream_port = free_port(), free_port()
    demo = _start(
        demo_process, "--dir", str(demo_dir), "--port", str(port), "--upstream-port", str(upstream_port)
    )
    assert demo.stderr is not None
    seen: list[str] = []
    progress = _lines(demo.stderr)
    _until(progress, f"MCP server: http://127.0.0.1:{port}/mcp", seen, INSTALL_TIMEOUT_S)
    _until(progress, "demo: connect Claude Code:", seen, 30)
    assert seen[-1].split("connect Claude Code: ", 1)[1].split() == [
        "claude", "mcp", "add", "--transport", "http", "ads", f"http://127.0.0.1:{port}/mcp"
    ]  # fmt: skip
    # What generate printed mid-way names the installed script by its full path, which now exists:
    # a user without the demo's venv on PATH can run it as printed.
    [run_it] = [line for line in seen if line.startswith("run it:")]
    script = Path(shlex.split(run_it.removeprefix("run it:"))[-1])
    assert script.is_absolute() and script.name == "ads-mcp" and script.exists(), run_it
    [connect] = [line for line in seen if line.startswith("then connect Claude Code:")]
    assert shlex.split(connect)[-1] == str(script)
    [summary] = [line for line in seen if line.startswith("generated ads_mcp")]
    assert "4 tools, 10 actions; tools/list serves 5 (" in summary
    async with Client(f"http://127.0.0.1:{port}/mcp") as client:
        assert "ads_campaigns_find" in {t.name for t in (await client.list_tools()).tools}
    children = _children(demo.pid)
    assert len(children) == 2 and _listening(upstream_port)
    os.kill(demo.pid, signal.SIGTERM)  # the demo's PID only, not its process group
    status = demo.wait(timeout=15)
    assert _released(port), f"the MCP server still holds port {port}"
    assert _released(upstream_port), f"the stand-in Ads API still holds port {upstream_port}"
    assert not [pid for pid in children if _alive(pid)]
    assert status == 128 + signal.SIGTERM  # the demo's own exit, after stopping the others


def test_a_port_in_use_is_named_with_how_to_free_it(tmp_path: Path, demo_process: list) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        demo = _start(
            demo_process, "--dir", str(tmp_path), "--port", str(busy), "--upstream-port", str(free_port())
        )
        _, stderr = demo.communicate(timeout=60)
    assert demo.returncode == 1
    assert (
        f"port {busy} on 127.0.0.1 (for the MCP server) is already in use by process {os.getpid()}" in stderr
    )
    assert f"kill {os.getpid()}" in stderr and "--port <port>" in stderr
    assert not (tmp_path / "venv").exists()  # refused before the slow install
