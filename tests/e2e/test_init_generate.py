"""From a spec to a running server with the command line alone: init, generate, lint, tools/list."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.support.paths import shared_spec

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.e2e


def _mcpgen(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "mcpgen", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("name", ["petstore", "github"])
@pytest.mark.anyio
async def test_init_generate_lint_and_list(name: str, tmp_path: Path) -> None:
    spec = shared_spec(f"{name}.json")
    mapping, out = tmp_path / "mapping.yaml", tmp_path / "server"
    init = _mcpgen("init", str(spec), "-o", str(mapping))
    assert init.returncode == 0, init.stderr
    generated = _mcpgen("generate", str(spec), "-m", str(mapping), "-o", str(out), "-q")
    assert generated.returncode == 0, generated.stderr
    lint = _mcpgen("lint", str(out), "--format", "json")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    report = json.loads(lint.stdout)
    assert report["counts"]["error"] == 0

    package = f"{name}_mcp"
    contract = json.loads((out / package / "tools.json").read_text(encoding="utf-8"))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", package],
        env={**os.environ, "PYTHONPATH": str(out), f"{name.upper()}_BASE_URL": "http://127.0.0.1:9"},
    )
    with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
            listing = await client.list_tools()
    # With discovery on (GitHub), tools/list serves the meta-tools; else every tool.
    served = [t["name"] for t in contract if "dev.mcpgen/discovery" in t.get("_meta", {})]
    assert [t.name for t in listing.tools] == (served or [t["name"] for t in contract])
    assert report["tools"] == len(contract)


@contextmanager
def _upstream() -> Iterator[tuple[str, list[str]]]:
    """A loopback API that answers every GET with an empty JSON list and records the paths."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            seen.append(self.path)
            body = b"[]"
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.anyio
async def test_discovery_finds_and_runs_a_tool(tmp_path: Path) -> None:
    spec = shared_spec("github.json")
    mapping, out = tmp_path / "mapping.yaml", tmp_path / "server"
    assert _mcpgen("init", str(spec), "-o", str(mapping)).returncode == 0
    assert _mcpgen("generate", str(spec), "-m", str(mapping), "-o", str(out), "-q").returncode == 0
    with _upstream() as (base_url, seen):
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "github_mcp"],
            env={**os.environ, "PYTHONPATH": str(out), "GITHUB_BASE_URL": base_url},
        )
        with (tmp_path / "server.log").open("w", encoding="utf-8") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
                listing = await client.list_tools()
                assert [t.name for t in listing.tools] == ["github_call_tool", "github_search_tools"]
                found = await client.call_tool(
                    "github_search_tools", {"query": "list repository issues", "limit": 3}
                )
                assert not found.is_error
                data = json.loads(found.content[0].text)
                names = [t["name"] for t in data["tools"]]
                assert "github_issues_find" in names and len(names) <= 3
                assert all("inputSchema" in t and "_meta" not in t for t in data["tools"])
                ran = await client.call_tool(
                    "github_call_tool",
                    {
                        "tool": "github_issues_find",
                        "arguments": {"action": "list_for_repo", "owner": "o", "repo": "r"},
                    },
                )
                assert not ran.is_error, ran.content[0].text
                # Strict-mode clients send the arguments as JSON text instead.
                as_text = json.dumps({"action": "list_for_repo", "owner": "o", "repo": "r2"})
                ran_text = await client.call_tool(
                    "github_call_tool", {"tool": "github_issues_find", "arguments_json": as_text}
                )
                assert not ran_text.is_error, ran_text.content[0].text
                # The wrapped call is checked like a direct one: a missing argument is a tool error.
                missing = await client.call_tool(
                    "github_call_tool",
                    {"tool": "github_issues_find", "arguments": {"action": "list_for_repo"}},
                )
                assert missing.is_error and "owner" in missing.content[0].text
                unknown = await client.call_tool(
                    "github_call_tool", {"tool": "github_isues_find", "arguments": {}}
                )
                assert unknown.is_error and "github_issues_find" in unknown.content[0].text
    assert [p.split("?")[0] for p in seen] == ["/repos/o/r/issues", "/repos/o/r2/issues"]
