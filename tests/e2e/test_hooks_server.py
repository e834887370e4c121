"""The user's hooks run in a real server: a generated petstore package as a subprocess, driven over stdio
by the official MCP client, calling a loopback upstream that records every request (issue 13).

Before: hooks under an `if`, imported with `from .impl import *` or decorated got pass-through stubs
appended on the next regeneration, which replaced them at runtime; extra keys a before-hook returned
were dropped silently; there was no way to send a fixed header such as GitHub's X-GitHub-Api-Version.
After: the package is regenerated over those hooks, and the upstream sees what they did.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio

from tests.e2e.packages import PETSTORE_MAPPING, PETSTORE_SPEC, write_package
from tests.support.mcp_client import result_json, result_text, stdio_client
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

# The header GitHub's REST API reads its version from (docs.github.com "API versions"); any fixed
# header a mapping declares travels the same way.
API_VERSION = ("X-GitHub-Api-Version", "2022-11-28")

IMPL = """
def before_orders__get(args):
    return {**args, "order_id": args["order_id"] + 1, "_headers": {"X-Trace": "from-impl"}}
"""

HOOKS = """
import functools
import os

from .impl import *


def traced(hook):
    @functools.wraps(hook)
    def wrapper(value):
        return {**hook(value), "traced": True}
    return wrapper


if os.environ.get("PETSTORE_HOOKS", "on") == "on":
    async def after_orders__get(result):
        return {**result, "checked_by": "hooks.py"}


@traced
def after_orders__inventory(result):
    return result


def before_orders__cancel(args):
    return {**args, "oder_id": 3}  # a typo: the action takes order_id
"""


class PetstoreUpstream(LoopbackUpstream):
    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/v2/store/order/{order_id}", self._order)
        self.route("DELETE", "/v2/store/order/{order_id}", lambda request, path: Reply(200, {}))
        self.route("GET", "/v2/store/inventory", lambda request, path: Reply(200, {"available": 3}))

    @staticmethod
    def _order(request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, {"id": int(path["order_id"]), "status": "placed"})


def test_the_users_hooks_and_the_mappings_headers_reach_the_upstream(tmp_path: Path) -> None:
    mapping = tmp_path / "mapping.yaml"
    name, value = API_VERSION
    mapping.write_text(
        PETSTORE_MAPPING.read_text(encoding="utf-8").replace(
            "  timeout_s: 30\n", f"  timeout_s: 30\n  headers:\n    {name}: '{value}'\n"
        ),
        encoding="utf-8",
    )
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, mapping, out)
    package = out / "petstore_mcp"
    (package / "impl.py").write_text(IMPL, encoding="utf-8")
    hooks = package / "hooks.py"
    mine = hooks.read_text(encoding="utf-8") + HOOKS
    hooks.write_text(mine, encoding="utf-8")
    regenerated = write_package(PETSTORE_SPEC, mapping, out)  # the run that used to append stubs
    assert hooks.read_text(encoding="utf-8") == mine
    assert regenerated.diagnostics == () and regenerated.is_current  # impl.py: hooks.py imports it

    with PetstoreUpstream() as upstream:
        env = {
            "PATH": os.environ["PATH"],
            "PYTHONPATH": str(out),
            "PETSTORE_BASE_URL": f"{upstream.base_url}/v2",
            "PETSTORE_API_KEY": "secret-key",
        }

        async def calls() -> list[object]:
            async with stdio_client([sys.executable, "-m", "petstore_mcp"], env) as client:
                return [
                    await client.call_tool("petstore_orders", {"action": "get", "order_id": 4}),
                    await client.call_tool("petstore_orders", {"action": "inventory"}),
                    await client.call_tool("petstore_orders", {"action": "cancel", "order_id": 3}),
                ]

        got, inventory, typo = anyio.run(calls)
        requests = list(upstream.requests)

    assert [(r.method, r.path) for r in requests] == [
        ("GET", "/v2/store/order/5"),  # the star-imported before-hook changed the argument
        ("GET", "/v2/store/inventory"),
    ]  # the typo hook stopped its call before anything was sent
    assert requests[0].headers["x-trace"] == "from-impl"  # a header the hook added
    assert all(r.headers["x-github-api-version"] == value for r in requests)  # the mapping's header
    assert "_headers" not in (requests[0].json or {}) and requests[0].param("_headers") is None
    assert result_json(got) == {"id": 5, "status": "placed", "checked_by": "hooks.py"}  # under `if`
    assert result_json(inventory)["traced"] is True  # decorated
    assert typo.is_error and "returned oder_id, which action cancel does not take" in result_text(typo)
