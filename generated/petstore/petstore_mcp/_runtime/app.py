"""The MCP server itself: serves the contract in `tools.json` and dispatches calls (stdio or streamable HTTP)."""

from __future__ import annotations

import argparse
import contextvars
import functools
import json
import logging
import os
import re
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

import anyio
import httpx
import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from .callers import Caller, HttpAccess, ScopeCheck, current_caller
from .conversion import convert_results
from .disconnect import CancelOnDisconnect
from .discovery import Discovery
from .errors import Recovery, ToolError, origin, quoted, unexpected
from .hooks import Hooks
from .info import server_info
from .live import LiveContract
from .results import Budget, error_result, interpret, success_result
from .routing import Action, Execute, Read, Tool
from .truncation import DEFAULT_MAX_TOKENS
from .upstream import Upstream, UpstreamClients, build_request, send
from .validation import ToolValidator

# Logs go to stderr: on stdio, stdout carries protocol traffic only (R6 nothing on stdout).
log = logging.getLogger("mcp_server")


class UserConfirmFlow(Protocol):
    """elicitation.py's `UserConfirmations` (P4 ask what the model cannot know), present only in a
    package with a `confirm: user` action; the rendered server.py hands it over as `ServerConfig.confirmations`."""

    def __init__(self, package: str) -> None: ...

    async def ask(
        self, tool: str, action: Action, arguments: dict[str, Any], subject: str
    ) -> dict[str, Any]: ...

    async def answered(
        self,
        tool: str,
        action: Action,
        arguments: dict[str, Any],
        subject: str,
        state: Any,
        responses: Any,
    ) -> dict[str, Any]: ...


class PreviewFlow(Protocol):
    """preview.py's `Previews` (S1 preview, then apply), present only in a package with a previewed
    tool; the rendered server.py imports it and hands it over as `ServerConfig.previews`."""

    def __init__(self, package: str, apply_limit_s: float) -> None: ...

    async def preview(
        self, tool: Tool, values: dict[str, Any], subject: str, read: Read
    ) -> dict[str, Any]: ...

    async def apply(
        self, tool: Tool, preview_id: Any, subject: str, execute: Execute
    ) -> dict[str, Any]: ...


class TaskFlow(Protocol):
    """tasks.py's `Tasks` (jobs the API runs as tasks of the MCP Tasks extension), present only in a
    package with such an action; the rendered server.py hands it over as `ServerConfig.tasks`."""

    def __init__(self, package: str) -> None: ...

    def declared(self, capabilities: Any) -> bool: ...

    def job_of(
        self,
        action: Action,
        answer: dict[str, Any],
        location: str | None,
        base_url: str,
    ) -> dict[str, Any] | None: ...

    def next_step(self, tool: Tool, action: Action, job: dict[str, Any]) -> str: ...

    async def create(
        self, tool: Tool, action: Action, job: dict[str, Any], subject: str
    ) -> dict[str, Any] | None: ...

    async def get(
        self,
        task_id: Any,
        subject: str,
        tools: dict[str, Tool],
        poll: Callable[[Action | None, dict[str, Any], str], Awaitable[dict[str, Any]]],
        as_result: Callable[[dict[str, Any], bool], dict[str, Any]],
    ) -> dict[str, Any]: ...

    async def cancel(self, task_id: Any, subject: str) -> dict[str, Any]: ...

    def serve(
        self,
        server: Server[Any],
        answer: Callable[[str, str], Awaitable[dict[str, Any]]],
    ) -> None: ...


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
    max_result_tokens: int = (
        DEFAULT_MAX_TOKENS  # the result size budget (R4 truncation is announced)
    )
    access: HttpAccess | None = None  # bearer tokens checked over HTTP (P3 credentials)
    previews: type[PreviewFlow] | None = None  # the package has a previewed tool
    # The package has a `confirm: user` action, with elicitation.py's helpers to ask and check.
    confirmations: type[UserConfirmFlow] | None = None
    can_elicit: Any = None  # elicitation.client_can_elicit
    tasks: type[TaskFlow] | None = (
        None  # the package has an action the API runs as a job
    )


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


