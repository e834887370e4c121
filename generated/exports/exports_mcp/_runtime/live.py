"""Tell clients when the tool contract changes under a running server: `notifications/tools/list_changed`.

Under the 2026-07-28 revision a server does not push to a client that did not ask: change
notifications travel only on a `subscriptions/listen` stream the client opened, and the SDK serves
those over stdio and over streamable HTTP (as SSE, even when other responses are plain JSON). So the
server watches its `tools.json`. When it changes (`mcpgen generate` into the package a server runs
from) and the package's files have held still for one more poll, the server loads the new contract,
tool tables and hooks, and publishes one ToolsListChanged event to every open listen stream.

What this cannot do:
- clients on a 2025-era protocol over stateless HTTP have no stream to receive it on; they see the
  new list at their next tools/list, once their cached copy expires (the ttl, P2 deterministic tools/list);
- with several worker processes or replicas, each process tells only its own listeners;
- changes to `_runtime/` or `server.py` are picked up only by a restart, and a contract that fails to
  load leaves the previous one in service (the error is logged).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from importlib import import_module, invalidate_caches, resources
from pathlib import Path
from typing import Any

import anyio
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ToolsListChanged,
)

from .routing import Tool

log = logging.getLogger("mcp_server")

Reload = Callable[[list[dict[str, Any]], Sequence[Tool]], None]


class LiveContract:
    """Serves `subscriptions/listen` and, while the server runs, watches the contract file."""

    def __init__(self, package: str, reload: Reload, poll_s: float):
        self.package = package
        self.reload = reload
        self.poll_s = poll_s
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        self.root = Path(str(resources.files(package)))

    @asynccontextmanager
    async def lifespan(self, server: Any) -> AsyncIterator[dict[str, Any]]:
        """The server's lifespan: the watcher runs as long as the server does."""
        async with anyio.create_task_group() as tasks:
            if self.poll_s > 0:
                tasks.start_soon(self.watch)
            try:
                yield {}
            finally:
                self.listen.close()
                tasks.cancel_scope.cancel()

    async def watch(self) -> None:
        served = self._digest(self.root / "tools.json")
        while True:
            await anyio.sleep(self.poll_s)
            if self._digest(self.root / "tools.json") == served:
                continue
            # Regeneration replaces file after file: act once everything has held still for a poll.
            before = self._package_digest()
            await anyio.sleep(self.poll_s)
            if self._package_digest() != before:
                continue
            served = self._digest(self.root / "tools.json")
            if self._load():
                await self.bus.publish(ToolsListChanged())

    def _load(self) -> bool:
        try:
            contract = json.loads(
                (self.root / "tools.json").read_text(encoding="utf-8")
            )
            tools = _fresh_tools(self.package)
            self.reload(contract, tools)
        except (
            OSError,
            ValueError,
            ImportError,
            SyntaxError,
            TypeError,
            KeyError,
        ) as exc:
            log.error(
                "tools.json changed but the new contract does not load (%s: %s); "
                "still serving the previous one; restart the server once it is fixed",
                type(exc).__name__,
                exc,
            )
            return False
        log.info("tools.json changed: now serving %d tools", len(contract))
        return True

    def _package_digest(self) -> str:
        files = sorted(
            [self.root / n for n in ("tools.json", "input_schemas.json", "hooks.py")]
            + list((self.root / "tools").glob("*.py"))
        )
        return "".join(self._digest(path) for path in files)

    @staticmethod
    def _digest(path: Path) -> str:
        try:
            return hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            return "missing"


def _fresh_tools(package: str) -> Sequence[Tool]:
    """Import the tool tables and hooks again, from the files as they are now."""
    for name in [
        n for n in sys.modules if n.startswith((f"{package}.tools", f"{package}.hooks"))
    ]:
        del sys.modules[name]
    invalidate_caches()
    tools: Sequence[Tool] = import_module(f"{package}.tools").TOOLS
    return tools
