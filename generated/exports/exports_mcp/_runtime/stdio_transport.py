"""The stdio transport: one JSON-RPC message a line on stdin and stdout, every request answered.

Lines that are not one JSON-RPC message get an error reply, and the requests read before stdin
ends are answered before the server stops.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

# Logs go to stderr: on stdio, stdout carries protocol traffic only (R6 nothing on stdout).
log = logging.getLogger("mcp_server")


async def serve_stdio(server: Server[Any], drain_s: float) -> None:
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