class Dispatcher:
    """One tool call: validate, build the request, send it, shape the result. Errors become results (E1 tool errors are results)."""

    def __init__(
        self,
        config: ServerConfig,
        contract: list[dict[str, Any]],
        tools: Sequence[Tool],
        input_schemas: dict[str, Any] | None = None,
        enforce_access: bool = False,
    ):
        self.config = config
        self.enforce_access = enforce_access
        self.discovery = Discovery(contract)
        self.listing = types.ListToolsResult(
            tools=[
                types.Tool.model_validate(t) for t in self.discovery.listed(contract)
            ]
        )
        schemas = input_schemas or {t["name"]: t["inputSchema"] for t in contract}
        self.validators = {
            tool.name: ToolValidator(tool, _validated_schema(tool, schemas))
            for tool in tools
        }
        # '<tool>_preview' and '<tool>_apply' -> the tool whose one action they split (S1 preview, then apply).
        self.confirmed = {
            name: tool
            for tool in tools
            if tool.preview is not None
            for name in tool.served_names
        }
        self.scopes = ScopeCheck(
            {name: tool.scopes for tool in tools for name in tool.served_names},
            enforced=enforce_access,
        )
        # How long an apply may hold its claim before it counts as cut off: one exchange and a margin.
        # One that resends with its idempotency key may run longer; until it ends, others report its
        # outcome as unknown, and never send it again.
        self.previews = (
            config.previews(config.package, apply_limit_s=config.upstream.timeout_s + 5)
            if config.previews is not None
            else None
        )
        self.confirmations = (
            config.confirmations(config.package) if config.confirmations else None
        )
        self.hooks = Hooks.load(config.package, config.name)
        self.clients = UpstreamClients(config.upstream.timeout_s)
        self.tools = {tool.name: tool for tool in tools}
        # Jobs the API runs (202 Accepted) become tasks for clients with the Tasks extension.
        self.tasks = config.tasks(config.package) if config.tasks is not None else None

    def reloaded(
        self,
        contract: list[dict[str, Any]],
        tools: Sequence[Tool],
        input_schemas: dict[str, Any] | None,
    ) -> Dispatcher:
        """The same server with a new contract, tool tables and hooks; keeps the HTTP client."""
        fresh = Dispatcher(
            self.config, contract, tools, input_schemas, self.enforce_access
        )
        fresh.clients = self.clients
        fresh.previews = self.previews
        fresh.confirmations = self.confirmations
        fresh.tasks = self.tasks or fresh.tasks
        return fresh

    def listing_for(self, caller: Caller | None) -> types.ListToolsResult:
        """The contract less the tools the caller's token has no scope for (P2 deterministic tools/list; P3 credentials)."""
        if not self.enforce_access:
            return self.listing
        return types.ListToolsResult(
            tools=[t for t in self.listing.tools if self.scopes.visible(t.name, caller)]
        )

    async def call(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        caller: Caller | None = None,
        tasks_ok: bool = False,
        answers: Mapping[str, Any] | None = None,
    ) -> types.CallToolResult | dict[str, Any]:
        """`answers`: what the user gave for the action's asked parameters (ask_user), when the
        server asked. Every tool path runs inside this one guard: a ToolError is its result; anything the server
        did not foresee is a result that names only the exception's type, and the log says where it
        was raised (E1 tool errors are results; E5 no internals). Only an unknown tool is a JSON-RPC error."""
        started = time.monotonic()
        action = arguments.get("action") if isinstance(arguments, dict) else None
        try:
            result, outcome = await self._dispatch(
                name, arguments, caller, tasks_ok, answers
            )
        except anyio.get_cancelled_exc_class():
            # The client cancelled or hung up; the upstream request went down with it.
            _log_call(name, action, "cancelled by the client", started)
            raise
        except ToolError as exc:
            result = error_result(exc, secrets=self._secrets())
            outcome = f"error ({exc.recovery.name.lower()})"
        except MCPError:
            raise
        except Exception as exc:  # noqa: BLE001 - a bug must still answer as a result, without internals
            result = error_result(
                unexpected(exc, name, action), secrets=self._secrets()
            )
            outcome = f"unexpected {type(exc).__name__} at {origin(exc)}"
        _log_call(name, action, outcome, started)
        return result

    async def _dispatch(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        caller: Caller | None,
        tasks_ok: bool = False,
        answers: Mapping[str, Any] | None = None,
    ) -> tuple[types.CallToolResult | dict[str, Any], str]:
        """The call's result and how it went, for the log; raises ToolError."""
        cap = (
            self.config.max_result_tokens
        )  # every kind of result is held to it (R4 truncation is announced)
        kind = self.discovery.meta.get(name)
        if kind == "search":
            visible = functools.partial(self.scopes.visible, caller=caller)
            found = self.discovery.search(arguments, visible)
            return success_result(found, max_tokens=cap), "ok"
        if kind is not None:
            name, arguments = self.discovery.unwrap(arguments)
        self.scopes.check(name, caller)  # every call, listed or not (P3 credentials)
        confirmed = self.confirmed.get(name)
        if confirmed is not None:
            answer = await self._confirmed_call(name, confirmed, arguments, caller)
            return success_result(answer, max_tokens=cap), "ok"
        config = self.config  # server_info is found and run like a catalog tool
        if config.server_info and name == f"{config.name}_server_info":
            with self.clients.lease() as client:
                info = await server_info(
                    config.name, config.version, config.upstream, client
                )
            return success_result(info, max_tokens=cap), "ok"
        # A previewed tool is served only as its preview/apply pair: never straight by its own name.
        split = any(t.name == name for t in self.confirmed.values())
        validator = None if split else self.validators.get(name)
        if validator is None:
            # Finding the tool is the protocol's job: an unknown name is a JSON-RPC error, not a result (E1 tool errors are results).
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"Unknown tool: {_loggable(name)}"
            )
        action, values = validator.check(arguments)
        if (
            action.asked
        ):  # the user's values, never the agent's (P4 ask what the model cannot know)
            if answers is None:
                raise _needs_a_user(name, action)
            values = {**values, **validator.check_answers(action, answers)}
        values = await self.hooks.before(name, action.name, values, action.arg_names)
        answer, response = await self._run(name, action, values)
        budget = Budget(
            max_tokens=config.max_result_tokens, tool=name, action=action, values=values
        )
        outcome = f"HTTP {response.status_code}"
        job = self._job(action, answer, response)
        if job is not None and tasks_ok and self.tasks is not None:
            subject = caller.subject if caller is not None else ""
            created = await self.tasks.create(self.tools[name], action, job, subject)
            if (
                created is not None
            ):  # else no task to give: the answer and next_step below
                return created, f"{outcome}, task {created['taskId'][:12]}..."
        if job is not None and self.tasks is not None:
            # A client without the Tasks extension follows the job itself.
            step = self.tasks.next_step(self.tools[name], action, job)
            answer = {**answer, "next_step": step}
        return success_result(answer, budget), outcome

    async def _confirmed_call(
        self,
        name: str,
        tool: Tool,
        arguments: dict[str, Any] | None,
        caller: Caller | None,
    ) -> dict[str, Any]:
        """`<tool>_preview` or `<tool>_apply` (S1 preview, then apply); the preview is bound to the caller (S3 handles)."""
        subject = caller.subject if caller is not None else ""
        if self.previews is None:  # render passes Previews whenever a tool is previewed
            raise RuntimeError(
                f"{tool.name} is previewed, but the server has no Previews"
            )
        if name.endswith("_preview"):
            action = tool.actions[0]
            _, values = self.validators[tool.name].check(
                {**(arguments or {}), "action": action.name}
            )
            values = await self.hooks.before(
                tool.name, action.name, values, action.arg_names
            )
            return await self.previews.preview(tool, values, subject, self._read)
        return await self.previews.apply(
            tool,
            _preview_id(name, arguments),
            subject,
            lambda action, values, key: self._execute(tool, action, values, key),
        )

    async def _read(self, action: Action, values: dict[str, Any]) -> dict[str, Any]:
        upstream = self.config.upstream
        request = build_request(upstream, action, values)
        with self.clients.lease() as client:
            answer = await send(client, upstream, request, action)
        return interpret(answer, action)

    async def _execute(
        self, tool: Tool, action: Action, values: dict[str, Any], idempotency_key: str
    ) -> dict[str, Any]:
        answer, _ = await self._run(tool.name, action, values, idempotency_key)
        return answer

    async def _run(
        self,
        tool_name: str,
        action: Action,
        values: dict[str, Any],
        idempotency_key: str | None = None,
    ) -> tuple[dict[str, Any], httpx.Response]:
        """One action against the API: the request, its answer shaped for the agent, the `after` hook."""
        upstream = self.config.upstream
        request = build_request(upstream, action, values, idempotency_key)
        with self.clients.lease() as client:
            response = await send(client, upstream, request, action)
        shown = convert_results(
            action, interpret(response, action, values)
        )  # T5 parameter names
        answer = await self.hooks.after(tool_name, action.name, shown)
        return answer, response

    def _job(
        self, action: Action, answer: dict[str, Any], response: httpx.Response
    ) -> dict[str, Any] | None:
        """The job a 202 answer of an action the API runs as a job names (tasks.py), or None."""
        if self.tasks is None or action.task is None or response.status_code != 202:
            return None
        location = response.headers.get("location")
        return self.tasks.job_of(
            action, answer, location, self.config.upstream.base_url_for(action)
        )

    async def task_request(
        self, method: str, task_id: Any, caller: Caller | None
    ) -> dict[str, Any]:
        """tasks/get: the task's state, read from the API's status endpoint; tasks/cancel: its
        acknowledgement (tasks.py). A taskId not the caller's is invalid params."""
        if self.tasks is None:
            raise MCPError(
                code=types.INVALID_PARAMS, message="this server has no tasks"
            )
        subject = caller.subject if caller is not None else ""
        try:
            if method == "tasks/cancel":
                return await self.tasks.cancel(task_id, subject)
            return await self.tasks.get(
                task_id, subject, self.tools, self._poll, self._task_result
            )
        except ToolError as exc:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"{exc.what} {exc.how}"
            ) from None

    async def _poll(
        self, status: Action | None, values: dict[str, Any], path: str
    ) -> dict[str, Any]:
        upstream = self.config.upstream
        if status is not None:
            request = build_request(upstream, status, values)
            with self.clients.lease() as client:
                answer = await send(client, upstream, request, status)
            return interpret(answer, status)
        where, _, query = path.partition("?")
        reader = Action(name="status", method="GET", path=where, idempotent=True)
        built = build_request(upstream, reader, {})
        request = httpx.Request(
            "GET", built.url.copy_merge_params(query), headers=built.headers
        )
        with self.clients.lease() as client:
            answer = await send(client, upstream, request, reader)
        return interpret(answer, reader)

    def _task_result(self, body: dict[str, Any], is_error: bool) -> dict[str, Any]:
        result = success_result(body, max_tokens=self.config.max_result_tokens)
        result.is_error = is_error
        dumped: dict[str, Any] = result.model_dump(
            mode="json", by_alias=True, exclude_none=True
        )
        return dumped

    def _secrets(self) -> tuple[str, ...]:
        return self.config.upstream.secret_forms()


