"""What a generated server is: its `ServerConfig`, and the optional parts a package may hand over.

The core (app.py, dispatch.py, the transports) imports none of the optional runtime modules: a
package carries only those its tools use, and its rendered server.py imports them and passes them
in here. Each Protocol below says what the core needs of one of them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
import mcp_types as types
from mcp.server.lowlevel import Server

from .callers import HttpAccess
from .routing import Action, Execute, Param, Read, Tool, Unit
from .truncation import DEFAULT_MAX_TOKENS
from .upstream import Upstream
from .validation import LocalTimeCheck, PatternTranslation


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


class UnitConversion(Protocol):
    """conversion.py (T5 parameter names), present only in a package with a parameter, result or
    guard in units of its own; the rendered server.py hands the module over as `ServerConfig.units`."""

    def to_upstream(self, param: Param, values: Mapping[str, Any]) -> Any: ...

    def convert_results(
        self, action: Action, answer: dict[str, Any]
    ) -> dict[str, Any]: ...

    def current_in_agent_units(
        self, unit: Unit | None, record: dict[str, Any], field: str
    ) -> Any: ...


class PreviewFlow(Protocol):
    """preview.py's `Previews` (S1 preview, then apply), present only in a package with a previewed
    tool; the rendered server.py imports it and hands it over as `ServerConfig.previews`."""

    def __init__(
        self,
        package: str,
        apply_limit_s: float,
        units: UnitConversion | None = None,
    ) -> None: ...

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


class DiscoveryFlow(Protocol):
    """discovery.py's `Discovery` (T3 few tools), present only in a package that lists the search
    and call meta-tools instead of its catalog; the rendered server.py hands it over as
    `ServerConfig.discovery`."""

    meta: dict[str, str]  # meta-tool name -> 'search' or 'call'

    def __init__(self, contract: list[dict[str, Any]]) -> None: ...

    def listed(self, contract: list[dict[str, Any]]) -> list[dict[str, Any]]: ...

    def search(
        self, arguments: Mapping[str, Any] | None, visible: Callable[[str], bool]
    ) -> dict[str, Any]: ...

    def unwrap(
        self, arguments: Mapping[str, Any] | None
    ) -> tuple[str, dict[str, Any]]: ...


class FileAnswers(Protocol):
    """file_answers.py, present only in a package with an action whose API answers a file (a PDF, an
    image, a CSV export); the rendered server.py hands the module over as `ServerConfig.file_answers`."""

    def described(
        self, answer: httpx.Response, action: Action, max_bytes: int
    ) -> dict[str, Any]: ...

    def file_result(
        self,
        shown: dict[str, Any],
        answer: httpx.Response,
        max_tokens: int,
        secrets: tuple[str, ...],
    ) -> types.CallToolResult: ...


# info.py's `server_info`: (name, version, upstream, client) -> what the diagnostic tool answers.
ServerInfo = Callable[
    [str, str, Upstream, httpx.AsyncClient], Awaitable[dict[str, Any]]
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerConfig:
    name: str
    package: str  # the generated package, whose tools.json is the contract
    title: str
    version: str
    instructions: str
    upstream: Upstream
    # Serve the '<name>_server_info' diagnostic tool (info.py).
    server_info: ServerInfo | None = None
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
    discovery: type[DiscoveryFlow] | None = (
        None  # search and call meta-tools (T3 few tools)
    )
    units: UnitConversion | None = None  # conversion.py (T5 parameter names)
    # A schema with a `pattern`: patterns.py's `python_pattern`, ECMA-262 in Python's spelling.
    patterns: PatternTranslation | None = None
    # A date-time that may be local beside its time zone: times.py's `local_time_problems`.
    local_times: LocalTimeCheck | None = None
    # An action answers a file: file_answers.py returns it as the result's content.
    file_answers: FileAnswers | None = None
