"""An apply cut off by a crash (issue 11, finding 6): the server is SIGKILLed while the API holds
the previewed PATCH, then a fresh server process is asked to apply the same preview_id.

Whether the change was made is unknown (E4), so every later apply says exactly that, promptly and for
as long as the record exists: never "expired; nothing was changed" (the API got the request), and
never after waiting out a claim whose owner is gone. SQLite and a real redis-server alike.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.hostile.runtime_servers import SECRET, command, example_env, generate, has_traceback, http_process
from tests.support.mcp_client import result_text, stdio_client
from tests.support.processes import redis_server
from tests.upstreams.ads import AdsUpstream

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

PREVIEW = "ads_budget_change_preview"
APPLY = "ads_budget_change_apply"
TIMEOUT_S = 30  # specs/ads/mapping.yaml's timeout_s
SLOW_S = 20  # the API holds the PATCH this long: the server is killed meanwhile


@pytest.fixture(scope="module")
def ads_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate("ads", tmp_path_factory.mktemp("hostile-apply"))


class Store:
    """The preview store seen from outside the server: its URL, and a way to age or edit a record."""

    def __init__(self, url: str):
        self.url = url

    def set_fields(self, preview_id: str, **fields: Any) -> None:
        if self.url.startswith("sqlite://"):
            assignments = ", ".join(f"{name} = ?" for name in fields)
            with sqlite3.connect(self.url.removeprefix("sqlite://")) as db:
                db.execute(f"UPDATE previews SET {assignments} WHERE id = ?", (*fields.values(), preview_id))
        else:
            import redis

            with redis.Redis.from_url(self.url) as client:
                client.hset(f"ads_mcp:previews:{preview_id}", mapping={k: str(v) for k, v in fields.items()})


@contextmanager
def _store(kind: str, tmp_path: Path) -> Iterator[Store]:
    if kind == "redis":
        with redis_server(tmp_path) as url:
            yield Store(url)
    else:
        yield Store(f"sqlite://{tmp_path / 'previews.db'}")


async def _preview_then_kill_mid_apply(
    ads_package: Path, upstream: AdsUpstream, env: dict[str, str], tmp_path: Path
) -> str:
    """A preview, then an apply whose PATCH the API receives and holds while the server is SIGKILLed."""
    with http_process("ads_mcp", env, tmp_path / "killed.log") as (process, url):
        async with Client(url) as client:
            preview = await client.call_tool(
                PREVIEW, {"campaign_id": "cmp_003", "new_daily_budget_krw": 120_000}
            )
        assert not preview.is_error, result_text(preview)
        preview_id = preview.structured_content["preview_id"]
        upstream.fail_next(200, {"id": "cmp_003", "daily_budget": 120_000}, delay_s=SLOW_S)
        async with anyio.create_task_group() as group:
            group.start_soon(_apply_cut_off_by_the_crash, url, preview_id)
            with anyio.fail_after(10):
                while not any(r.method == "PATCH" for r in upstream.requests):
                    await anyio.sleep(0.02)
            process.kill()  # SIGKILL: no cleanup runs, the claim stays as it was
            process.wait(timeout=10)
    return preview_id


async def _apply_cut_off_by_the_crash(url: str, preview_id: str) -> None:
    try:
        async with Client(url) as client:
            await client.call_tool(APPLY, {"preview_id": preview_id})
    except Exception:  # noqa: BLE001 - the server is killed under this call; its failure is expected
        return
    raise AssertionError("the apply answered although its server was killed")


def _outcome_unknown(text: str) -> None:
    assert "(check the outcome before doing anything else)" in text, text
    assert "unknown" in text and "expired" not in text and "nothing was changed" not in text, text
    assert PREVIEW in text, text  # what to do if the change is not there
    assert not has_traceback(text) and SECRET not in text


@pytest.mark.parametrize("store_kind", ["sqlite", "redis"])
async def test_an_apply_killed_mid_request_is_unknown_not_expired(
    ads_package: Path, tmp_path: Path, store_kind: str
) -> None:
    """Today: an aged record says "expired; nothing was changed", a fresh one waits ~35 s first."""
    with AdsUpstream(token=SECRET) as upstream, _store(store_kind, tmp_path) as store:
        env = example_env("ads", ads_package, upstream, tmp_path / "unused.db", MCP_STORE_URL=store.url)
        preview_id = await _preview_then_kill_mid_apply(ads_package, upstream, env, tmp_path)
        async with stdio_client(command("ads_mcp"), env) as client:
            started = time.monotonic()
            fresh = await client.call_tool(APPLY, {"preview_id": preview_id})
            waited_s = time.monotonic() - started
            store.set_fields(preview_id, expires_at=1000)  # the preview's ten minutes are over
            aged = await client.call_tool(APPLY, {"preview_id": preview_id})
            again = await client.call_tool(APPLY, {"preview_id": preview_id})
    for result in (fresh, aged, again):
        assert result.is_error
        _outcome_unknown(result_text(result))
    # The owner of the claim is known to be gone, so nothing waits for it to time out.
    assert waited_s < TIMEOUT_S
    assert [r.method for r in upstream.requests] == ["GET", "PATCH"]  # never sent again


@pytest.mark.parametrize("store_kind", ["sqlite", "redis"])
async def test_a_claim_older_than_any_apply_is_unknown_at_once(
    ads_package: Path, tmp_path: Path, store_kind: str
) -> None:
    """A claim whose owner this host cannot check (another replica's) counts as cut off once it is older
    than the longest an apply can take."""
    with AdsUpstream(token=SECRET) as upstream, _store(store_kind, tmp_path) as store:
        env = example_env("ads", ads_package, upstream, tmp_path / "unused.db", MCP_STORE_URL=store.url)
        async with stdio_client(command("ads_mcp"), env) as client:
            preview = await client.call_tool(
                PREVIEW, {"campaign_id": "cmp_003", "new_daily_budget_krw": 120_000}
            )
            preview_id = preview.structured_content["preview_id"]
            store.set_fields(
                preview_id, status="applying", claimed_at=time.time() - 3600, owner="another-replica 4242 0"
            )
            started = time.monotonic()
            stale = await client.call_tool(APPLY, {"preview_id": preview_id})
            waited_s = time.monotonic() - started
    assert stale.is_error
    _outcome_unknown(result_text(stale))
    assert waited_s < TIMEOUT_S
    assert [r.method for r in upstream.requests] == ["GET"]


async def test_a_corrupted_record_is_a_result_and_frees_its_claim(ads_package: Path, tmp_path: Path) -> None:
    """The store is outside the server: a record it cannot read is an error result, not a JSON-RPC
    "Internal server error" that leaves the preview claimed (today)."""
    with AdsUpstream(token=SECRET) as upstream:
        store = Store(f"sqlite://{tmp_path / 'previews.db'}")
        env = example_env("ads", ads_package, upstream, tmp_path / "previews.db")
        stderr = tmp_path / "stderr.log"
        async with stdio_client(command("ads_mcp"), env, stderr_file=stderr) as client:
            preview = await client.call_tool(
                PREVIEW, {"campaign_id": "cmp_003", "new_daily_budget_krw": 120_000}
            )
            preview_id = preview.structured_content["preview_id"]
            store.set_fields(preview_id, payload='{"arguments": {}}')
            broken = await client.call_tool(APPLY, {"preview_id": preview_id})
        with sqlite3.connect(tmp_path / "previews.db") as db:
            [(status,)] = db.execute("SELECT status FROM previews WHERE id = ?", (preview_id,)).fetchall()
    text = result_text(broken)
    assert broken.is_error and "(needs a human)" in text and "unexpectedly" in text, text
    assert not has_traceback(text) and "KeyError" in text
    assert status == "pending"  # nothing was sent, so nothing is unknown
    log = stderr.read_text()
    assert not has_traceback(log)
    assert "KeyError" in log and "preview.py:" in log  # the type and where it happened (E5)
    assert [r.method for r in upstream.requests] == ["GET"]
