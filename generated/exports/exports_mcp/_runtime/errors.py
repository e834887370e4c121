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
# Error bodies come in many shapes; they are read by the names of their keys, in any case, at any depth up to
# _MAX_NESTING, never from a fixed list of field names:
#   words   a string under a key naming a message, detail, description, title, reason or error:
#           message, error_message, display_message (Plaid), Message, error_description (OAuth 2), detail and
#           title (RFC 7807, joined as "title: detail"), msg (FastAPI), reason (Google)
#   lists   an array of such objects under a key naming errors or problems: errors, detail, problems
#           (api.video), invalid-params (RFC 7807), violations, fieldErrors, userErrors; each blames the field
#           it names
#   maps    field -> messages under such a key: {"errors": {"email": ["is taken"]}} (Rails), RFC 7807
#           invalid-params as {"id": {"msg": ...}} (PeerTube), ASP.NET's ModelState; at the top level
#           {"email": [...]} (Django REST)
#   codes   a string or number under a key naming a code (code, error_code, ErrorCode), and an OAuth or Slack
#           `error` that is one word: what the mapping's `errors:` table maps to a kind of recovery
_TOKENS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
# Words of a key whose string is the API's prose, best first: a message beats a detail, a title, a reason, and
# an `error` that is the only thing it said.
_RANKS = (
    frozenset({"message", "messages", "msg"}),
    frozenset({"detail", "details", "description"}),
    frozenset({"title"}),
    frozenset({"reason"}),
    frozenset({"error"}),
)
# A key with one of these words holds a code, a link or an echo, never prose (`error_code`, `error_uri`,
# `documentation_url`, `request_id`, Slack's `callstack`).
_NOT_PROSE = frozenset(
    "code codes type uri url link href id ids status doc docs documentation request instance stack trace "
    "callstack stacktrace value".split()
)
# A key with one of these words holds errors: it is read further down.
_ERRORISH = frozenset(
    "error errors message messages detail details problem problems violation violations invalid cause "
    "causes issue issues failure failures reason reasons".split()
)
_CODE_KEYS = frozenset(
    ("code", "type", "status")
)  # beside an error's words, never a field it blames
_LOCATIONS = frozenset(
    ("location", "field", "fieldname", "field_name", "param", "parameter", "pointer", "loc", "property",
     "propertypath", "property_path", "attribute")
)  # fmt: skip
# Leading segments of a location that say where a field is, not which one: FastAPI's ["body", "name"],
# JSON:API's "/data/attributes/name"; alone (PeerTube's "location": "params") they name no field.
_PLACES = frozenset(
    "body query path header headers cookie cookies params data attributes # $".split()
)
_CODE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[_.:-][A-Za-z0-9]+)*")
_MAX_ENTRIES = 3  # errors of one answer quoted; the rest are counted
_MAX_NESTING = 3
_MAX_KEYS = 50  # keys of one object read


@dataclass(frozen=True, slots=True)
class ApiProblem:
    """The API's own words about a failure, on one line and bounded, the fields it names (structured locations
    first, in the order the API gave them) and the error codes it gave (E2 what, why, how)."""

    said: str
    fields: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()


@dataclass(slots=True)
class _Found:
    words: list[str]
    fields: list[str]
    codes: list[str]

    def add(self, other: _Found) -> None:
        self.words += other.words
        self.fields += other.fields
        self.codes += other.codes


def api_problem(body: Any) -> ApiProblem:
    """What an error body says, whatever its shape; empty when it says nothing."""
    found = _read(body, 0)
    words = list(dict.fromkeys(w for w in found.words if w))
    # A title an entry repeats under its field ("page: <title>", api.video) is said once.
    words = [w for w in words if not any(o.endswith(f": {w}") for o in words)]
    return ApiProblem(
        clipped("; ".join(words)),
        tuple(dict.fromkeys(f for f in found.fields if f)),
        tuple(dict.fromkeys(c for c in found.codes if c))[:_MAX_ENTRIES],
    )


def key_words(key: str) -> frozenset[str]:
    """A key's words, lower case: 'ErrorCode' -> {error, code}, 'invalid-params' -> {invalid, params}."""
    return frozenset(t.lower() for t in _TOKENS.findall(key))


def _read(body: Any, depth: int) -> _Found:
    if depth > _MAX_NESTING:
        return _Found([], [], [])
    if isinstance(body, list):
        return _read_entries(body, depth)
    if isinstance(body, dict):
        return _read_object(body, depth)
    return _Found([], [], [])