def _log_call(name: str, action: Any, outcome: str, started: float) -> None:
    """One line per call: the tool, its action, how it went and how long it ran."""
    shown = f" action={_loggable(action)}" if action is not None else ""
    elapsed_ms = (time.monotonic() - started) * 1000
    log.info("%s%s -> %s in %.0f ms", _loggable(name), shown, outcome, elapsed_ms)


def _loggable(value: Any) -> str:
    """A name as it is when it is a plain name; anything else quoted and cut short (no log injection)."""
    if isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", value):
        return value
    return quoted(value)


def _validated_schema(tool: Tool, schemas: dict[str, Any]) -> dict[str, Any]:
    if tool.preview is not None:
        return _preview_tool_schema(tool, schemas[f"{tool.name}_preview"])
    schema: dict[str, Any] = schemas[tool.name]
    return schema


def _preview_tool_schema(tool: Tool, preview_schema: dict[str, Any]) -> dict[str, Any]:
    """The schema the validator checks `<tool>_preview` arguments with: the contract's, plus the
    `action` the validator expects (the preview tool has exactly one)."""
    action = {"type": "string", "enum": [tool.actions[0].name]}
    return {
        **preview_schema,
        "properties": {"action": action, **preview_schema.get("properties", {})},
    }


def _preview_id(name: str, arguments: dict[str, Any] | None) -> Any:
    extra = sorted(set(arguments or {}) - {"preview_id"})
    if extra or not (arguments or {}).get("preview_id"):
        got = ", ".join(_loggable(key) for key in extra[:5]) + (
            ", ..." if extra[5:] else ""
        )
        raise ToolError(
            f"{name} takes only preview_id"
            + (f"; it got {got}." if extra else ", and it is missing."),
            f"Pass the preview_id that {name.removesuffix('_apply')}_preview returned, and nothing else.",
            Recovery.FIX_INPUT,
        )
    return arguments["preview_id"]  # type: ignore[index]


