"""Raw bytes on a generated server's stdin (issue 14.3): what no SDK client sends, and how a client ends.

A line that is not JSON gets a JSON-RPC parse error (-32700), JSON that is not one 2.0 message (a
wrong `jsonrpc` version, a batch array, which MCP does not have) an invalid-request error (-32600),
both with id null as JSON-RPC 2.0 says when the id cannot be told; each within 1 s of the line, as
the issue asks, so a client never waits forever. And a request written as stdin's last line before
it closes is answered before the process exits (`echo '<request>' | ads-mcp`).

The installed ads example, over stdio, against the Ads API stand-in; a call reads
specs/ads/ads.openapi.yaml #/paths/~1campaigns~1{campaign_id}/get (getCampaign).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import pytest

from tests.e2e.conftest import InstalledServer, server_env
from tests.upstreams.ads import AdsUpstream

pytestmark = pytest.mark.e2e

REPLY_WITHIN_S = 1.0  # the bound for each error reply
START_WITHIN_S = 60.0  # the first answer also waits for the interpreter to start
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def request(request_id: int, method: str, **params: Any) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**params, "_meta": META}}
    return json.dumps(message).encode() + b"\n"


GET = {"name": "ads_campaigns_find", "arguments": {"action": "get", "campaign_id": "cmp_009"}}


class Replies:
    """stdout's lines, each waited for at most a given number of seconds (select on the pipe)."""

    def __init__(self, stdout: IO[bytes]) -> None:
        self._fd = stdout.fileno()
        self._buffer = b""

    def next(self, within_s: float) -> dict[str, Any] | None:
        """The next line as JSON; None when none comes within `within_s` or stdout ends."""
        deadline = time.monotonic() + within_s
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._fd], [], [], left)[0]:
                return None
            chunk = os.read(self._fd, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        found: dict[str, Any] = json.loads(line)  # nothing but protocol on stdout (R6 nothing on stdout)
        return found


@contextmanager
def raw_server(server: InstalledServer, upstream: AdsUpstream) -> Iterator[tuple[IO[bytes], Replies, Any]]:
    process = subprocess.Popen(
        server.command, env=server_env(upstream), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, bufsize=0,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    try:
        yield process.stdin, Replies(process.stdout), process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


def test_unreadable_lines_get_json_rpc_errors_with_id_null_within_a_second(
    ads_server: InstalledServer, ads_upstream: AdsUpstream
) -> None:
    with raw_server(ads_server, ads_upstream) as (stdin, replies, _):
        stdin.write(request(1, "server/discover"))
        started = replies.next(START_WITHIN_S)
        assert started is not None and started["id"] == 1 and "result" in started, started
        lines = {
            "malformed JSON": (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list"\n', PARSE_ERROR),
            "wrong version": (
                json.dumps({"jsonrpc": "1.0", "id": 8, "method": "tools/list"}).encode() + b"\n",
                INVALID_REQUEST,
            ),
            "batch array": (b"[" + request(9, "tools/list").strip() + b"]\n", INVALID_REQUEST),
        }
        for why, (line, code) in lines.items():
            stdin.write(line)
            reply = replies.next(REPLY_WITHIN_S)
            assert reply is not None, f"{why}: no reply within {REPLY_WITHIN_S} s"
            assert reply["jsonrpc"] == "2.0" and reply["id"] is None, (why, reply)
            assert reply["error"]["code"] == code, (why, reply)
        # The server goes on serving after them.
        stdin.write(request(10, "tools/list"))
        listed = replies.next(START_WITHIN_S)
        assert listed is not None and listed["id"] == 10 and listed["result"]["tools"], listed


@pytest.mark.parametrize("last", ["server/discover", "tools/call"])
def test_the_last_request_before_stdin_closes_is_answered_before_exit(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, last: str
) -> None:
    with raw_server(ads_server, ads_upstream) as (stdin, replies, process):
        stdin.write(request(1, "tools/list") + request(2, last, **(GET if last == "tools/call" else {})))
        stdin.close()  # how `echo ... | server` and a client that is done end a stdio server
        answers = [replies.next(START_WITHIN_S), replies.next(START_WITHIN_S)]
        assert replies.next(START_WITHIN_S) is None  # stdout ends: the process is leaving
        assert process.wait(timeout=30) == 0
    by_id = {a["id"]: a for a in answers if a is not None}
    assert set(by_id) == {1, 2} and all("result" in a for a in by_id.values()), answers
    if last == "tools/call":
        assert by_id[2]["result"]["structuredContent"]["id"] == "cmp_009", by_id[2]
        assert [r.path for r in ads_upstream.requests] == ["/campaigns/cmp_009"]
    else:
        assert "capabilities" in by_id[2]["result"], by_id[2]