def _read_object(body: dict[str, Any], depth: int) -> _Found:
    items = [(str(k), v) for k, v in list(body.items())[:_MAX_KEYS]]
    found = _Found(_prose(items), [], _codes(items))
    for key, value in items:
        words = key_words(key)
        if key.lower() in _LOCATIONS:
            found.fields.append(_location(value))
        elif key.lower() == "source" and isinstance(value, dict):
            # JSON:API {"source": {"pointer": ...}}
            found.fields += [
                _location(value.get(k)) for k in ("pointer", "parameter", "header")
            ]
        elif isinstance(value, (dict, list)) and (
            words & _ERRORISH or key.lower() == "modelstate"
        ):
            if isinstance(value, dict) and _is_field_map(value):
                found.add(_read_map(value, depth))
            else:
                found.add(_read(value, depth + 1))
        elif (
            depth == 0
            and not found.words
            and isinstance(value, list)
            and _messages(value)
        ):
            # Django REST: {"email": ["is required"]}
            found.words.append(f"{key}: {_messages(value)[0]}")
            found.fields.append(key)
    return found


def _prose(items: list[tuple[str, Any]]) -> list[str]:
    """An object's own words: every message and detail it has, else its best title, reason or error; an
    RFC 7807 title and detail joined, the title naming the kind and the detail the case."""
    ranked: list[tuple[int, str]] = []
    for key, value in items:
        text = _text(value)
        words = key_words(key)
        if not text or words & _NOT_PROSE:
            continue
        rank = next((i for i, names in enumerate(_RANKS) if words & names), None)
        if rank is not None:
            ranked.append((rank, text))
    if not ranked:
        return []
    titles = [t for r, t in ranked if r == 2]
    details = [t for r, t in ranked if r == 1]
    if titles and details and titles[0] not in details[0]:
        return [f"{titles[0]}: {details[0]}", *(t for r, t in ranked if r == 0)]
    best = min(r for r, _ in ranked)
    if best <= 1:
        return [t for r, t in ranked if r <= 1]
    return [next(t for r, t in ranked if r == best)]


def _codes(items: list[tuple[str, Any]]) -> list[str]:
    """The error codes an object gives: under a key naming a code, or an `error` that is one word."""
    found = []
    for key, value in items:
        words = key_words(key)
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            continue
        if "code" in words and words <= {"code", "error", "err"}:
            found.append(str(value))
        elif (
            words == {"error"}
            and isinstance(value, str)
            and _CODE_WORD.fullmatch(value)
        ):
            found.append(value)
    return found


def _read_entries(entries: list[Any], depth: int) -> _Found:
    """A list of errors: each one's words, prefixed by the field it names when it names one."""
    found = _Found([], [], [])
    for entry in entries[:_MAX_ENTRIES]:
        if isinstance(entry, str):
            found.words.append(_text(entry))
            continue
        one = _read(entry, depth + 1)
        if (
            isinstance(entry, dict)
            and not any(one.fields)
            and isinstance(entry.get("name"), str)
        ):
            one.fields = [
                entry["name"]
            ]  # RFC 7807 invalid-params, api.video problems: {"name", ...}
        found.add(_blamed(one))
    if len(entries) > _MAX_ENTRIES:
        found.words.append(f"and {len(entries) - _MAX_ENTRIES} more")
    return found


def _read_map(entries: dict[str, Any], depth: int) -> _Found:
    """field -> messages, or field -> an error object: each error under the field it is about."""
    found = _Found([], [], [])
    for name, value in list(entries.items())[:_MAX_ENTRIES]:
        said = _messages(value)
        if said:
            found.add(_Found([f"{name}: {said[0]}"], [str(name)], []))
            continue
        one = _read(value, depth + 1)
        one.fields = [*(f for f in one.fields if f), str(name)]
        found.add(_blamed(one))
    if len(entries) > _MAX_ENTRIES:
        found.words.append(f"and {len(entries) - _MAX_ENTRIES} more")
    return found


def _blamed(one: _Found) -> _Found:
    """An entry's words as one, led by the field it blames unless they name it already."""
    said = "; ".join(w for w in one.words if w)
    fields = [f for f in one.fields if f]
    if said and fields and not re.search(rf"(?<!\w){re.escape(fields[0])}(?!\w)", said):
        said = f"{fields[0]}: {said}"
    return _Found([said], fields, one.codes)


def _is_field_map(value: Any) -> bool:
    """{"email": ["is taken"]}, {"id": {"msg": ...}}: keys that are fields, not words of an error."""
    if not isinstance(value, dict) or not value:
        return False
    if any(
        key_words(str(k)) & (_ERRORISH | _CODE_KEYS) or str(k).lower() in _LOCATIONS
        for k in value
    ):
        return False
    return all(_messages(v) or isinstance(v, dict) for v in value.values())


def _messages(value: Any) -> list[str]:
    """A message, or a list of messages, as a list of texts; [] for anything else."""
    if isinstance(value, str):
        return [_text(value)] if _text(value) else []
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return [t for t in map(_text, value) if t]
    return []


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
    if len(parts) == 1 and parts[0] in _PLACES:
        return ""
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
