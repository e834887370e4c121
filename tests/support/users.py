"""The person behind an MCP client that can ask the user (elicitation), for the tests of
`confirm: user` and `ask_user` (P4 ask what the model cannot know)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client


class User:
    """Answers each elicitation with `answer`, and keeps every question it was asked."""

    def __init__(self, answer: types.ElicitResult):
        self.answer = answer
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        return self.answer


@asynccontextmanager
async def eliciting_client(command: list[str], env: dict[str, str], user: User) -> AsyncIterator[Client]:
    """The official client over stdio, declaring elicitation support, with `user` answering."""
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    async with Client(
        sdk_stdio_client(params, errlog=sys.stderr), read_timeout_seconds=60, elicitation_callback=user
    ) as client:
        yield client
