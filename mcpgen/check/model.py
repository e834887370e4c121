"""The values `check` passes along: the calls it made and what came back, and what it finds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from mcpgen import codes
from mcpgen.check.upstream import Exchange
from mcpgen.diagnostics import SourceRef

Step = Literal["concise", "detailed", "next", "probe", "refuse"]


@dataclass(frozen=True, slots=True)
class Call:
    """One tools/call: the arguments, the result as the client got it, and the exchanges it caused."""

    tool: str  # the ToolSpec's name
    served: str  # the MCP tool name it was called by (a preview tool's _preview or _apply)
    action: str
    step: Step
    arguments: dict[str, Any]
    is_error: bool
    text: str
    structured: dict[str, Any] | None
    exchanges: tuple[Exchange, ...]
    failure: str | None = None  # the call itself failed (protocol error, timeout): no result


@dataclass(frozen=True, slots=True)
class Skip:
    """Something not checked, and why (a value that could not be made, an answer with nothing to judge)."""

    tool: str
    action: str | None
    why: str


@dataclass(frozen=True, slots=True)
class Finding:
    """A promise the tool makes that the answers contradict (level error), or a note of what was not
    checked (level note), located at the mapping line that made the promise."""

    code: str
    check: str
    level: Literal["error", "note"]
    tool: str
    action: str | None
    message: str
    source: SourceRef | None
    hint: str | None = None


# code -> the check's name, as `--format json` gives it beside the code (what each means: mcpgen/codes.py).
CHECKS = {
    codes.K101: "concise-field-missing",
    codes.K102: "concise-emptier",
    codes.K201: "paging-verdict-missing",
    codes.K202: "paging-field-missing",
    codes.K203: "total-dropped",
    codes.K301: "unit-not-number",
    codes.K302: "unit-not-in-schema",
    codes.K401: "error-text-lost",
    codes.K501: "media-type-unreadable",
    codes.K601: "server-note",
    codes.K701: "call-failed",
    codes.K702: "write-not-refused",
    codes.K900: "not-checked",
}
