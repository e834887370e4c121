"""Client configuration in one step (issue 16): `mcpgen config CLIENT` and the generated README give each
common client's configuration; every one parses as its client reads it (JSON, or `claude mcp add` argv),
names the env vars the server needs, and the Claude Desktop one launches a working server through the
official MCP client."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from mcpgen.pipeline import generate
from mcpgen.render.clients import CLIENTS, all_client_configs
from tests.e2e.conftest import TOKEN, InstalledServer
from tests.support.mcp_client import stdio_client
from tests.support.paths import SPECS
from tests.unit.cli import run_cli
from tests.upstreams.ads import AdsUpstream

ADS = (SPECS / "ads" / "ads.openapi.yaml", SPECS / "ads" / "mapping.yaml")
DEPLOY = (SPECS / "deploy" / "deploy.openapi.yaml", SPECS / "deploy" / "mapping.yaml")
ADS_ENV = {"ADS_BASE_URL", "ADS_API_TOKEN"}


def _config(client: str, *args: str | Path, inputs: tuple[Path, Path] = ADS) -> str:
    spec, mapping = inputs
    printed = run_cli("config", client, spec, "-m", mapping, *args)
    assert printed.returncode == 0, printed.stderr
    return printed.stdout


def _claude_code_argv(line: str) -> list[str]:
    argv = shlex.split(line)
    assert argv[:3] == ["claude", "mcp", "add"]
    return argv


@pytest.mark.parametrize("client", [c for c in CLIENTS if c != "claude-code"])
def test_stdio_json_configs_name_the_command_and_every_env_var(client: str) -> None:
    config = json.loads(_config(client))
    servers = config["servers"] if client == "vscode" else config["mcpServers"]
    entry = servers["ads"]
    assert entry["command"] == "ads-mcp" and entry["args"] == []
    assert set(entry["env"]) == ADS_ENV
    assert entry["env"]["ADS_BASE_URL"] == "http://127.0.0.1:8080"  # the mapping's default
    if client == "vscode":  # a credential is asked for, never written into the file
        assert entry["type"] == "stdio"
        assert entry["env"]["ADS_API_TOKEN"] == "${input:ads-api-token}"
        assert config["inputs"][0]["id"] == "ads-api-token" and config["inputs"][0]["password"] is True


def test_claude_code_stdio_is_one_command_with_its_env() -> None:
    argv = _claude_code_argv(_config("claude-code").strip())
    separator = argv.index("--")
    assert argv[separator - 1] == "ads" and argv[separator + 1 :] == ["ads-mcp"]
    envs = [argv[n + 1] for n, arg in enumerate(argv[:separator]) if arg == "--env"]
    assert {e.split("=", 1)[0] for e in envs} == ADS_ENV
    assert argv[argv.index("--transport") + 1] == "stdio"


def test_http_configs_point_at_the_url_with_a_bearer_header_where_the_server_checks_tokens() -> None:
    url = "http://127.0.0.1:9123/mcp"
    for client in CLIENTS:
        text = _config(client, "--http", "--url", url, inputs=DEPLOY)
        if client == "claude-code":
            argv = _claude_code_argv(text.strip())
            assert argv[-2:] == ["deploy", url] and argv[argv.index("--transport") + 1] == "http"
            assert argv[argv.index("--header") + 1].startswith("Authorization: Bearer ")
            continue
        config = json.loads(text)
        entry = (config["servers"] if client == "vscode" else config["mcpServers"])["deploy"]
        if client == "claude-desktop":  # its config file bridges to a URL with mcp-remote
            assert entry["command"] == "npx" and url in entry["args"]
            assert "--header" in entry["args"]
        else:
            assert entry["url"] == url and entry["headers"]["Authorization"].startswith("Bearer ")


def test_the_generated_readme_carries_every_client_config() -> None:
    spec, mapping = ADS
    result = generate(spec, mapping, None)
    assert result.server is not None
    readme = next(f.content for f in result.files if f.path == "README.md")
    blocks = re.findall(r"```(json|bash)\n(.*?)\n```", readme, re.S)
    configs = all_client_configs(result.server)
    assert [text for _, text in blocks if text in {c.text for c in configs}] == [c.text for c in configs]
    for fence, text in blocks:
        if fence == "json":
            json.loads(text)


@pytest.mark.e2e
@pytest.mark.anyio
async def test_the_claude_desktop_config_launches_a_working_server(
    ads_server: InstalledServer, ads_upstream: AdsUpstream
) -> None:
    """As Claude Desktop does: the command, args and env of the printed entry, placeholders filled in."""
    entry = json.loads(_config("claude-desktop", "--command", ads_server.command[0]))["mcpServers"]["ads"]
    env = {**entry["env"], "ADS_BASE_URL": ads_upstream.base_url, "ADS_API_TOKEN": TOKEN}
    async with stdio_client([entry["command"], *entry["args"]], env) as client:
        found = await client.call_tool("ads_campaigns_find", {"action": "get", "campaign_id": "cmp_009"})
    assert not found.is_error and found.structured_content["id"] == "cmp_009"
