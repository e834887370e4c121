"""Tool errors are results the model can act on (E1 tool errors are results): what went wrong, and which kind of recovery fits (E3 which kind of recovery)."""

from __future__ import annotations

import enum
import json
import re
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The most of one value an error message repeats: enough to find the mistake, never megabytes (E2 what, why, how).
MAX_QUOTED = 200
# The generated package: frames in it are named relative to it, others by file name only.
_PACKAGE = Path(__file__).resolve().parent.parent


class Recovery(enum.Enum):
    FIX_INPUT = "fix the input"
    RETRY_LATER = "wait and retry"
    NEEDS_PERMISSION = "needs credentials or permission"
    NEEDS_HUMAN = "needs a human"
    CHECK_OUTCOME = "check the outcome before doing anything else"


class ToolError(Exception):
    """Raised anywhere in a call; the server turns it into an `isError: true` result."""

    def __init__(self, what: str, how: str, recovery: Recovery):
        super().__init__(what)
        self.what = what
        self.how = how
        self.recovery = recovery

    def text(self) -> str:
        return f"Error: {self.what}\nNext step ({self.recovery.value}): {self.how}"


def quoted(value: Any) -> str:
    """A value from the agent as JSON, cut after MAX_QUOTED characters with its full length said."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= MAX_QUOTED:
        return text
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[:MAX_QUOTED]}... ({size} characters in all)"


def unexpected(exc: Exception, tool: str, action: Any) -> ToolError:
    """A failure the server did not foresee, named by its type only: no trace, no values (E5 no internals)."""
    during = f" while running action {quoted(action)}" if action is not None else ""
    return ToolError(
        f"{tool} failed unexpectedly{during} ({type(exc).__name__}).",
        "This needs a human: tell the user; the server's log (stderr) shows when and where it happened. "
        "Calling again will likely fail the same way.",
        Recovery.NEEDS_HUMAN,
    )


def origin(exc: BaseException) -> str:
    """Where an exception was raised, for the log: `file:line` of the innermost frame and of the
    innermost one in this package. Never its message, which may hold values or secrets (E5 no internals)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "an unknown place"
    own = [f for f in frames if Path(f.filename).resolve().is_relative_to(_PACKAGE)]
    where = _place(frames[-1])
    if own and own[-1] is not frames[-1]:
        where += f", called from {_place(own[-1])}"
    return where


def _place(frame: traceback.FrameSummary) -> str:
    path = Path(frame.filename).resolve()
    shown = path.relative_to(_PACKAGE) if path.is_relative_to(_PACKAGE) else path.name
    return f"{Path(shown).as_posix()}:{frame.lineno}"


# ---- What the API said about a failure (E2 what, why, how) ------------------------------------------------------
# Error bodies come in a handful of shapes; each is read for its words and for the fields it blames:
#   {"message": ..., "field"|"param": ...}                      most REST APIs
#   {"error": "invalid_grant", "error_description": ...}        OAuth 2
#   {"error": {"message": ..., "errors": [{"location": ...}]}}  Google
#   {"errors": [{"message"|"reason"|"detail"|"title", "field"|"pointer"|"source": {...}}]}  JSON:API, GraphQL-ish
#   {"detail": [{"loc": ["query", "limit"], "msg": ...}]}       FastAPI / pydantic
#   {"type", "title", "detail", "errors"|"invalid-params"}      RFC 7807 application/problem+json
_WORDS = (
    "message",
    "error_description",
    "detail",
    "msg",
    "reason",
    "title",
    "description",
    "error",
)
_LOCATIONS = (
    "location",
    "field",
    "param",
    "parameter",
    "pointer",
    "loc",
    "name",
    "property",
)
_LISTS = (
    "errors",
    "detail",
    "details",
    "invalid-params",
    "invalid_params",
    "violations",
    "fieldErrors",
)
# Leading segments of a location that say where a field is, not which one: FastAPI's ["body", "name"],
# JSON:API's "/data/attributes/name".
_PLACES = frozenset(
    {
        "body",
        "query",
        "path",
        "header",
        "headers",
        "cookie",
        "data",
        "attributes",
        "#",
        "$",
    }
)
_MAX_ENTRIES = 3  # errors of one answer quoted; the rest are counted
_MAX_NESTING = 3


@dataclass(frozen=True, slots=True)
class ApiProblem:
    """The API's own words about a failure, on one line and bounded, and the fields it names,
    structured locations first, in the order the API gave them (E2 what, why, how)."""

    said: str
    fields: tuple[str, ...] = ()


