"""Ready configuration for the common MCP clients: which command launches the server, which environment
variables it needs, and the text each client reads (Claude Desktop, Claude Code, VS Code, Cursor,
Windsurf).

Every decision is here; the package README and `mcpgen config` only print what these functions return.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from mcpgen.ir import ServerSpec

Transport = Literal["stdio", "http"]
CLIENTS = ("claude-desktop", "claude-code", "vscode", "cursor", "windsurf")
DEFAULT_HTTP_URL = "http://127.0.0.1:8000/mcp"
TOKEN_PLACEHOLDER = "<a token the server accepts>"


@dataclass(frozen=True, slots=True)
class EnvVar:
    name: str
    value: str  # the default, or a placeholder naming what to put there
    secret: bool  # a credential: VS Code asks for it instead of storing it in the file


@dataclass(frozen=True, slots=True)
class ClientConfig:
    client: str
    transport: Transport
    where: str  # the file it goes into, or where to run it
    text: str  # JSON, or a shell command line


def server_env(server: ServerSpec) -> tuple[EnvVar, ...]:
    """What a launched server needs set: the API's base URL (its default shown, so it is easy to change)
    and every credential (or parameter value) it sends from it. Per-host base URLs follow the main one when unset, so they are left out."""
    base = EnvVar(server.base_url_env, server.default_base_url or "<base URL of the API>", secret=False)
    envs = [
        env for a in ((server.auth, *server.extra_auth) if server.auth is not None else ()) for env in a.envs
    ]
    envs += [env for env in server.value_envs if env not in envs]  # values sent in parameters
    return (base, *(EnvVar(env, f"<your {env}>", secret=True) for env in envs))


def client_config(
    server: ServerSpec,
    client: str,
    transport: Transport,
    *,
    command: tuple[str, ...] | None = None,
    url: str = DEFAULT_HTTP_URL,
) -> ClientConfig:
    """One client's configuration. `command` launches the server over stdio (default: its console
    script by name, which a client finds only when it is on the client's PATH: `mcpgen config` passes
    its absolute path); `url` is where an HTTP server already runs."""
    launch = command or (server.distribution_name,)
    env = server_env(server)
    headers = {"Authorization": f"Bearer {TOKEN_PLACEHOLDER}"} if server.access is not None else {}
    build = _BUILDERS[client]
    return build(server.name, transport, launch, env, url, headers)


def all_client_configs(
    server: ServerSpec, *, command: tuple[str, ...] | None = None, url: str = DEFAULT_HTTP_URL
) -> tuple[ClientConfig, ...]:
    transports: tuple[Transport, ...] = ("stdio", "http")
    return tuple(
        client_config(server, client, transport, command=command, url=url)
        for client in CLIENTS
        for transport in transports
    )


def http_start_command(
    server: ServerSpec, url: str = DEFAULT_HTTP_URL, command: tuple[str, ...] | None = None
) -> str:
    """The line that starts the server for the HTTP configurations, with the variables it needs, on the
    host and port of `url` (the one the configuration points at)."""
    assigned = " ".join(f"{v.name}={shlex.quote(v.value)}" for v in server_env(server))
    parsed = urlsplit(url)
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
    except ValueError:  # a port that is not a number: the URL says nothing usable
        port = 8000
    host = parsed.hostname or "127.0.0.1"
    where = [] if host in ("127.0.0.1", "localhost") else ["--host", host]
    launch = shlex.join([*(command or (server.distribution_name,)), "--http", *where, "--port", str(port)])
    return f"{assigned} {launch}"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _env_map(env: tuple[EnvVar, ...]) -> dict[str, str]:
    return {v.name: v.value for v in env}


def _claude_desktop(
    name: str,
    transport: Transport,
    launch: tuple[str, ...],
    env: tuple[EnvVar, ...],
    url: str,
    headers: dict[str, str],
) -> ClientConfig:
    where = "claude_desktop_config.json (Settings > Developer > Edit Config)"
    if transport == "stdio":
        entry: dict[str, Any] = {"command": launch[0], "args": list(launch[1:]), "env": _env_map(env)}
    else:  # Claude Desktop's config file launches local commands only: mcp-remote bridges to a URL
        header_args = [arg for key, value in headers.items() for arg in ("--header", f"{key}: {value}")]
        entry = {"command": "npx", "args": ["-y", "mcp-remote", url, *header_args]}
    return ClientConfig("claude-desktop", transport, where, _json({"mcpServers": {name: entry}}))


def _claude_code(
    name: str,
    transport: Transport,
    launch: tuple[str, ...],
    env: tuple[EnvVar, ...],
    url: str,
    headers: dict[str, str],
) -> ClientConfig:
    if transport == "stdio":
        args = ["claude", "mcp", "add", "--transport", "stdio"]
        args += [arg for v in env for arg in ("--env", f"{v.name}={v.value}")]
        args += [name, "--", *launch]
    else:
        args = ["claude", "mcp", "add", "--transport", "http"]
        args += [arg for key, value in headers.items() for arg in ("--header", f"{key}: {value}")]
        args += [name, url]
    return ClientConfig("claude-code", transport, "a shell in your project's directory", shlex.join(args))


def _vscode(
    name: str,
    transport: Transport,
    launch: tuple[str, ...],
    env: tuple[EnvVar, ...],
    url: str,
    headers: dict[str, str],
) -> ClientConfig:
    """VS Code asks for credentials when it starts the server (`inputs`), so none is written down."""
    inputs: list[dict[str, Any]] = []

    def asked(var_id: str, description: str) -> str:
        inputs.append({"type": "promptString", "id": var_id, "description": description, "password": True})
        return "${input:" + var_id + "}"

    if transport == "stdio":
        values = {
            v.name: asked(v.name.lower().replace("_", "-"), v.name) if v.secret else v.value for v in env
        }
        entry: dict[str, Any] = {
            "type": "stdio",
            "command": launch[0],
            "args": list(launch[1:]),
            "env": values,
        }
    else:
        entry = {"type": "http", "url": url}
        if headers:
            entry["headers"] = {"Authorization": "Bearer " + asked(f"{name}-mcp-token", "bearer token")}
    config: dict[str, Any] = {"servers": {name: entry}}
    if inputs:
        config["inputs"] = inputs
    return ClientConfig("vscode", transport, ".vscode/mcp.json", _json(config))


def _cursor(
    name: str,
    transport: Transport,
    launch: tuple[str, ...],
    env: tuple[EnvVar, ...],
    url: str,
    headers: dict[str, str],
) -> ClientConfig:
    entry = _server_entry(transport, launch, env, url, headers, url_key="url")
    where = ".cursor/mcp.json (this project) or ~/.cursor/mcp.json (every project)"
    return ClientConfig("cursor", transport, where, _json({"mcpServers": {name: entry}}))


def _windsurf(
    name: str,
    transport: Transport,
    launch: tuple[str, ...],
    env: tuple[EnvVar, ...],
    url: str,
    headers: dict[str, str],
) -> ClientConfig:
    # Windsurf names the URL of a streamable HTTP server `serverUrl`
    entry = _server_entry(transport, launch, env, url, headers, url_key="serverUrl")
    where = "~/.codeium/windsurf/mcp_config.json (Cascade > MCP servers > View raw config)"
    return ClientConfig("windsurf", transport, where, _json({"mcpServers": {name: entry}}))


_BUILDERS = {
    "claude-desktop": _claude_desktop,
    "claude-code": _claude_code,
    "vscode": _vscode,
    "cursor": _cursor,
    "windsurf": _windsurf,
}
CLIENT_TITLES = {
    "claude-desktop": "Claude Desktop",
    "claude-code": "Claude Code",
    "vscode": "VS Code",
    "cursor": "Cursor",
    "windsurf": "Windsurf",
}


def _server_entry(
    transport: Transport,
    launch: tuple[str, ...],
    env: tuple[EnvVar, ...],
    url: str,
    headers: dict[str, str],
    *,
    url_key: str,
) -> dict[str, Any]:
    """One `mcpServers` entry as Cursor and Windsurf read it: the command that starts the server, or its
    URL under the key the client names it by."""
    if transport == "stdio":
        return {"command": launch[0], "args": list(launch[1:]), "env": _env_map(env)}
    return {url_key: url, **({"headers": headers} if headers else {})}
