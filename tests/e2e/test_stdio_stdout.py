"""Every way a client launches a generated server over stdio writes nothing but protocol on stdout
(R6 nothing on stdout; issue 16): the console script and `python -m <package>`, at the chattiest log level.

The raw bytes are read here, not through the SDK, which only logs a line it cannot parse and goes on.
"""

from __future__ import annotations

import json
import subprocess
from typing import IO

import pytest

from tests.e2e.conftest import InstalledServer, server_env
from tests.upstreams.ads import AdsUpstream

pytestmark = pytest.mark.e2e


def _requests() -> str:
    initialize = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    call = {"name": "ads_campaigns_find", "arguments": {"action": "get", "campaign_id": "cmp_009"}}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "nope", "arguments": {}}},
    ]
    return "".join(json.dumps(m) + "\n" for m in messages)


REQUEST_IDS = {1, 2, 3, 4}
MAX_LINES = 50  # bounded: the five requests answer in four lines


def _until_answered(stdout: IO[str], ids: set[int]) -> list[str]:
    """stdout's lines until every request in `ids` has its answer (a timeout ends the test). Lines that
    are not JSON are kept, for the assertion to show."""
    lines: list[str] = []
    waiting = set(ids)
    while waiting and len(lines) < MAX_LINES:
        line = stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        try:
            waiting.discard(json.loads(line).get("id"))
        except (ValueError, AttributeError):
            continue
    return lines


@pytest.mark.parametrize("launch", ["console script", "python -m"])
def test_stdout_carries_only_protocol(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, launch: str
) -> None:
    command = ads_server.command if launch == "console script" else [str(ads_server.python), "-m", "ads_mcp"]
    server = subprocess.Popen(
        [*command, "--log-level", "DEBUG"], env=server_env(ads_upstream),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(_requests())
    server.stdin.flush()
    lines = _until_answered(server.stdout, REQUEST_IDS)
    server.stdin.close()  # how a client ends a stdio server, once it has its answers
    lines += server.stdout.read().splitlines()
    stderr = server.stderr.read() if server.stderr else ""
    assert server.wait(timeout=30) == 0, stderr
    messages = [json.loads(line) for line in lines]  # every line parses: nothing else was written
    assert all(m.get("jsonrpc") == "2.0" for m in messages), lines
    by_id = {m["id"]: m for m in messages if "id" in m}
    assert set(by_id) == REQUEST_IDS
    assert by_id[3].get("result", {}).get("structuredContent", {}).get("id") == "cmp_009", by_id[3]
    assert "error" in by_id[4]  # an unknown tool is a protocol error, on the protocol channel
    assert "ads_campaigns_find action=get -> HTTP 200" in stderr  # the logs went to stderr
