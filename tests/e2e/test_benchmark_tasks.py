"""The task-cost benchmark's mcpgen scripts (benchmarks/tasks.py) still run against the generated ads
server: every call answers without a tool error. A smoke test, no timing; FastMCP's side needs the
benchmark venv and is run by benchmarks/run_all.py."""

from __future__ import annotations

import sys

import pytest

from tests.e2e.conftest import InstalledServer, server_env
from tests.support.mcp_client import stdio_client
from tests.support.paths import ROOT

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

sys.path.insert(0, str(ROOT / "benchmarks"))
from tasks import TASKS, Session  # noqa: E402


async def test_every_mcpgen_task_script_runs_without_tool_errors(
    ads_server: InstalledServer, ads_upstream
) -> None:
    async with stdio_client(ads_server.command, server_env(ads_upstream)) as client:
        for task, mcpgen_script, _ in TASKS:
            session = Session(client, count=len)
            await mcpgen_script(session)
            assert session.calls, task
            assert [c.tool for c in session.calls if c.is_error] == [], task
