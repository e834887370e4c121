"""Drive a generated server as a real client does: a subprocess over stdio, through the official SDK."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client


@asynccontextmanager
async def stdio_client(
    command: list[str], env: dict[str, str], stderr_file: Path | None = None, cwd: Path | None = None
) -> AsyncIterator[Client]:
    """A connected Client; the server's stderr goes to `stderr_file` when given (for log assertions),
    and it runs in `cwd` when given (as a client configured with a working directory starts it)."""
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=cwd)
    errlog = stderr_file.open("a", encoding="utf-8") if stderr_file else sys.stderr
    try:
        async with Client(sdk_stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
            yield client
    finally:
        if stderr_file:
            errlog.close()


def tool_dicts(listing: Any) -> list[dict[str, Any]]:
    """tools/list entries exactly as they travel on the wire."""
    return [t.model_dump(by_alias=True, exclude_none=True) for t in listing.tools]


def result_json(result: Any) -> Any:
    """The JSON of a call result's first text block (the same data as its structuredContent, R5)."""
    return json.loads(result.content[0].text)


def result_text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