def _needs_a_user(name: str, action: Action) -> ToolError:
    """What a call gets that the server cannot ask the user about: a client without elicitation
    support, or a path that bypasses the asking (P4 ask what the model cannot know). Never a call
    without the user's values."""
    asked = ", ".join(p.arg for p in action.asked)
    return ToolError(
        f"{name} action '{action.name}' needs the user to give {asked}, and this call came from a "
        "client that cannot ask the user (it did not declare elicitation support); nothing was done.",
        f"Use a client that can ask the user (elicitation), or ask the user to do this themselves; "
        f"{asked} cannot be passed as an argument, since the value must come from the user.",
        Recovery.NEEDS_HUMAN,
    )


def _user_confirmed_action(
    dispatcher: Dispatcher, name: str, arguments: dict[str, Any] | None
) -> Action | None:
    """The action of this call that asks the user (`confirm: user`, `ask_user`), if it is one."""
    validator = dispatcher.validators.get(name)
    wanted = (arguments or {}).get("action")
    if validator is None or validator.tool.preview is not None:
        return None
    return next(
        (
            a
            for a in validator.tool.actions
            if a.name == wanted and (a.confirm_user or a.asked)
        ),
        None,
    )


def _catalog_call(
    dispatcher: Dispatcher, name: str, arguments: dict[str, Any] | None
) -> tuple[str, dict[str, Any] | None]:
    """The catalog tool and arguments a discovery `<name>_call_tool` call runs, so that it asks the
    user as a call by the tool's own name does; any other call as it is."""
    inner = (arguments or {}).get("tool")
    validator = dispatcher.validators.get(inner) if isinstance(inner, str) else None
    asks = validator is not None and any(
        a.confirm_user or a.asked for a in validator.tool.actions
    )
    if dispatcher.discovery.meta.get(name) != "call" or not asks:
        return name, arguments
    try:
        return dispatcher.discovery.unwrap(arguments)
    except Exception:  # noqa: BLE001 - the dispatcher's guard reports it (E1 tool errors are results)
        return name, arguments


