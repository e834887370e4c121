"""The MCP server itself: serves the contract in `tools.json` over stdio or streamable HTTP; each
call goes to the Dispatcher (dispatch.py)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any

import anyio
import mcp_types as types
from mcp.server.caching import CacheableMethod, CacheHint
from mcp.server.lowlevel import Server

from .callers import current_caller
from .config import ServerConfig
from .dispatch import Dispatcher, user_confirmed_call
from .http_guard import ALLOWED_HOSTS_ENV, ALLOWED_ORIGINS_ENV, configured_requests
from .http_transport import serve_http, use_json_logs
from .live import LiveContract
from .routing import Tool
from .stdio_transport import serve_stdio

# Logs go to stderr: on stdio, stdout carries protocol traffic only (R6 nothing on stdout).
log = logging.getLogger("mcp_server")


def load_contract(package: str) -> list[dict[str, Any]]:
    contract: list[dict[str, Any]] = json.loads(
        resources.files(package).joinpath("tools.json").read_text(encoding="utf-8")
    )
    return contract


def load_input_schemas(package: str) -> dict[str, Any] | None:
    """The untransformed inputSchemas, present when tools.json serves a provider profile's
    (`mcpgen generate --profile`): those drop constraints the server must still check."""
    found = resources.files(package).joinpath("input_schemas.json")
    return json.loads(found.read_text(encoding="utf-8")) if found.is_file() else None


def build_server(
    config: ServerConfig,
    tools: Sequence[Tool],
    *,
    contract_poll_s: float = 0.0,
    enforce_access: bool = False,
) -> Server[Any]:
    """`enforce_access`: serving HTTP with `config.access`, so every call has a verified caller."""
    dispatcher = Dispatcher(
        config,
        load_contract(config.package),
        tools,
        load_input_schemas(config.package),
        enforce_access,
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
        # The contract, verbatim and in name order (P2 deterministic tools/list), less what the caller may not use (P3 credentials).
        return dispatcher.listing_for(current_caller())

    async def call_tool(
        ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult | dict[str, Any]:
        tasks = dispatcher.tasks
        tasks_ok = tasks is not None and tasks.declared(ctx.session.client_capabilities)
        if config.confirmations is not None:
            return await user_confirmed_call(dispatcher, ctx, params, tasks_ok)
        return await dispatcher.call(
            params.name, params.arguments, current_caller(), tasks_ok
        )

    server: Server[Any] = HonestServer(
        config.name,
        version=config.version,
        title=config.title,
        instructions=config.instructions,
        on_list_tools=list_tools,
        # A CreateTaskResult (tasks.py) is a dict the runner sends as it is; the SDK's type
        # for this handler knows only the core results.
        on_call_tool=call_tool,  # type: ignore[arg-type]
        on_list_prompts=_no_prompts,
        on_list_resources=_no_resources,
        on_list_resource_templates=_no_resource_templates,
        on_subscriptions_listen=tools_only_listen(live.listen),
        lifespan=live.lifespan,
        cache_hints=_cache_hints(config),
    )
    if dispatcher.tasks is not None:
        dispatcher.tasks.serve(
            server,
            lambda method, task_id: dispatcher.task_request(
                method, task_id, current_caller()
            ),
        )
    return server


def _cache_hints(config: ServerConfig) -> dict[CacheableMethod, CacheHint]:
    """prompts and resources lists depend on nothing but this package's contract, so every caller
    may share them; tools/list does too unless access checks make it depend on the caller's
    scopes (P2 deterministic tools/list)."""
    unchanging = CacheHint(ttl_ms=300_000, scope="public")
    return {
        "tools/list": CacheHint(
            ttl_ms=300_000, scope="private" if config.access else "public"
        ),
        "prompts/list": unchanging,
        "resources/list": unchanging,
        "resources/templates/list": unchanging,
    }


# A tools-only server still answers the other list requests, with nothing: clients that ask
# every server for prompts and resources get an empty list instead of "method not found".
async def _no_prompts(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[])


async def _no_resources(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    return types.ListResourcesResult(resources=[])


async def _no_resource_templates(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=[])


class HonestServer(Server[Any]):
    """Declares only what the server implements (2026-07-28): tools, whose list changes reach a
    `subscriptions/listen` stream. Prompts and resources lists are served, empty: they never
    change and hold nothing to subscribe to, so neither listChanged nor subscribe is claimed (the
    SDK claims them whenever `subscriptions/listen` is served). Nothing uses roots, sampling or
    logging."""

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        return honest_capabilities(super().get_capabilities(*args, **kwargs))


def honest_capabilities(found: types.ServerCapabilities) -> types.ServerCapabilities:
    update: dict[str, Any] = {}
    if found.prompts is not None:
        update["prompts"] = types.PromptsCapability(list_changed=False)
    if found.resources is not None:
        update["resources"] = types.ResourcesCapability(
            subscribe=False, list_changed=False
        )
    return found.model_copy(update=update)


def tools_only_listen(listen: Any) -> Any:
    """`subscriptions/listen` honouring only tool list changes: the acknowledgement never promises
    prompt or resource events this server has none of."""

    async def handler(
        ctx: Any, params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        wanted = params.notifications.tools_list_changed
        narrowed = params.model_copy(
            update={
                "notifications": types.SubscriptionFilter(tools_list_changed=wanted)
            }
        )
        result: types.SubscriptionsListenResult = await listen(ctx, narrowed)
        return result

    return handler


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
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="with --http: also accept requests whose Host header is NAME (the name a load balancer "
        f"is reached by); repeatable, added to ${ALLOWED_HOSTS_ENV} (comma-separated). By default only "
        "loopback names and the bind address pass",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="with --http: also accept requests from browser pages at ORIGIN (scheme://host[:port], "
        f"a web client's); repeatable, added to ${ALLOWED_ORIGINS_ENV} (comma-separated). By default "
        "only the server's own origin (http, a loopback name or the bind address, --port) and the "
        "allowed hosts pass",
    )
    parser.add_argument(
        "--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    parser.add_argument(
        "--log-format",
        default="text",
        choices=["text", "json"],
        help="json: one JSON object a line, with the request id over HTTP (X-Request-Id, or a new one)",
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
    if args.log_format == "json":
        use_json_logs()
    # httpx logs full request URLs, which can carry an api key in the query (E5 no internals).
    logging.getLogger("httpx").setLevel(logging.WARNING)
    for problem in config.upstream.start_problems():
        log.error("%s", problem)
    server = build_server(
        config,
        tools,
        contract_poll_s=args.contract_poll_s,
        enforce_access=args.http and config.access is not None,
    )
    if args.http:
        try:
            allowed = configured_requests(
                os.environ, args.host, args.port, args.allowed_host, args.allowed_origin
            )
        except ValueError as problem:
            sys.exit(f"{config.package.replace('_', '-')}: {problem}")
        tokens = config.upstream.tokens
        routes = tokens.routes() if tokens is not None else None
        serve_http(server, args.host, args.port, config.access, allowed, routes)
    else:
        # A call runs for at most two upstream exchanges (one resend after a timeout), and a margin.
        anyio.run(serve_stdio, server, 2 * config.upstream.timeout_s + 5)
