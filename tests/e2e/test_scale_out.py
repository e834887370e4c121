"""The generated package's deployment topology (issue 16), on this machine without containers: 3 replicas of
the ads server on 127.0.0.1, a real haproxy in front (round robin, GET /healthz checks, the package's own
balancer settings from mcpgen/render/deploy.py), a real redis-server as the shared preview store, the
loopback Ads API behind them, and official MCP clients driving it all through the balancer.

- 200 mixed calls from concurrent clients: 0 errors, and every replica served some.
- 50 concurrent applies of one preview, spread over the replicas: exactly 1 upstream change.
- one replica killed (SIGKILL) in the middle of a load of applies: no apply that answered success is
  missing upstream, no preview is applied twice, and every other answer is an honest "unknown outcome".
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from mcpgen.render.deploy import haproxy_config
from tests.e2e.conftest import InstalledServer, server_env
from tests.support.mcp_client import result_text
from tests.support.processes import free_port, http_server, redis_server, wait_for_port
from tests.upstreams.ads import AdsUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

REPLICAS = 3
MIXED_CALLS = 200
CLIENTS = 8
CONCURRENT_APPLIES = 50
PREVIEW = "ads_budget_change_preview"
APPLY = "ads_budget_change_apply"


@contextmanager
def _process(command: list[str], what: str, port: int, **kwargs: Any) -> Iterator[subprocess.Popen]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, **kwargs)
    try:
        wait_for_port(process, port, what)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(timeout=10)


@contextmanager
def _topology(ads_server: InstalledServer, upstream: AdsUpstream, tmp_path: Path) -> Iterator[dict[str, Any]]:
    haproxy = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
    if haproxy is None:
        pytest.skip("haproxy is not installed (scripts/test installs it with apt-get when run as root)")
    with ExitStack() as stack:
        store = stack.enter_context(redis_server(tmp_path))
        env = {"PATH": "/usr/bin:/bin", **server_env(upstream, MCP_STORE_URL=store)}
        replicas, logs = [], []
        for n in range(REPLICAS):
            port, log = free_port(), tmp_path / f"replica{n}.log"
            command = [*ads_server.command, "--http", "--port", str(port)]
            stderr = stack.enter_context(log.open("wb"))
            replicas.append(
                (stack.enter_context(_process(command, f"replica {n}", port, env=env, stderr=stderr)), port)
            )
            logs.append(log)
        balancer_port = free_port()
        config = tmp_path / "haproxy.cfg"
        backends = [f"127.0.0.1:{port}" for _, port in replicas]
        config.write_text(haproxy_config("# test", backends, docker=False, port=balancer_port))
        stack.enter_context(
            _process([haproxy, "-db", "-f", str(config)], "haproxy", balancer_port, stderr=subprocess.PIPE)
        )
        yield {"url": f"http://127.0.0.1:{balancer_port}/mcp", "replicas": replicas, "logs": logs}


def _calls_served(log: Path) -> int:
    return sum(1 for line in log.read_text(errors="replace").splitlines() if " -> " in line)


def _patches(upstream: AdsUpstream, campaign: str | None = None) -> list[Any]:
    return [r for r in upstream.requests if r.method == "PATCH" and (campaign is None or campaign in r.path)]


async def test_replicas_behind_haproxy_share_previews_and_survive_a_kill(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, tmp_path: Path
) -> None:
    with _topology(ads_server, ads_upstream, tmp_path) as topology:
        url = topology["url"]
        health = httpx.get(url.removesuffix("/mcp") + "/healthz", timeout=5)
        assert health.status_code == 200 and health.json() == {"status": "ok"}

        # 1. Mixed load from concurrent clients, each connected through the balancer.
        errors: list[str] = []

        async def mixed(worker: int) -> None:
            async with Client(url) as client:
                for n in range(worker, MIXED_CALLS, CLIENTS):
                    kind = n % 4
                    if kind == 0:
                        listed = await client.list_tools()
                        if len(listed.tools) != 5:
                            errors.append(f"tools/list gave {len(listed.tools)} tools")
                        continue
                    if kind == 1:
                        result = await client.call_tool(
                            "ads_campaigns_find", {"action": "get", "campaign_id": f"cmp_{n % 45 + 1:03d}"}
                        )
                    elif kind == 2:
                        result = await client.call_tool("ads_campaigns_find", {"action": "list", "limit": 5})
                    else:
                        result = await client.call_tool(
                            PREVIEW, {"campaign_id": "cmp_001", "new_daily_budget_krw": 400_000}
                        )
                    if result.is_error:
                        errors.append(result_text(result))

        async with anyio.create_task_group() as group:
            for worker in range(CLIENTS):
                group.start_soon(mixed, worker)
        assert errors == []
        assert all(_calls_served(log) > 0 for log in topology["logs"])  # round robin reached every replica
        assert _patches(ads_upstream) == []  # previews change nothing

        # 2. One preview, 50 applies at once through the balancer: one change.
        async with Client(url) as client:
            preview = await client.call_tool(
                PREVIEW, {"campaign_id": "cmp_002", "new_daily_budget_krw": 400_000}
            )
            assert not preview.is_error, result_text(preview)
            preview_id = preview.structured_content["preview_id"]
        results: list[Any] = []

        async def apply(pid: str, into: list[Any]) -> None:
            async with Client(url) as client:
                into.append(await client.call_tool(APPLY, {"preview_id": pid}))

        async with anyio.create_task_group() as group:
            for _ in range(CONCURRENT_APPLIES):
                group.start_soon(apply, preview_id, results)
        assert [result_text(r) for r in results if r.is_error] == []
        assert len({r.structured_content["updated_at"] for r in results}) == 1
        assert len(_patches(ads_upstream, "cmp_002")) == 1

        # 3. Applies of many previews while one replica is killed in the middle.
        campaigns = [f"cmp_{n:03d}" for n in range(10, 40)]
        previews: dict[str, str] = {}
        async with Client(url) as client:
            for campaign in campaigns:
                current = (
                    await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": campaign})
                ).structured_content["daily_budget"]
                shown = await client.call_tool(
                    PREVIEW, {"campaign_id": campaign, "new_daily_budget_krw": current + 10_000}
                )
                assert not shown.is_error, result_text(shown)
                previews[campaign] = shown.structured_content["preview_id"]
        answers: dict[str, list[Any]] = {c: [] for c in campaigns}
        victim, _ = topology["replicas"][0]

        async def kill_midway() -> None:
            while sum(len(a) for a in answers.values()) < len(campaigns) // 2:
                await anyio.sleep(0.01)
            victim.send_signal(signal.SIGKILL)

        async with anyio.create_task_group() as group:
            group.start_soon(kill_midway)
            for campaign in campaigns:
                for _ in range(2):  # each preview applied twice at once
                    group.start_soon(apply_safely, url, previews[campaign], answers[campaign])
        assert victim.wait(timeout=10) == -signal.SIGKILL

        # Afterwards, through the two replicas left: every preview once more.
        async with Client(url) as client:
            for campaign in campaigns:
                answers[campaign].append(await client.call_tool(APPLY, {"preview_id": previews[campaign]}))

    outcomes = [_outcome(a) for c in campaigns for a in answers[c]]
    print({kind: outcomes.count(kind) for kind in set(outcomes)})  # shown with -s: how the kill was met
    for campaign in campaigns:
        patches = _patches(ads_upstream, campaign)
        assert len(patches) <= 1, f"{campaign} was changed {len(patches)} times"  # nothing applied twice
        succeeded = [a for a in answers[campaign] if not isinstance(a, str) and not a.is_error]
        if succeeded:  # no apply that answered success is lost
            assert len(patches) == 1
            assert len({a.structured_content["updated_at"] for a in succeeded}) == 1
        for answer in answers[campaign]:
            if isinstance(answer, str) or not answer.is_error:
                continue
            assert "whether the change was made is unknown" in result_text(answer), result_text(answer)


async def apply_safely(url: str, preview_id: str, into: list[Any]) -> None:
    """An apply whose transport may break when its replica dies: the break is recorded, as a string."""
    try:
        async with Client(url) as client:
            into.append(await client.call_tool(APPLY, {"preview_id": preview_id}))
    except Exception as exc:  # noqa: BLE001 - the SDK wraps a broken connection in an exception group
        into.append(f"transport: {exc!r}")


def _outcome(answer: Any) -> str:
    if isinstance(answer, str):
        return "transport error"
    return "unknown outcome" if answer.is_error else "applied"


async def test_json_logs_carry_the_request_id(
    ads_server: InstalledServer, ads_upstream: AdsUpstream, tmp_path: Path
) -> None:
    """`--log-format json`: one JSON object a log line; a call's line names the HTTP request's id, the
    one the answer carries in X-Request-Id (a balancer's own id when it sends one)."""
    log = tmp_path / "server.log"
    command = [*ads_server.command, "--log-format", "json"]
    with http_server(command, server_env(ads_upstream), stderr_file=log) as url:
        probe = httpx.post(url, headers={"X-Request-Id": "lb-42"}, json={}, timeout=10)
        assert probe.headers["x-request-id"] == "lb-42"
        async with Client(url) as client:
            found = await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_009"})
            assert not found.is_error
    entries = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    [call] = [e for e in entries if e["message"].startswith("ads_campaigns_find action=get")]
    assert call["level"] == "INFO" and re.fullmatch(r"[0-9a-f]{32}", call["request_id"])
