"""The values `check` passes along: the calls it made and what came back, and what it finds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

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


# code -> (check name, what it means): the stable list `--format json` and the README document.
CHECKS = {
    "K101": ("concise-field-missing", "a concise field the tool keeps is in no answer"),
    "K102": ("concise-emptier", "a concise record is empty where the detailed one has fields"),
    "K201": ("paging-verdict-missing", "a list result says nothing of more items (no has_more)"),
    "K202": ("paging-field-missing", "a paging field the tool reads is in no answer"),
    "K203": ("total-dropped", "the answer has a total the result does not carry"),
    "K301": ("unit-not-number", "a unit-converted field is not a number"),
    "K302": ("unit-not-in-schema", "a unit-converted field is not in the action's response schema"),
    "K401": ("error-text-lost", "a tool error carries no text of the API's error body"),
    "K501": ("media-type-unreadable", "a success answer the tool cannot read"),
    "K601": ("server-note", "the server put a note in a result"),
    "K701": ("call-failed", "a read call failed where the upstream did not refuse it"),
    "K702": ("write-not-refused", "a write the server must refuse was accepted or sent"),
    "K900": ("not-checked", "something check could not judge, and why"),
}
