"""The task-cost benchmarks' mcpgen scripts still run: benchmarks/tasks.py against the generated ads server,
benchmarks/github_tasks.py against the package `mcpgen init` drafts for GitHub's spec, with Prism's mock of
that spec as the upstream. Every search finds the tool its task needs and every call answers without a
tool error. A smoke test, no timing; FastMCP's side needs the benchmark venv and is run by
benchmarks/run_all.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import InstalledServer, server_env
from tests.support import prism
from tests.support.mcp_client import stdio_client
from tests.support.paths import ROOT, shared_spec
from tests.support.venvs import run_mcpgen

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

sys.path.insert(0, str(ROOT / "benchmarks"))
from github_tasks import GITHUB_TASKS, MCPGEN, Agent  # noqa: E402
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


@pytest.fixture(scope="module")
def github_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """GitHub's spec with the mapping `mcpgen init` drafts, generated as is (what the benchmark runs)."""
    spec = shared_spec("github.json")
    root = tmp_path_factory.mktemp("github-tasks")
    mapping, out = root / "mapping.yaml", root / "server"
    init = run_mcpgen("init", spec, "-o", mapping)
    assert init.returncode == 0, init.stderr
    generated = run_mcpgen("generate", spec, "-m", mapping, "-o", out, "-q")
    assert generated.returncode == 0, generated.stderr
    return out


async def test_every_github_task_script_finds_its_tools_and_runs(
    github_package: Path, prism_servers: prism.PrismServers, tmp_path: Path
) -> None:
    try:
        base = prism_servers.address(shared_spec("github.json"))
    except prism.PrismUnavailable as missing:
        pytest.skip(f"Prism serves the GitHub tasks' upstream: {missing}")
    env = {"PYTHONPATH": str(github_package), "GITHUB_BASE_URL": base}
    async with stdio_client([sys.executable, "-m", "github_mcp"], env, tmp_path / "server.log") as client:
        listed = [t.name for t in (await client.list_tools()).tools]
        assert listed == [MCPGEN.call, MCPGEN.search]  # discovery: the agent searches first
        assert len(GITHUB_TASKS) >= 8
        for task, mcpgen_script, _ in GITHUB_TASKS:
            agent = Agent(client, count=len, catalog=MCPGEN)
            await mcpgen_script(agent)  # raises when a search does not return the tool it needs
            assert [c.tool for c in agent.calls][0] == MCPGEN.search, task
            errors = [(c.arguments, c.tokens) for c in agent.calls if c.is_error]
            assert errors == [], task