def api_problem(body: Any) -> ApiProblem:
    """What an error body says, whichever of the common shapes it has; empty when it says nothing."""
    words, fields = _read_problem(body, 0)
    said = "; ".join(dict.fromkeys(w for w in words if w))
    return ApiProblem(clipped(said), tuple(dict.fromkeys(f for f in fields if f)))


def _read_problem(body: Any, depth: int) -> tuple[list[str], list[str]]:
    if depth > _MAX_NESTING:
        return [], []
    if isinstance(body, list):
        return _read_entries(body, depth)
    if not isinstance(body, dict):
        return [], []
    words: list[str] = []
    fields = [_location(body.get(key)) for key in _LOCATIONS if key != "name"]
    source = body.get("source")
    if isinstance(
        source, dict
    ):  # JSON:API: {"source": {"pointer": "/data/attributes/name"}}
        fields += [
            _location(source.get(key)) for key in ("pointer", "parameter", "header")
        ]
    title = _text(body.get("title"))
    detail = _text(body.get("detail"))
    if title and detail and title not in detail:
        words.append(
            f"{title}: {detail}"
        )  # RFC 7807: the title is the kind, the detail the case
        body = {k: v for k, v in body.items() if k not in ("title", "detail")}
    for key in _WORDS:
        value = body.get(key)
        if isinstance(value, str) and _text(value):
            if key == "error" and _text(body.get("error_description")):
                continue  # OAuth's code word; its description says it
            words.append(_text(value))
            break
        if isinstance(value, dict):  # Google: {"error": {"message", "errors": [...]}}
            inner_words, inner_fields = _read_problem(value, depth + 1)
            words += inner_words
            fields += inner_fields
            break
    for key in _LISTS:
        entries = body.get(key)
        if isinstance(entries, list) and entries:
            entry_words, entry_fields = _read_entries(entries, depth + 1)
            words += [w for w in entry_words if w not in words]
            fields += entry_fields
        elif (
            isinstance(entries, dict) and key == "errors"
        ):  # Rails: {"errors": {"name": ["is taken"]}}
            for name, said in list(entries.items())[:_MAX_ENTRIES]:
                first = said[0] if isinstance(said, list) and said else said
                if isinstance(first, str):
                    words.append(f"{name}: {_text(first)}")
                    fields.append(str(name))
    return words, [f for f in fields if f]


def _read_entries(entries: list[Any], depth: int) -> tuple[list[str], list[str]]:
    """A list of errors: each one's words, prefixed by the field it names when it names one."""
    words: list[str] = []
    fields: list[str] = []
    for entry in entries[:_MAX_ENTRIES]:
        if isinstance(entry, str):
            words.append(_text(entry))
            continue
        entry_words, entry_fields = _read_problem(entry, depth + 1)
        if (
            isinstance(entry, dict)
            and not entry_fields
            and isinstance(entry.get("name"), str)
        ):
            entry_fields = [
                entry["name"]
            ]  # RFC 7807 invalid-params: {"name", "reason"}
        said = "; ".join(entry_words)
        if said and entry_fields and entry_fields[0] not in said:
            said = f"{entry_fields[0]}: {said}"
        words.append(said)
        fields += entry_fields
    if len(entries) > _MAX_ENTRIES:
        words.append(f"and {len(entries) - _MAX_ENTRIES} more")
    return words, fields


def _location(value: Any) -> str:
    """A location as one dotted name: ["body", "items", 0, "name"] -> "items.0.name"."""
    if isinstance(value, list):
        parts = [
            str(p)
            for p in value
            if isinstance(p, (str, int)) and not isinstance(p, bool)
        ]
    elif isinstance(value, str):
        parts = [p for p in re.split(r"[./\[\]]+", value) if p]
    else:
        return ""
    while len(parts) > 1 and parts[0] in _PLACES:
        parts = parts[1:]
    return ".".join(parts)[:MAX_QUOTED]


def field_candidates(location: str) -> list[str]:
    """The names a location could mean as an argument, outermost first: the top-level field of a
    nested one ('items.0.name' -> 'items'), then its leaf ('name')."""
    parts = [p for p in location.split(".") if p and not p.isdigit()]
    return list(dict.fromkeys([*parts[:1], *parts[-1:]]))


def _text(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


# Lines of a stack trace (Python, Java/JS, Go): never passed on to the agent (E5 no internals).
_TRACE = re.compile(
    r"Traceback \(most recent call last\)|^\s+File \"|^\s+at \S|goroutine \d+", re.M
)


def clipped(text: str, limit: int = MAX_QUOTED) -> str:
    """An upstream text as an error message quotes it: without any stack trace, on one line, at most
    `limit` characters (E2 what, why, how; E5 no internals)."""
    found = _TRACE.search(text)
    if found:
        text = text[: found.start()]
    text = " ".join(text[: 4 * limit].split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
