"""From a spec to a running server with the command line alone: init, generate, lint, tools/list.

The GitHub spec takes the same path in test_github_spec.py, which shares one drafted package among its
tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


@pytest.mark.anyio
async def test_init_generate_lint_and_list(tmp_path: Path) -> None:
    name = "petstore"
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
            # The drafted DELETE /store/order/{orderId} (petstore.json /paths/~1store~1order~1{orderId}/delete)
            # cannot be undone: without elicitation or the confirm value it is refused before anything is sent.
            refused = await client.call_tool("petstore_store", {"action": "delete_order", "order_id": 1})
    assert [t.name for t in listing.tools] == [t["name"] for t in contract]
    assert refused.is_error and "CONFIRM_DELETE" in refused.content[0].text, refused.content
    assert report["tools"] == len(contract)
