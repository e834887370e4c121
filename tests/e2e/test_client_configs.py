"""Client configuration in one step: `mcpgen config CLIENT` and the generated README give each common
client's configuration; every one parses as its client reads it (JSON, or `claude mcp add` argv), names
the env vars the server needs, writes the installed script's absolute path, and every stdio one launches
a working server through the official MCP client with a PATH that lacks the venv, as a desktop app does."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

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
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).name == "ads-mcp"
    assert entry["args"] == []
    assert set(entry["env"]) == ADS_ENV
    assert entry["env"]["ADS_BASE_URL"] == "http://127.0.0.1:8080"  # the mapping's default
    if client == "vscode":  # a credential is asked for, never written into the file
        assert entry["type"] == "stdio"
        assert entry["env"]["ADS_API_TOKEN"] == "${input:ads-api-token}"
        assert config["inputs"][0]["id"] == "ads-api-token" and config["inputs"][0]["password"] is True


def test_claude_code_stdio_is_one_command_with_its_env() -> None:
    argv = _claude_code_argv(_config("claude-code").strip())
    separator = argv.index("--")
    assert argv[separator - 1] == "ads"
    [command] = argv[separator + 1 :]
    assert Path(command).is_absolute() and Path(command).name == "ads-mcp"
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
        elif client == "windsurf":
            assert entry["serverUrl"] == url and entry["headers"]["Authorization"].startswith("Bearer ")
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


def test_http_start_line_uses_the_port_of_the_url() -> None:
    spec, mapping = ADS
    printed = run_cli(
        "config", "cursor", spec, "-m", mapping, "--http", "--url", "http://127.0.0.1:27020/mcp"
    )
    [start] = [line for line in printed.stderr.splitlines() if line.startswith("start the server first:")]
    assert start.endswith("--http --port 27020")


def test_config_checks_the_clients_profile_and_offers_discovery_none(tmp_path: Path) -> None:
    """Cursor drops a tool whose server and tool names reach 60 characters; with discovery on, a client
    that loads everything is told what `discovery: none` would list instead."""
    spec, mapping = ADS
    text = mapping.read_text(encoding="utf-8")
    server, tool = "ads_campaigns_europe", "campaigns_find_by_name"  # Cursor: 20 + 43 > 59
    renamed = tmp_path / "mapping.yaml"
    changed = text.replace("  name: ads\n", f"  name: {server}\n", 1).replace(
        "name: campaigns_find", f"name: {tool}", 1
    )
    renamed.write_text(changed, encoding="utf-8")
    printed = run_cli("config", "cursor", spec, "-m", renamed)
    assert printed.returncode == 0, printed.stderr
    assert f"Cursor: {server}_{tool} '{server}{server}_{tool}' has 63 characters" in printed.stderr
    assert "discovery is on" not in printed.stderr
    discovery = tmp_path / "discovery.yaml"
    discovery.write_text(
        text.replace("server:\n", "server:\n  discovery: search_tools\n", 1), encoding="utf-8"
    )
    for client, offered in (("cursor", True), ("claude-code", False)):
        printed = run_cli("config", client, spec, "-m", discovery)
        assert printed.returncode == 0, printed.stderr
        assert ("`discovery: none`" in printed.stderr) is offered, printed.stderr


def _launch(client: str, text: str) -> tuple[list[str], dict[str, str]]:
    """The command line and environment a client starts the server with, from its configuration."""
    if client == "claude-code":
        argv = shlex.split(text)
        separator = argv.index("--")
        env = dict(argv[n + 1].split("=", 1) for n, arg in enumerate(argv[:separator]) if arg == "--env")
        return argv[separator + 1 :], env
    config = json.loads(text)
    entry: dict[str, Any] = (config["servers"] if client == "vscode" else config["mcpServers"])["ads"]
    return [entry["command"], *entry["args"]], dict(entry["env"])


@pytest.mark.e2e
@pytest.mark.anyio
@pytest.mark.parametrize("client", CLIENTS)
async def test_each_stdio_config_launches_without_the_venv_on_path(
    client: str, ads_server: InstalledServer, ads_upstream: AdsUpstream
) -> None:
    """As a desktop client does: the installed mcpgen prints the configuration (no activated venv, no
    --command), and the client runs exactly its command and env with a PATH that lacks the venv."""
    spec, mapping = ADS
    bare_path = "/usr/bin:/bin"
    printed = subprocess.run(
        [str(ads_server.python.parent / "mcpgen"), "config", client, str(spec), "-m", str(mapping)],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PATH": bare_path},
    )  # fmt: skip
    assert printed.returncode == 0, printed.stderr
    command, env = _launch(client, printed.stdout)
    assert command == ads_server.command  # the installed script, in full
    filled = {
        name: TOKEN if name == "ADS_API_TOKEN" else ads_upstream.base_url if name == "ADS_BASE_URL" else value
        for name, value in env.items()
    }  # VS Code's ${input:...} and the placeholders, as the user fills them in
    async with stdio_client(command, {**filled, "PATH": bare_path}) as client_session:
        listed = await client_session.list_tools()
        found = await client_session.call_tool(
            "ads_campaigns_find", {"action": "get", "campaign_id": "cmp_009"}
        )
    assert "ads_campaigns_find" in [t.name for t in listed.tools]
    assert not found.is_error and found.structured_content["id"] == "cmp_009"


@pytest.mark.e2e
def test_a_bare_command_is_what_fails_without_the_venv_on_path(ads_server: InstalledServer) -> None:
    """The trap the absolute path avoids: the console script by name, with the PATH a desktop app has."""
    with pytest.raises(FileNotFoundError):
        subprocess.run(["ads-mcp", "--help"], env={"PATH": "/usr/bin:/bin"}, capture_output=True, check=False)


def test_the_readme_of_a_discovery_server_gives_the_call_tool_route(tmp_path: Path) -> None:
    spec, mapping = ADS
    text = mapping.read_text(encoding="utf-8")
    discovery = tmp_path / "discovery.yaml"
    discovery.write_text(
        text.replace("server:\n", "server:\n  discovery: search_tools\n", 1), encoding="utf-8"
    )
    result = generate(spec, discovery, None)
    readme = next(f.content for f in result.files if f.path == "README.md")
    route = re.search(
        r"--tool-name ads_call_tool --tool-arg tool=(\w+) \\\n  --tool-arg 'arguments=(.*)'", readme
    )
    assert route is not None, readme
    assert route.group(1) == "ads_campaign_change" and json.loads(route.group(2)) == {"action": "create"}
