"""One tool call: validate, build the request, send it, shape the result (E1 tool errors are results).

Optional parts (previews, tasks, asking the user, discovery, units, server_info) are used only
when the package handed them over in its `ServerConfig` (config.py).
"""

from __future__ import annotations

import functools
import logging
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
import httpx
import mcp_types as types
from mcp.shared.exceptions import MCPError

from .callers import Caller, ScopeCheck, current_caller
from .config import ServerConfig
from .errors import Recovery, ToolError, origin, quoted, unexpected
from .hooks import Hooks
from .results import Answer, Budget, error_result, interpret, success_result
from .routing import Action, Tool
from .upstream import UpstreamClients, build_request, send
from .validation import ToolValidator

log = logging.getLogger("mcp_server")


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
        self.discovery = config.discovery(contract) if config.discovery else None
        listed = self.discovery.listed(contract) if self.discovery else contract
        self.listing = types.ListToolsResult(
            tools=[types.Tool.model_validate(t) for t in listed]
        )
        schemas = input_schemas or {t["name"]: t["inputSchema"] for t in contract}
        self.validators = {
            tool.name: ToolValidator(
                tool,
                _validated_schema(tool, schemas),
                patterns=config.patterns,
                local_times=config.local_times,
            )
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
            config.previews(
                config.package,
                apply_limit_s=config.upstream.timeout_s + 5,
                units=config.units,
            )
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
        if self.discovery is not None:  # the search and call meta-tools (T3 few tools)
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
        if config.server_info is not None and name == f"{config.name}_server_info":
            with self.clients.lease() as client:
                info = await config.server_info(
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
        files = config.file_answers
        if action.file is not None and files is not None and "file" in answer:
            return files.file_result(answer, response, cap, self._secrets()), outcome
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

    def _request(
        self,
        action: Action,
        values: Mapping[str, Any],
        idempotency_key: str | None = None,
    ) -> httpx.Request:
        """The action's request, its arguments in the API's units when the package has units (T5 parameter names)."""
        units = self.config.units
        return build_request(
            self.config.upstream,
            action,
            values,
            idempotency_key,
            to_upstream=units.to_upstream if units is not None else None,
        )

    async def _send(self, request: httpx.Request, action: Action) -> Answer:
        """The request, sent on one of the leased upstream clients (upstream.py); raises ToolError."""
        caller = current_caller()  # whose upstream token goes, when each user has one
        subject = caller.subject if caller is not None else ""
        with self.clients.lease() as client:
            return await send(client, self.config.upstream, request, action, subject)

    async def _read(self, action: Action, values: dict[str, Any]) -> dict[str, Any]:
        answer = await self._send(self._request(action, values), action)
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
        request = self._request(action, values, idempotency_key)
        response = await self._send(request, action)
        files = self.config.file_answers
        if action.file is not None and files is not None:  # a file, never read as JSON
            shown = files.described(
                response, action, self.config.upstream.max_body_bytes
            )
        else:
            shown = interpret(response, action, values)
        if self.config.units is not None:  # T5 parameter names
            shown = self.config.units.convert_results(action, shown)
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
        if status is not None:
            answer = await self._send(self._request(status, values), status)
            return interpret(answer, status)
        where, _, query = path.partition("?")
        reader = Action(name="status", method="GET", path=where, idempotent=True)
        built = self._request(reader, {})
        request = httpx.Request(
            "GET", built.url.copy_merge_params(query), headers=built.headers
        )
        return interpret(await self._send(request, reader), reader)

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
    discovery = dispatcher.discovery
    if discovery is None or discovery.meta.get(name) != "call" or not asks:
        return name, arguments
    try:
        return discovery.unwrap(arguments)
    except Exception:  # noqa: BLE001 - the dispatcher's guard reports it (E1 tool errors are results)
        return name, arguments


async def user_confirmed_call(
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
