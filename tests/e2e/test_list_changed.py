"""A running HTTP server tells listening clients when a regeneration changed its contract.

Under the 2026-07-28 revision the notification travels on the client's `subscriptions/listen`
stream, which the SDK serves as SSE even in JSON-response mode (see `_runtime/live.py`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.e2e.packages import PETSTORE_MAPPING, PETSTORE_SPEC, write_package
from tests.support.processes import free_port, wait_for_port

pytestmark = pytest.mark.e2e


def test_regenerating_under_a_running_server_notifies_listeners(tmp_path: Path) -> None:
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    mapping = tmp_path / "mapping.yaml"
    spec = tmp_path / "petstore.json"
    spec.write_bytes(PETSTORE_SPEC.read_bytes())
    mapping.write_text(
        PETSTORE_MAPPING.read_text(encoding="utf-8")
        + "      - name: user\n        operation: getUserByName\n        description: Look a store user up.\n",
        encoding="utf-8",
    )
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "petstore_mcp",
        "--http",
        "--port",
        str(port),
        "--contract-poll-s",
        "0.1",
    ]
    env = {**os.environ, "PYTHONPATH": str(out)}
    process = subprocess.Popen(command, cwd=out, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_port(process, port, "the MCP server", timeout_s=15.0)

        async def session() -> tuple[bool | None, list[str], str]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                listed = client.server_capabilities.tools
                async with client.listen(tools_list_changed=True) as events:
                    write_package(spec, mapping, out)  # `mcpgen generate` into the running package
                    with anyio.fail_after(10):
                        async for _ in events:
                            break
                tools = await client.list_tools()
                orders = next(t for t in tools.tools if t.name == "petstore_orders")
                call = await client.call_tool("petstore_orders", {"action": "user"})
                return (
                    listed.list_changed if listed else None,
                    orders.input_schema["properties"]["action"]["enum"],
                    call.content[0].text,
                )

        list_changed, actions, answer = anyio.run(session)
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert list_changed is True  # advertised: the server serves subscriptions/listen
    assert actions == ["place", "get", "cancel", "inventory", "user"]
    assert "action 'user'" in answer and "username" in answer  # the new routing table answers
