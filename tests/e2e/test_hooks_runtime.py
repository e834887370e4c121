"""The generated server calls the package's hooks.py around each action (upstream mocked with httpx)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from tests.e2e.packages import PETSTORE_MAPPING, PETSTORE_SPEC, imported, write_package

HOOKS = """

def before_orders__get(args):
    return {**args, "order_id": args["order_id"] + 1}  # what the hook returns is what is sent


async def after_orders__get(result):
    return {**result, "checked_by": "hooks.py"}


def before_pets_find__get(args):
    pass  # forgot to return the arguments


def before_orders__cancel(args):
    from ._runtime.errors import Recovery, ToolError

    raise ToolError("orders cannot be cancelled on Sundays.", "Try again tomorrow.", Recovery.RETRY_LATER)
"""


def test_hooks_run_around_the_upstream_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    hooks = out / "petstore_mcp" / "hooks.py"
    # The user's definitions come last, so they are the ones the module ends up with.
    hooks.write_text(hooks.read_text(encoding="utf-8") + HOOKS, encoding="utf-8")
    seen: list[str] = []

    def upstream(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        body = json.dumps({"id": int(request.url.path.rsplit("/", 1)[1]), "status": "placed"}).encode()
        # A stream, as a real transport hands it over: the server reads answers as streams (body cap).
        return httpx.Response(
            200, headers={"content-type": "application/json"}, stream=httpx.ByteStream(body)
        )

    real_client = httpx.AsyncClient
    monkeypatch.setattr(
        httpx, "AsyncClient", lambda **kw: real_client(transport=httpx.MockTransport(upstream), **kw)
    )
    monkeypatch.setenv("PETSTORE_API_KEY", "secret")

    async def calls() -> list[Any]:
        with imported(out, "petstore_mcp") as server_module:
            from petstore_mcp._runtime.app import build_server  # type: ignore[import-not-found]

            server = build_server(server_module.CONFIG, server_module.TOOLS)
            async with Client(server) as client:
                return [
                    await client.call_tool("petstore_orders", {"action": "get", "order_id": 4}),
                    await client.call_tool("petstore_pets_find", {"action": "get", "pet_id": 1}),
                    await client.call_tool("petstore_orders", {"action": "cancel", "order_id": 3}),
                ]

    got, broken, refused = anyio.run(calls)
    assert not got.is_error, got.content[0].text
    assert json.loads(got.content[0].text) == {"id": 5, "status": "placed", "checked_by": "hooks.py"}
    assert seen == ["/v2/store/order/5"]  # the broken and the refusing hook stopped their calls
    assert broken.is_error and "before_pets_find__get returned NoneType, not a dict" in broken.content[0].text
    assert refused.is_error and "orders cannot be cancelled on Sundays." in refused.content[0].text
