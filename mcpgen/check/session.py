"""The calls: the generated server started over stdio and driven through the official MCP client.

Every read action once with the concise format and once with `response_format: detailed` (when it has
one: a file's answer has not), and the next page where the first one offers it; each write action only with arguments the server must refuse
before it sends anything; one deliberately invalid request per tool (an error probe). A write is never
sent to a sandbox; against Prism (a mock: nothing is written anywhere) a tool with no read action has
its error probe on a write, answered with a forced error status.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mcpgen.check.arguments import NoValue, arguments, harvested
from mcpgen.check.model import Call, Skip, Step
from mcpgen.check.spec_facts import AnswerFacts
from mcpgen.check.upstream import Recorder
from mcpgen.ir import ActionSpec, ServerSpec, ToolSpec

UpstreamKind = Literal["prism", "url"]
UNKNOWN_ARGUMENT = "mcpgen_check_unknown_argument"
UNKNOWN_PREVIEW = "pv.mcpgen-check-unknown"
# The MCP client's (mcp.client.session) warning on a call of a tool tools/list did not show.
_UNLISTED = " not listed by server, cannot validate any structured content"


@dataclass
class Drive:
    """What one run of the server gave: the calls in order, what was skipped, the tools it listed."""

    calls: list[Call] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)
    listed: tuple[str, ...] = ()
    seen: dict[str, Any] = field(default_factory=dict)  # record fields of earlier results


def is_read(action: ActionSpec) -> bool:
    return action.shape is not None or bool(action.hints and action.hints.read_only)


async def drive(
    server: ServerSpec,
    command: list[str],
    env: dict[str, str],
    stderr: Path,
    recorder: Recorder,
    facts: dict[tuple[str, str], AnswerFacts],
    kind: UpstreamKind,
) -> Drive:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    timeout = 2 * server.timeout_s + 10
    done = Drive()
    quiet = _UnlistedByDiscovery(done) if server.discovery else None
    client_log = logging.getLogger("client")  # mcp.client.session's logger
    if quiet is not None:
        client_log.addFilter(quiet)
    try:
        with stderr.open("a", encoding="utf-8") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=timeout) as client:
                listing = await client.list_tools()
                done.listed = tuple(t.name for t in listing.tools)
                caller = _Caller(client, recorder, timeout, done)
                for tool in server.tools:
                    await _tool(caller, tool, facts, kind)
    finally:
        if quiet is not None:
            client_log.removeFilter(quiet)
    return done


class _UnlistedByDiscovery(logging.Filter):
    """The MCP client warns once a call that a called tool is 'not listed by server' when it is not in
    tools/list; with on-demand discovery (T3) the catalog tools are not, by design, and check calls them
    by name. Only that warning, for a tool the server did not list, is dropped; every other stays."""

    def __init__(self, done: Drive) -> None:
        super().__init__()
        self.done = done

    def filter(self, record: logging.LogRecord) -> bool:
        said = record.getMessage()
        if not (said.startswith("Tool ") and said.endswith(_UNLISTED)):
            return True
        return said[len("Tool ") : -len(_UNLISTED)] in self.done.listed


@dataclass
class _Caller:
    client: Any
    recorder: Recorder
    timeout: float
    done: Drive

    async def call(
        self,
        tool: ToolSpec,
        served: str,
        action: str,
        step: Step,
        args: dict[str, Any],
        prefer: str | None = None,
    ) -> Call:
        from mcp import MCPError

        mark = self.recorder.mark()
        self.recorder.prefer = prefer
        try:
            result = await self.client.call_tool(served, args, read_timeout_seconds=self.timeout)
        except (MCPError, TimeoutError, OSError) as exc:
            call = Call(
                tool.name, served, action, step, args, True, "", None, self.recorder.since(mark), str(exc)
            )
        else:
            text = "\n".join(
                getattr(b, "text", "") for b in result.content if getattr(b, "type", "") == "text"
            )
            structured = result.structured_content if isinstance(result.structured_content, dict) else None
            if structured is None and not result.is_error:
                structured = _json_object(text)
            call = Call(
                tool.name, served, action, step, args, bool(result.is_error), text, structured,
                self.recorder.since(mark),
            )  # fmt: skip
        finally:
            self.recorder.prefer = None
        self.done.calls.append(call)
        return call

    def skip(self, tool: ToolSpec, action: str | None, why: str) -> None:
        self.done.skips.append(Skip(tool.name, action, why))


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


async def _tool(
    caller: _Caller, tool: ToolSpec, facts: dict[tuple[str, str], AnswerFacts], kind: UpstreamKind
) -> None:
    if tool.preview is not None:
        await _preview_refusals(caller, tool)
        return
    reads = sorted((a for a in tool.actions if is_read(a)), key=lambda a: sum(p.required for p in a.params))
    for action in reads:
        await _read(caller, tool, action)
    for action in tool.actions:
        if not is_read(action):
            await _refusal(caller, tool, action)
    await _probe(caller, tool, reads, facts, kind)


async def _read(caller: _Caller, tool: ToolSpec, action: ActionSpec) -> None:
    try:
        args = arguments(action, caller.done.seen)
    except NoValue as why:
        caller.skip(tool, action.name, f"not called: {why}")
        return
    concise = await caller.call(tool, tool.name, action.name, "concise", args)
    results = [concise.structured]
    if any(p.arg_name == "response_format" for p in action.server_params):  # not a file's answer
        detailed = await caller.call(
            tool, tool.name, action.name, "detailed", {**args, "response_format": "detailed"}
        )
        results.insert(0, detailed.structured)
    for result in results:
        if result is not None:
            for key, value in harvested([result]).items():
                caller.done.seen.setdefault(key, value)
    following = concise.structured or {}
    for name, arg in (("next_page", "page"), ("next_cursor", "cursor")):
        if following.get(name) is not None:
            await caller.call(tool, tool.name, action.name, "next", {**args, arg: following[name]})
            break


async def _refusal(caller: _Caller, tool: ToolSpec, action: ActionSpec) -> None:
    """The write with its required arguments left out (or an argument the tool does not have): the
    server must refuse it before sending anything."""
    if action.required_args:
        args: dict[str, Any] = {"action": action.name}
    else:
        args = {"action": action.name, UNKNOWN_ARGUMENT: True}
    await caller.call(tool, tool.name, action.name, "refuse", args)


async def _preview_refusals(caller: _Caller, tool: ToolSpec) -> None:
    preview, apply = tool.served_names
    action = tool.actions[0]
    args: dict[str, Any] = {} if action.required_args else {UNKNOWN_ARGUMENT: True}
    await caller.call(tool, preview, action.name, "refuse", args)
    await caller.call(tool, apply, action.name, "refuse", {"preview_id": UNKNOWN_PREVIEW})


async def _probe(
    caller: _Caller,
    tool: ToolSpec,
    reads: list[ActionSpec],
    facts: dict[tuple[str, str], AnswerFacts],
    kind: UpstreamKind,
) -> None:
    """One deliberately invalid request: against Prism, a call answered with a documented error status
    (the Prefer header); against a sandbox, a read naming a record that does not exist."""
    if kind == "prism":
        candidates = reads or [a for a in tool.actions if not is_read(a)]
        for action in candidates:
            codes = facts.get((tool.name, action.name), AnswerFacts((), ())).error_codes
            if not codes:
                continue
            try:
                args = arguments(action, caller.done.seen)
            except NoValue:
                continue
            await caller.call(tool, tool.name, action.name, "probe", args, prefer=f"code={codes[0]}")
            return
        caller.skip(
            tool, None, "error text not checked: no action of the tool documents an error answer with a body"
        )
        return
    for action in reads:
        if not any(p.location == "path" and p.required for p in action.params):
            continue
        try:
            args = arguments(action, caller.done.seen, absent=True)
        except NoValue:
            continue
        await caller.call(tool, tool.name, action.name, "probe", args)
        return
    caller.skip(
        tool, None,
        "error text not checked: no read action takes an id in its path to ask for a record that does not exist "
        "(check never sends a write to a sandbox)",
    )  # fmt: skip
