"""A client that hangs up cancels its call, over streamable HTTP too (P5 timeouts; E4 unknown outcome is not retry).

The server answers HTTP with JSON (`json_response=True`): a quick answer stays one plain JSON body,
which every client reads. In that mode the SDK runs the handler with nothing watching the connection,
so a call whose client went away would run to its end, upstream request and all, for nobody. The
2026-07-28 revision says a server whose client disconnected treats the request as cancelled, and
in stateless JSON mode nobody can collect the answer later anyway: this ASGI wrapper watches each
POST's connection once its body has been read, and cancels the handler (and with it the upstream
request it is waiting for) the moment the client disconnects.
"""

from __future__ import annotations

from typing import Any

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_DISCONNECT: Message = {"type": "http.disconnect"}


class CancelOnDisconnect:
    """Runs `app` for each HTTP POST inside a cancel scope that a client disconnect cancels."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        exchange = _Exchange(receive, send)
        async with anyio.create_task_group() as group:
            group.start_soon(exchange.watch, group.cancel_scope)
            try:
                await self.app(scope, exchange.receive, exchange.send)
            finally:
                group.cancel_scope.cancel()  # the watcher, once the app is done


class _Exchange:
    """One request's receive and send, as the app sees them: the body passes through; after it,
    receive waits for the disconnect the watcher saw (so the SDK's own watchers still work)."""

    def __init__(self, receive: Receive, send: Send):
        self._receive = receive
        self._send = send
        self._body_read = anyio.Event()
        self._disconnected = anyio.Event()
        self._answered = False  # the whole response has been sent

    async def receive(self) -> Message:
        if not self._body_read.is_set():
            message = await self._receive()
            if message["type"] == "http.disconnect":
                self._disconnected.set()
                self._body_read.set()
            elif not message.get("more_body", False):
                self._body_read.set()
            return message
        await self._disconnected.wait()
        return _DISCONNECT

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.body" and not message.get(
            "more_body", False
        ):
            self._answered = True
        await self._send(message)

    async def watch(self, scope: anyio.CancelScope) -> None:
        """Cancels `scope` when the client disconnects before the response is complete."""
        await self._body_read.wait()
        while not self._disconnected.is_set():
            message: Any = await self._receive()
            if message["type"] == "http.disconnect":
                self._disconnected.set()
        if not self._answered:
            scope.cancel()
