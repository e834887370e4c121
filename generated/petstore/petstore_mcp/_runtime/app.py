"""The MCP server itself: serves the contract in `tools.json` and dispatches calls (stdio or streamable HTTP)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import anyio
import httpx
import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

from .discovery import Discovery
from .errors import ToolError, unexpected
from .hooks import Hooks
from .info import server_info
from .live import LiveContract
from .results import Budget, error_result, interpret, success_result
from .routing import Tool
from .truncation import DEFAULT_MAX_TOKENS
from .upstream import Upstream, build_request, send
from .validation import ToolValidator

# Logs go to stderr: on stdio, stdout carries protocol traffic only (R6).
log = logging.getLogger("mcp_server")


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerConfig:
    name: str
    package: str  # the generated package, whose tools.json is the contract
    title: str
    version: str
    instructions: str
    upstream: Upstream
    # Serve the '<name>_server_info' diagnostic tool (info.py).
    server_info: bool = False
    max_result_tokens: int = DEFAULT_MAX_TOKENS  # the result size budget (R4)


def load_contract(package: str) -> list[dict[str, Any]]:
    return json.loads(
        resources.files(package).joinpath("tools.json").read_text(encoding="utf-8")
    )


def load_input_schemas(package: str) -> dict[str, Any] | None:
    """The untransformed inputSchemas, present when tools.json serves a provider profile's
    (`mcpgen generate --profile`): those drop constraints the server must still check."""
    found = resources.files(package).joinpath("input_schemas.json")
    return json.loads(found.read_text(encoding="utf-8")) if found.is_file() else None


class Dispatcher:
    """One tool call: validate, build the request, send it, shape the result. Errors become results (E1)."""

    def __init__(
        self,
        config: ServerConfig,
        contract: list[dict[str, Any]],
        tools: Sequence[Tool],
        input_schemas: dict[str, Any] | None = None,
    ):
        self.config = config
        self.discovery = Discovery(contract)
        self.listing = types.ListToolsResult(
            tools=[
                types.Tool.model_validate(t) for t in self.discovery.listed(contract)
            ]
        )
        schemas = input_schemas or {t["name"]: t["inputSchema"] for t in contract}
        self.validators = {
            tool.name: ToolValidator(tool, schemas[tool.name]) for tool in tools
        }
        self.hooks = Hooks.load(config.package, config.name)
        self._client: httpx.AsyncClient | None = None

    def reloaded(
        self,
        contract: list[dict[str, Any]],
        tools: Sequence[Tool],
        input_schemas: dict[str, Any] | None,
    ) -> Dispatcher:
        """The same server with a new contract, tool tables and hooks; keeps the HTTP client."""
        fresh = Dispatcher(self.config, contract, tools, input_schemas)
        fresh._client = self._client
        return fresh

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            # Every upstream call has a timeout (P5); the SDK never sees the upstream's credentials.
            self._client = httpx.AsyncClient(
                timeout=self.config.upstream.timeout_s, follow_redirects=False
            )
        return self._client

    async def call(
        self, name: str, arguments: dict[str, Any] | None
    ) -> types.CallToolResult:
        kind = self.discovery.meta.get(name)
        if kind is not None:
            try:
                if kind == "search":
                    return success_result(self.discovery.search(arguments))
                name, arguments = self.discovery.unwrap(arguments)
            except ToolError as exc:
                return error_result(exc, secrets=self._secrets())
        config = self.config  # server_info is found and run like a catalog tool
        if config.server_info and name == f"{config.name}_server_info":
            info = await server_info(
                config.name, config.version, config.upstream, self.client()
            )
            return success_result(info)
        validator = self.validators.get(name)
        if validator is None:
            # Finding the tool is the protocol's job: an unknown name is a JSON-RPC error, not a result (E1).
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")
        started = time.monotonic()
        action_name = (arguments or {}).get("action")
        try:
            action, values = validator.check(arguments)
            values = await self.hooks.before(name, action.name, values)
            upstream = self.config.upstream
            request = build_request(upstream, action, values)
            response = await send(self.client(), upstream, request, action)
            answer = await self.hooks.after(
                name, action.name, interpret(response, action, values)
            )
            budget = Budget(
                max_tokens=self.config.max_result_tokens,
                tool=name,
                action=action,
                values=values,
            )
            result = success_result(answer, budget)
            outcome = f"HTTP {response.status_code}"
        except ToolError as exc:
            result = error_result(exc, secrets=self._secrets())
            outcome = f"error ({exc.recovery.name.lower()})"
        except Exception as exc:  # noqa: BLE001 - a bug must still answer as a result, without internals (E1, E5)
            result = error_result(
                unexpected(exc, name, action_name), secrets=self._secrets()
            )
            outcome = f"unexpected {type(exc).__name__}"
        log.info(
            "%s action=%s -> %s in %.0f ms",
            name,
            action_name,
            outcome,
            (time.monotonic() - started) * 1000,
        )
        return result

    def _secrets(self) -> tuple[str, ...]:
        secret = self.config.upstream.secret()
        return (secret,) if secret else ()


def build_server(
    config: ServerConfig, tools: Sequence[Tool], *, contract_poll_s: float = 0.0
) -> Server[Any]:
    dispatcher = Dispatcher(
        config,
        load_contract(config.package),
        tools,
        load_input_schemas(config.package),
    )

    def reload(contract: list[dict[str, Any]], fresh: Sequence[Tool]) -> None:
        nonlocal dispatcher
        schemas = load_input_schemas(config.package)
        dispatcher = dispatcher.reloaded(contract, fresh, schemas)

    # Announces a regenerated contract to subscribed clients (see live.py for what it cannot do).
    live = LiveContract(config.package, reload, contract_poll_s)

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return dispatcher.listing  # the contract, verbatim and in name order (P2)

    async def call_tool(
        ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await dispatcher.call(params.name, params.arguments)

    # A tools-only server still answers the other list requests, with nothing: clients that ask
    # every server for prompts and resources get an empty list instead of "method not found".
    async def list_prompts(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[])

    async def list_resources(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])

    async def list_resource_templates(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[])

    unchanging = CacheHint(ttl_ms=300_000, scope="public")

    return Server(
        config.name,
        version=config.version,
        title=config.title,
        instructions=config.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_subscriptions_listen=live.listen,
        lifespan=live.lifespan,
        # The lists depend on nothing but this package's contract, so every caller may share them (P2).
        cache_hints={
            "tools/list": unchanging,
            "prompts/list": unchanging,
            "resources/list": unchanging,
            "resources/templates/list": unchanging,
        },
    )


async def _serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream, write_stream, server.create_initialization_options()
        )


_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def _serve_http(server: Server[Any], host: str, port: int) -> None:
    import uvicorn

    # Host and Origin are always checked (DNS rebinding); a non-loopback bind names its own host.
    hosts = list(dict.fromkeys((*_LOOPBACK_HOSTS, host)))
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{h}:*" for h in hosts],
        allowed_origins=[f"http://{h}:*" for h in hosts],
    )
    app = server.streamable_http_app(
        host=host,
        stateless_http=True,
        json_response=True,
        transport_security=security,
    )
    log.info("serving streamable HTTP on http://%s:%d/mcp", host, port)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def parse_args(config: ServerConfig, argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=config.package.replace("_", "-"),
        description=f"{config.title}: MCP server (stdio by default). "
        f"Upstream API: ${config.upstream.base_url_env} or {config.upstream.default_base_url or 'unset'}.",
    )
    parser.add_argument(
        "--http", action="store_true", help="serve streamable HTTP instead of stdio"
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="HTTP bind address (default: 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="HTTP port (default: 8000)"
    )
    parser.add_argument(
        "--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    parser.add_argument(
        "--contract-poll-s",
        type=float,
        default=2.0,
        help="seconds between checks of tools.json for a regenerated contract; 0 turns it off",
    )
    return parser.parse_args(argv)


def run(
    config: ServerConfig, tools: Sequence[Tool], argv: Sequence[str] | None = None
) -> None:
    args = parse_args(config, argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=args.log_level,
        format="%(levelname)s %(name)s: %(message)s",
    )
    # httpx logs full request URLs, which can carry an api key in the query (E5).
    logging.getLogger("httpx").setLevel(logging.WARNING)
    server = build_server(config, tools, contract_poll_s=args.contract_poll_s)
    if args.http:
        _serve_http(server, args.host, args.port)
    else:
        anyio.run(_serve_stdio, server)