async def _user_confirmed_call(
    dispatcher: Dispatcher,
    ctx: Any,
    params: types.CallToolRequestParams,
    tasks_ok: bool,
) -> types.CallToolResult | types.InputRequiredResult | dict[str, Any]:
    """A `confirm: user` action, or one with `ask_user` parameters, asks the user through
    elicitation when the client declared it (P4 ask what the model cannot know): the first call
    returns `input_required`, the retry with the user's answer runs the call with the user's values.
    A client without elicitation keeps the confirm argument; an asked parameter it cannot give."""
    caller = current_caller()
    name, arguments = _catalog_call(dispatcher, params.name, params.arguments)
    action = _user_confirmed_action(dispatcher, name, arguments)
    flow = dispatcher.confirmations
    capabilities = getattr(getattr(ctx, "session", None), "client_capabilities", None)
    can_elicit = dispatcher.config.can_elicit
    if (
        action is None
        or flow is None
        or can_elicit is None
        or not can_elicit(capabilities)
    ):
        return await dispatcher.call(params.name, params.arguments, caller, tasks_ok)
    asked = dict(arguments or {})
    confirmed = asked
    if action.confirm_user:  # the user's yes stands in for the confirm argument
        asked = {k: v for k, v in asked.items() if k != "confirm"}
        confirmed = {**asked, "confirm": action.confirm}
    subject = caller.subject if caller is not None else ""
    try:
        dispatcher.scopes.check(name, caller)
        dispatcher.validators[name].check(
            confirmed
        )  # never ask about a call that cannot run
        if params.request_state is None:
            asking = await flow.ask(name, action, asked, subject)
            return types.InputRequiredResult.model_validate(asking)
        answers = await flow.answered(
            name, action, asked, subject, params.request_state, _responses(params)
        )
    except ToolError as exc:
        return error_result(exc, secrets=dispatcher.config.upstream.secret_forms())
    return await dispatcher.call(name, confirmed, caller, tasks_ok, answers)


