"""The real GitHub spec (1,223 operations) with the command line alone: init drafts a mapping of every
operation, generate writes the package, lint passes it, and the server lists and runs its tools.

Drafting and generating GitHub is the slow part, so one package serves every test here (a session
fixture); each test only reads it or starts its own server process.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.mcp_client import stdio_client
from tests.support.paths import shared_spec
from tests.support.spec_fragments import request_fragment
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, Reply

pytestmark = pytest.mark.e2e

DISCOVERY_META = "dev.mcpgen/discovery"


@dataclass(frozen=True)
class Drafted:
    out: Path  # the generated package's directory
    init_report: str  # what `mcpgen init` printed
    generate_report: str  # what `mcpgen generate` printed

    @property
    def contract(self) -> list[dict[str, Any]]:
        return json.loads((self.out / "github_mcp" / "tools.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def github(tmp_path_factory: pytest.TempPathFactory) -> Drafted:
    spec = shared_spec("github.json")
    root = tmp_path_factory.mktemp("github")
    mapping, out = root / "mapping.yaml", root / "server"
    init = run_mcpgen("init", spec, "-o", mapping)
    assert init.returncode == 0, init.stderr
    generated = run_mcpgen("generate", spec, "-m", mapping, "-o", out)
    assert generated.returncode == 0, generated.stderr
    return Drafted(out, init.stdout, generated.stdout)


def test_every_operation_is_mapped_or_reported(github: Drafted) -> None:
    drafted = re.search(
        r": (\d+) tools, (\d+) actions over (\d+) operations(?:, (\d+) unmapped)?", github.init_report
    )
    assert drafted, github.init_report
    tools, actions, operations, unmapped = (int(n or 0) for n in drafted.groups())
    assert operations == 1223 and actions + unmapped == operations
    assert f"{tools} tools, {actions} actions" in github.generate_report
    if unmapped:  # reported, never silently dropped
        assert f"{unmapped} operations are not mapped" in github.generate_report


def test_lint_finds_no_errors(github: Drafted) -> None:
    lint = run_mcpgen("lint", github.out, "--format", "json")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    report = json.loads(lint.stdout)
    assert report["counts"]["error"] == 0
    assert report["tools"] == len(github.contract)
    assert '"$ref"' not in json.dumps(github.contract)  # the contract stands alone


def test_output_imports_with_a_table_for_every_tool(github: Drafted) -> None:
    code = (
        "import json, github_mcp.server as s; print(json.dumps([n for t in s.TOOLS for n in t.served_names]))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=github.out, capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    catalog = [t["name"] for t in github.contract if DISCOVERY_META not in t.get("_meta", {})]
    assert sorted(json.loads(completed.stdout)) == sorted(catalog)


class IssuesUpstream(LoopbackUpstream):
    """A loopback GitHub that answers a repository's issues with an empty list."""

    def __init__(self) -> None:
        super().__init__()
        self.route("GET", "/repos/{owner}/{repo}/issues", lambda r, p: Reply(200, []))


def github_request_fragment() -> dict[str, Any]:
    """What Prism judges the requests with: github.json (@octokit/openapi 23.0.2 api.github.com.json)
    #/paths/~1repos~1{owner}~1{repo}~1issues/get (issues/list-for-repo), its parameters as the spec has
    them and the components they reach (tests/support/spec_fragments.py)."""
    return request_fragment(shared_spec("github.json"), [("/repos/{owner}/{repo}/issues", "get")])


# Prism judges every request the stand-in receives (tests/support/prism.py, conftest.py).
PRISM_SPECS = {IssuesUpstream: github_request_fragment}


@pytest.mark.anyio
async def test_discovery_lists_finds_and_runs_a_tool(github: Drafted, tmp_path: Path) -> None:
    # With discovery on, tools/list serves the meta-tools that tools.json marks as such.
    served = sorted(t["name"] for t in github.contract if DISCOVERY_META in t.get("_meta", {}))
    assert served == ["github_call_tool", "github_search_tools"]
    with IssuesUpstream() as upstream:
        env = {"PYTHONPATH": str(github.out), "GITHUB_BASE_URL": upstream.base_url}
        async with stdio_client([sys.executable, "-m", "github_mcp"], env, tmp_path / "server.log") as client:
            listing = await client.list_tools()
            assert [t.name for t in listing.tools] == served
            found = await client.call_tool(
                "github_search_tools", {"query": "list repository issues", "limit": 3}
            )
            assert not found.is_error
            # Sent once, as text (the search tool declares no outputSchema); at most 3 actions, grouped
            # by tool, each with the input schema of its own arguments, not the tool's whole definition.
            assert found.structured_content is None
            data = json.loads(found.content[0].text)
            names = [t["name"] for t in data["tools"]]
            assert "github_issues_find" in names and data["shown"] <= 3
            assert all("_meta" not in t for t in data["tools"])
            issues = next(t for t in data["tools"] if t["name"] == "github_issues_find")
            by_action = {a["action"]: a["inputSchema"] for a in issues["actions"]}
            listing_schema = by_action["list_for_repo"]
            assert listing_schema["required"] == ["action", "owner", "repo"]
            assert "issue_number" not in listing_schema["properties"]  # the get action's, not this one's
            assert listing_schema["properties"]["state"]["enum"] == ["open", "closed", "all"]
            ran = await client.call_tool(
                "github_call_tool",
                {
                    "tool": "github_issues_find",
                    "arguments": {"action": "list_for_repo", "owner": "o", "repo": "r"},
                },
            )
            assert not ran.is_error, ran.content[0].text
            # Strict-mode clients send the arguments as JSON text instead.
            as_text = json.dumps({"action": "list_for_repo", "owner": "o", "repo": "r2"})
            ran_text = await client.call_tool(
                "github_call_tool", {"tool": "github_issues_find", "arguments_json": as_text}
            )
            assert not ran_text.is_error, ran_text.content[0].text
            # The wrapped call is checked like a direct one: a missing argument is a tool error naming it.
            missing = await client.call_tool(
                "github_call_tool",
                {"tool": "github_issues_find", "arguments": {"action": "list_for_repo", "owner": "o"}},
            )
            assert missing.is_error and "action 'list_for_repo' needs repo" in missing.content[0].text
            unknown = await client.call_tool(
                "github_call_tool", {"tool": "github_isues_find", "arguments": {}}
            )
            assert unknown.is_error and "github_issues_find" in unknown.content[0].text
    assert [r.path for r in upstream.requests] == ["/repos/o/r/issues", "/repos/o/r2/issues"]
