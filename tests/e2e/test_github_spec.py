"""The real GitHub spec (1,223 operations) with a small issues mapping: generates, imports, lists."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.mcp_client import stdio_client, tool_dicts
from tests.support.paths import ROOT, shared_spec
from tests.support.venvs import run_mcpgen

MAPPING = ROOT / "tests" / "fixtures" / "github.mapping.yaml"


@pytest.fixture(scope="module")
def github_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("github") / "github"
    completed = run_mcpgen("generate", shared_spec("github.json"), "-m", MAPPING, "-o", out)
    assert completed.returncode == 0, completed.stderr
    assert "1219 operations are not mapped" in completed.stdout  # reported, never silently added
    return out


def test_output_imports(github_package: Path) -> None:
    code = "import github_mcp.server as s; print(len(s.TOOLS), s.TOOLS[0].action_names)"
    completed = subprocess.run([sys.executable, "-c", code], cwd=github_package, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "1 ('find', 'get', 'create', 'comment')"


@pytest.mark.anyio
async def test_tools_list_and_validation_work(github_package: Path) -> None:
    command = [sys.executable, "-m", "github_mcp"]
    env = {"PYTHONPATH": str(github_package), "GITHUB_BASE_URL": "http://127.0.0.1:9"}
    async with stdio_client(command, env) as client:
        tools = tool_dicts(await client.list_tools())
        result = await client.call_tool("github_issues", {"action": "get", "owner": "octo"})
    [tool] = tools
    assert tool["name"] == "github_issues"
    properties = tool["inputSchema"]["properties"]
    assert {"owner", "repo", "issue_number", "title", "body", "limit"} <= set(properties)
    assert '"$ref"' not in json.dumps(tool)
    assert result.is_error and "action 'get' needs repo" in result.content[0].text