def _responses(params: types.CallToolRequestParams) -> dict[str, Any]:
    responses = params.input_responses or {}
    return {
        key: value.model_dump(by_alias=True, exclude_none=True)
        if hasattr(value, "model_dump")
        else value
        for key, value in responses.items()
    }


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
            return await _user_confirmed_call(dispatcher, ctx, params, tasks_ok)
        return await dispatcher.call(
            params.name, params.arguments, current_caller(), tasks_ok
        )

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

    server: Server[Any] = HonestServer(
        config.name,
        version=config.version,
        title=config.title,
        instructions=config.instructions,
        on_list_tools=list_tools,
        # A CreateTaskResult (tasks.py) is a dict the runner sends as it is; the SDK's type
        # for this handler knows only the core results.
        on_call_tool=call_tool,  # type: ignore[arg-type]
        on_list_prompts=list_prompts,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_subscriptions_listen=tools_only_listen(live.listen),
        lifespan=live.lifespan,
        # prompts and resources lists depend on nothing but this package's contract, so every caller
        # may share them; tools/list does too unless access checks make it depend on the caller's
        # scopes (P2 deterministic tools/list).
        cache_hints={
            "tools/list": CacheHint(
                ttl_ms=300_000, scope="private" if config.access else "public"
            ),
            "prompts/list": unchanging,
            "resources/list": unchanging,
            "resources/templates/list": unchanging,
        },
    )
    if dispatcher.tasks is not None:
        dispatcher.tasks.serve(
            server,
            lambda method, task_id: dispatcher.task_request(
                method, task_id, current_caller()
            ),
        )
    return server


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


async def _serve_stdio(server: Server[Any], drain_s: float) -> None:
    async with stdio_server() as (read_stream, write_stream):
        pending = PendingRequests()
        await server.run(
            RepliesToUnreadable(read_stream, write_stream, pending, drain_s),
            pending.watching(write_stream),
            server.create_initialization_options(),
        )


# A stream that stays open until the client leaves, answered only then: never waited for at EOF.
_OPEN_ENDED = frozenset({"subscriptions/listen"})


class PendingRequests:
    """The client's requests not answered yet, so that stdin's end waits for their answers.

    The SDK's loop cancels every request still running when its read stream ends, so a client
    that writes its last request and closes stdin (`echo ... | server`) would get nothing for it.
    The stdio transport's read stream holds its end back until these are answered (or cancelled
    by the client), at most `drain_s` seconds: the upstream timeout bounds each call (P5 timeouts).
    """

    def __init__(self) -> None:
        self._ids: set[Any] = set()
        self._idle = anyio.Event()
        self._idle.set()

    def received(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if (
            isinstance(message, types.JSONRPCRequest)
            and message.method not in _OPEN_ENDED
        ):
            if not self._ids:
                self._idle = anyio.Event()
            self._ids.add(message.id)
        elif (
            isinstance(message, types.JSONRPCNotification)
            and message.method == "notifications/cancelled"
        ):
            self._done((message.params or {}).get("requestId"))

    def answered(self, item: Any) -> None:
        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._done(message.id)

    def _done(self, request_id: Any) -> None:
        self._ids.discard(request_id)
        if not self._ids:
            self._idle.set()

    async def drained(self, limit_s: float) -> None:
        with anyio.move_on_after(limit_s):
            await self._idle.wait()
        if self._ids:
            log.warning(
                "stdin ended with %d request(s) still running after %.0f s; they are cancelled",
                len(self._ids),
                limit_s,
            )

    def watching(self, stream: Any) -> _WatchedWrites:
        return _WatchedWrites(stream, self)


class _WatchedWrites:
    """The stdio write stream, telling PendingRequests which requests each message answers."""

    def __init__(self, inner: Any, pending: PendingRequests) -> None:
        self._inner = inner
        self._pending = pending

    async def send(self, item: Any) -> None:
        await self._inner.send(item)
        self._pending.answered(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WatchedWrites:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class RepliesToUnreadable:
    """The stdio transport's read stream, answering what it cannot read.

    The SDK's stdio reader hands on a line that is not a JSON-RPC message as an exception, and the
    server loop drops it: the client would wait forever. JSON-RPC 2.0 wants an error reply with id
    null: parse error (-32700) for a line that is not JSON, invalid request (-32600) for JSON that
    is not one message (a wrong `jsonrpc` version, a batch array, which MCP does not have)."""

    def __init__(
        self,
        inner: Any,
        replies: Any,
        pending: PendingRequests | None = None,
        drain_s: float = 0.0,
    ) -> None:
        self._inner = inner
        self._replies = replies
        self._pending = pending
        self._drain_s = drain_s

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        while True:
            try:
                item = await self._inner.receive()
            except anyio.EndOfStream:
                # stdin ended: the requests already read are answered first (PendingRequests).
                if self._pending is not None:
                    await self._pending.drained(self._drain_s)
                raise
            if not isinstance(item, Exception):
                if self._pending is not None:
                    self._pending.received(item)
                return item
            reply = unreadable_reply(item)
            if reply is not None:
                await self._replies.send(SessionMessage(reply))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> RepliesToUnreadable:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> RepliesToUnreadable:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def unreadable_reply(problem: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error for a line the transport could not read; None for a blank line."""
    found = problem.errors() if isinstance(problem, ValidationError) else []
    if found and found[0]["type"] == "json_invalid":
        if not str(found[0].get("input", "")).strip():
            return None  # a blank line is no message at all
        code, message = (
            types.PARSE_ERROR,
            "Parse error: the line is not valid JSON. Send one JSON-RPC 2.0 message per line.",
        )
    else:
        code, message = (
            types.INVALID_REQUEST,
            'Invalid request: not one JSON-RPC 2.0 message (an object with "jsonrpc": "2.0"). '
            "Batches (arrays) are not part of MCP: send each message on its own line.",
        )
    return types.JSONRPCError(
        jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message)
    )


_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# Names a deployment adds to the allowed Host set (a balancer's public name), beside --allowed-host.
ALLOWED_HOSTS_ENV = "MCP_ALLOWED_HOSTS"
# A host name or an IP address (IPv6 in brackets), optionally with a port: what a Host header carries.
_HOST_NAME = re.compile(
    r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::[0-9]{1,5})?"
)


def allowed_host_names(env_value: str | None, flags: Sequence[str]) -> list[str]:
    """The names $MCP_ALLOWED_HOSTS (comma- or space-separated) and --allowed-host add, in order, once
    each; ValueError names one that cannot be a Host header's value and says what to write instead."""
    names = [*(env_value or "").replace(",", " ").split(), *flags]
    for name in names:
        if not _HOST_NAME.fullmatch(name):
            raise ValueError(
                f"allowed host {name!r} is not a host name: give the name clients reach the server by, "
                "as it appears in their Host header (api.example.com, or api.example.com:8443 for one "
                "port), without a scheme, path or wildcard"
            )
    return list(dict.fromkeys(names))


def transport_security(bind: str, extra: Sequence[str]) -> TransportSecuritySettings:
    """Host and Origin are always checked (DNS rebinding). Allowed: the loopback names and the bind
    address on any port, and each extra name: on any port (or without one, as behind a balancer on 443)
    unless it names its port. Nothing else, so the default stays loopback-only."""
    hosts = [f"{h}:*" for h in dict.fromkeys((*_LOOPBACK_HOSTS, bind))]
    origins = [f"http://{h}" for h in hosts]
    for name in extra:
        given = [name] if _has_port(name) else [name, f"{name}:*"]
        hosts += given
        origins += [f"{scheme}://{h}" for h in given for scheme in ("http", "https")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(dict.fromkeys(hosts)),
        allowed_origins=list(dict.fromkeys(origins)),
    )


def _has_port(name: str) -> bool:
    return re.search(r":[0-9]+$", name) is not None and not name.endswith("]")


def _serve_http(
    server: Server[Any],
    host: str,
    port: int,
    access: HttpAccess | None,
    allowed_hosts: Sequence[str] = (),
) -> None:
    import uvicorn

    security = transport_security(host, allowed_hosts)
    if allowed_hosts:
        log.info("Host header also allowed: %s", ", ".join(allowed_hosts))
    app = server.streamable_http_app(
        host=host,
        stateless_http=True,
        json_response=True,
        transport_security=security,
        **(access.http_auth() if access is not None else {}),
    )
    log.info("serving streamable HTTP on http://%s:%d/mcp", host, port)
    # JSON answers, and a client that hangs up cancels its call (disconnect.py); GET /healthz for balancers.
    uvicorn.run(
        with_health_check(CancelOnDisconnect(app)),
        host=host,
        port=port,
        log_level="warning",
    )


_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "request_id", default=None
)


class JsonLogFormatter(logging.Formatter):
    """One JSON object a line (for log collectors), with the HTTP request's id when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = _request_id.get()
        if request_id is not None:
            entry["request_id"] = request_id
        return json.dumps(entry, ensure_ascii=False)


def use_json_logs() -> None:
    for handler in logging.getLogger().handlers:
        handler.setFormatter(JsonLogFormatter())


def _request_id_of(scope: Any) -> str:
    """The caller's X-Request-Id when it is a plain token (a balancer's), else a new one."""
    for key, value in scope.get("headers", ()):
        if key == b"x-request-id":
            given = str(value.decode("latin-1"))
            if re.fullmatch(r"[A-Za-z0-9._:-]{1,128}", given):
                return given
    return uuid.uuid4().hex


HEALTH_PATH = "/healthz"


def with_health_check(app: Any) -> Any:
    """`app` plus `GET /healthz`, answered 200 before any Host check or token: what a load balancer
    asks each replica before sending it traffic. The replica holds no state of its own (previews live
    in the shared store), so serving requests is all it has to say. Every other HTTP request gets an
    id (the caller's X-Request-Id, or a new one): in the JSON logs and in the answer's X-Request-Id."""
    body = b'{"status": "ok"}'

    async def serve(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == HEALTH_PATH:
            status = 200 if scope["method"] in ("GET", "HEAD") else 405
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
            ]
            await send(
                {"type": "http.response.start", "status": status, "headers": headers}
            )
            await send(
                {
                    "type": "http.response.body",
                    "body": body if scope["method"] == "GET" else b"",
                }
            )
            return
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        request_id = _request_id_of(scope)
        token = _request_id.set(request_id)

        async def send_with_id(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    *message.get("headers", ()),
                    (b"x-request-id", request_id.encode()),
                ]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await app(scope, receive, send_with_id)
        finally:
            _request_id.reset(token)

    return serve


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
    server = build_server(
        config,
        tools,
        contract_poll_s=args.contract_poll_s,
        enforce_access=args.http and config.access is not None,
    )
    if args.http:
        try:
            extra = allowed_host_names(
                os.environ.get(ALLOWED_HOSTS_ENV), args.allowed_host
            )
        except ValueError as problem:
            sys.exit(f"{config.package.replace('_', '-')}: {problem}")
        _serve_http(server, args.host, args.port, config.access, extra)
    else:
        # A call runs for at most two upstream exchanges (one resend after a timeout), and a margin.
        anyio.run(_serve_stdio, server, 2 * config.upstream.timeout_s + 5)
