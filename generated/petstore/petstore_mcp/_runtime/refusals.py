"""The API's refusals as tool errors the agent can act on: what happened, why, and which kind of recovery
fits (E2 what, why, how; E3 which kind of recovery; E4 unknown outcome is not retry); see docs/errors.md.

The kind of recovery follows the HTTP status, unless the API's own answer says otherwise: an error code the
mapping's `errors:` table maps to a kind, else the API's wording ("not ready", "try again later" -> wait;
"re-link", "login required", "consent" -> the user must act; "permission", "forbidden", "scope" -> permission).
"""

from __future__ import annotations

import email.utils
import json
import math
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from .errors import (
    ApiProblem,
    Recovery,
    ToolError,
    api_problem,
    clipped,
    field_candidates,
    key_words,
)
from .results import Answer, json_or_none
from .routing import Action, Failure, Param

_MAX_QUOTED = 200  # characters of any upstream value an error message quotes (E2 what, why, how; E5 no internals)

# The kinds of recovery the mapping's `errors:` table names, as the agent reads them.
KINDS = {
    "fix_input": Recovery.FIX_INPUT,
    "wait": Recovery.RETRY_LATER,
    "needs_human": Recovery.NEEDS_HUMAN,
    "permission": Recovery.NEEDS_PERMISSION,
}
# What an API's words say about the kind of recovery, first match wins; read in its message and in its error
# codes written as words (ITEM_LOGIN_REQUIRED -> "ITEM LOGIN REQUIRED").
_WORDING = (
    ("needs_human", re.compile(
        r"\b(re-?link|re-?authori[sz]|re-?authenticat|log ?in (is )?required|log ?in again|sign ?in again|"
        r"consent|user action)", re.I)),
    ("wait", re.compile(
        r"\b(not (yet )?ready|again later|retry later|rate[ -]?limit|too many requests|throttl|"
        r"temporarily unavailable|still processing|please wait)", re.I)),
    ("permission", re.compile(
        r"\b(permissions?\b|forbidden|scopes?\b|not authori[sz]ed|unauthori[sz]ed|access denied|"
        r"insufficient privileges|not authed|invalid auth\b)", re.I)),
)  # fmt: skip
# Statuses whose default, "fix the input", the API's wording may overrule; 403 too (GitHub's rate limit is one).
_WORDED = frozenset((400, 403, 409, 422))


def recovery_kind(
    problem: ApiProblem, action: Action, table: Mapping[str, str], worded: bool = True
) -> str | None:
    """The kind of recovery the API's answer calls for: its error code in the action's or the server's
    `errors:` table, else (when `worded`) what its words say; None: the status decides."""
    for code in problem.codes:
        kind = action.errors.get(code) or table.get(code)
        if kind in KINDS:
            return kind
    if not worded:
        return None
    text = " ".join((problem.said, *(_as_words(c) for c in problem.codes)))
    return next((kind for kind, words in _WORDING if words.search(text)), None)


def _as_words(code: str) -> str:
    return " ".join(
        re.sub(r"([a-z])([A-Z])", r"\1 \2", code)
        .replace("_", " ")
        .replace("-", " ")
        .split()
    )


def told(problem: ApiProblem, status: int | None = None) -> str:
    """ " The API said: <its words>. Its error code: <code>." or ""."""
    said = problem.said
    if said and not said.endswith((".", "!", "?")):
        said += "."
    codes = [c for c in problem.codes if c != str(status) and c not in said]
    code = f" Its error code: {', '.join(codes)}." if codes else ""
    return f" The API said: {said}{code}" if said else code


def http_error(
    response: httpx.Response,
    action: Action,
    credential_env: str | None = None,
    table: Mapping[str, str] | None = None,
) -> ToolError:
    """An upstream refusal as what happened, why, and what to do next (E2 what, why, how; E3 which kind of recovery); see docs/errors.md."""
    status = response.status_code
    problem = _upstream_problem(response)
    words = told(problem, status)
    kind = recovery_kind(problem, action, table or {}, worded=status in _WORDED)
    if kind is not None and kind != "fix_input":
        return _by_kind(kind, response, words, action, credential_env)
    if status in (400, 422) or (kind == "fix_input" and status not in (404, 409)):
        return _rejected(status, words, problem, action)
    if status == 401:
        return _unauthorized(words, action, credential_env)
    if status == 403:
        return _forbidden(response, words, action, credential_env)
    if status == 404:
        return _not_found(words, action)
    if status == 409:
        check = action.check_with or "a read action of this server"
        return ToolError(
            f"'{action.name}' conflicts with the current state (HTTP 409).{words}",
            f"Read the current state with {check}, then decide whether the change is still needed.",
            Recovery.FIX_INPUT,
        )
    when = _when(response)
    if status == 429:
        return ToolError(
            f"the API is rate limiting this server (HTTP 429).{words}",
            f"Wait {when}, then call '{action.name}' again.",
            Recovery.RETRY_LATER,
        )
    if status >= 500:
        how = f"Wait {when} and retry; if it keeps failing, tell the user the API is unavailable."
        how = check_before_repeating(action, how)
        return ToolError(
            f"the API failed (HTTP {status}) while running '{action.name}'.{words}",
            how,
            Recovery.RETRY_LATER,
        )
    return ToolError(
        f"the API answered HTTP {status} to '{action.name}'.{words}",
        "Check the arguments and call again.",
        Recovery.FIX_INPUT,
    )


def _when(response: httpx.Response) -> str:
    wait = _retry_after_s(response.headers.get("retry-after", ""))
    if wait is None:
        return "a minute"
    return f"{wait} second{'' if wait == 1 else 's'} (the API's Retry-After)"


def _by_kind(
    kind: str, response: httpx.Response, words: str, action: Action, env: str | None
) -> ToolError:
    """A refusal whose kind of recovery the API's code or words decided, not its status."""
    status = response.status_code
    if kind == "permission":
        return _forbidden(response, words, action, env)
    if kind == "wait":
        how = f"Wait {_when(response)}, then call '{action.name}' again."
        return ToolError(
            f"the API cannot run '{action.name}' yet (HTTP {status}).{words}",
            check_before_repeating(action, how) if status >= 500 else how,
            Recovery.RETRY_LATER,
        )
    return ToolError(
        f"the API refused '{action.name}' until the user acts (HTTP {status}).{words}",
        _user_must_act(action),
        Recovery.NEEDS_HUMAN,
    )


def _user_must_act(action: Action) -> str:
    return (
        "This needs the user: tell them what the API said (it asks them to act themselves, such as re-linking "
        f"an account, logging in again or giving consent), and call '{action.name}' again once they have. "
        "Calling again before that fails the same way."
    )


def _rejected(
    status: int, words: str, problem: ApiProblem, action: Action
) -> ToolError:
    """400/422: the API's own words, and the argument it is about under the agent's name for it."""
    param = param_named(action, problem.fields, problem.said)
    if param is None:
        return ToolError(
            f"the API rejected the arguments of '{action.name}' (HTTP {status}).{words}",
            "Correct the value the API names and call again.",
            Recovery.FIX_INPUT,
        )
    return ToolError(
        f"the API rejected the arguments of '{action.name}' (HTTP {status}).{words}{about(param)}",
        f"Correct {param.arg} and call again.",
        Recovery.FIX_INPUT,
    )


def about(param: Param) -> str:
    """ " The argument is <arg> (the API calls it <wire>)." with its unit when the server converts it."""
    said = f" The argument is {param.arg}"
    said += f" (the API calls it {param.wire})." if param.wire != param.arg else "."
    if param.unit is not None:
        unit = param.unit
        said += (
            f" The API counts it in {unit.upstream}; this server converts {param.arg} from "
            f"{unit.agent} (1 {unit.agent} = {unit.factor:g} {unit.upstream})."
        )
    return said


def _unauthorized(words: str, action: Action, env: str | None) -> ToolError:
    if env is None:
        return ToolError(
            f"the API wants credentials for '{action.name}' (HTTP 401), and this server sends none.{words}",
            "This needs the user: the server's mapping needs server.auth; ask them to add it and regenerate.",
            Recovery.NEEDS_HUMAN,
        )
    return ToolError(
        f"the API refused the credentials in {env} for '{action.name}' (HTTP 401): they are wrong, "
        f"expired or revoked.{words}",
        f"This needs the user: ask them to set {env} to a valid credential in this MCP server's "
        "environment and restart the server. Calling again before that fails the same way.",
        Recovery.NEEDS_PERMISSION,
    )


def _forbidden(
    response: httpx.Response, words: str, action: Action, env: str | None
) -> ToolError:
    status = response.status_code
    scope = _wanted_scope(response.headers.get("www-authenticate", ""))
    needs = f" It needs the scope {scope}." if scope else ""
    whose = f"the credentials in {env}" if env else "this server"
    grant = f"the scope {scope}" if scope else f"permission for '{action.name}'"
    fix = f" (or set {env} to one that has it and restart the server)" if env else ""
    return ToolError(
        f"{whose} may not run '{action.name}' (HTTP {status}).{needs}{words}",
        f"This needs the user: ask them to grant {grant} to that credential{fix}. "
        "Calling again before that fails the same way.",
        Recovery.NEEDS_PERMISSION,
    )


def _not_found(words: str, action: Action) -> ToolError:
    if action.find_with and action.finds:
        return ToolError(
            f"not found (HTTP 404): '{action.name}' found nothing for the {action.finds} given.{words}",
            f"Find the right {action.finds} with {action.find_with}, then call again with it.",
            Recovery.FIX_INPUT,
        )
    named = [p.arg for p in action.params if p.at == "path"]
    which = " and ".join(named) if named else "the identifiers in the arguments"
    return ToolError(
        f"not found (HTTP 404) for '{action.name}'.{words}",
        f"Check {which} and call again.",
        Recovery.FIX_INPUT,
    )


def param_named(action: Action, fields: tuple[str, ...], said: str) -> Param | None:
    """The parameter an error is about: the first field the API's structured location names (issue
    17: `location: timeMax` wins over a name its prose happens to use), else the one wire name its
    message uses. Wire names and agent names both match: the message then names the agent's."""
    for found in fields:
        for name in field_candidates(found):
            param = _param_called(action, name)
            if param is not None:
                return param
    if fields:
        return None  # the API said which field, and it is none the agent passes: guess no other
    mentioned = [
        p for p in action.params if re.search(rf"\b{re.escape(p.wire)}\b", said)
    ]
    return mentioned[0] if len(mentioned) == 1 else None


def _param_called(action: Action, name: str) -> Param | None:
    arg = action.arg_for(name) or name
    return next((p for p in action.params if p.arg == arg), None)


_DELTA_SECONDS = re.compile(r"[0-9]{1,9}")
MAX_RETRY_AFTER_S = (
    86_400  # a longer wait is no advice an agent can follow: it gets the generic one
)


def _retry_after_s(value: str) -> int | None:
    """Retry-After as seconds from now: delta-seconds, or an HTTP date with its zone. None when it is
    neither, or further away than a day."""
    value = value.strip()
    if _DELTA_SECONDS.fullmatch(value):
        seconds = int(value)
    else:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:
            return None
        seconds = max(0, math.ceil((when - datetime.now(timezone.utc)).total_seconds()))
    return seconds if seconds <= MAX_RETRY_AFTER_S else None


_SCOPE = re.compile(r'scope="([^"]*)"')


def _wanted_scope(challenge: str) -> str | None:
    found = _SCOPE.search(challenge)
    scope = _quoted(found.group(1)) if found else ""
    return scope or None


def _upstream_problem(response: httpx.Response) -> ApiProblem:
    """The API's own message about a failure, the fields it names and its error codes (errors.api_problem)."""
    body = json_or_none(response)
    if isinstance(body, (dict, list)):
        return api_problem(body)
    text = _opening(response, 4 * _MAX_QUOTED).strip()
    if not text or text.startswith("<"):
        return ApiProblem("")  # an HTML error page says nothing the agent can use
    return ApiProblem(clipped(text.splitlines()[0]))


def _quoted(text: str, limit: int = _MAX_QUOTED) -> str:
    """An upstream value as an error message quotes it: on one line, at most `limit` characters."""
    text = " ".join(text[: 4 * limit].split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _opening(response: httpx.Response, limit: int) -> str:
    """The start of the body as text, without decoding all of it."""
    return response.content[: 4 * limit].decode(
        response.encoding or "utf-8", errors="replace"
    )


def redirect_error(
    response: httpx.Response, action: Action, base_url_env: str
) -> ToolError:
    """A 3xx. The server never follows one: it could take the credential to another host (P3 credentials)."""
    where = _redirect_target(response)
    said = (
        f"the API redirected to {_quoted(where)} (HTTP {response.status_code})"
        if where
        else f"the API answered with a redirect (HTTP {response.status_code}) without saying where"
    )
    how = (
        f"This needs the user: ask them to check that {base_url_env} points at the API itself; a redirect "
        "usually means the API moved, wants https, or sent a login page."
    )
    how = check_before_repeating(action, how)
    return ToolError(
        f"{said} for '{action.name}'; mcpgen does not follow redirects.",
        how,
        Recovery.NEEDS_HUMAN,
    )


def _redirect_target(response: httpx.Response) -> str:
    """Where a redirect points, as scheme://host:port/path: its query and any user:password may carry
    secrets (E5 no internals). '' when it says nowhere usable."""
    location = response.headers.get("location", "")
    try:
        target = urlsplit(urljoin(str(response.request.url), location))
        port = f":{target.port}" if target.port else ""
    except ValueError:
        return ""
    if not location or not target.hostname:
        return ""
    return f"{target.scheme}://{target.hostname}{port}{target.path}"


def unusable_error(answer: Answer, action: Action, base_url_env: str) -> ToolError:
    """A 2xx whose body cannot be used: too big, or not JSON. For a change the API said yes, so the
    change may have happened (E4 unknown outcome is not retry)."""
    status = answer.status_code
    if answer.too_big:
        what = (
            f"the API answered with {answer.problem} for '{action.name}' (HTTP {status}), the most this "
            "server reads of one answer."
        )
        fix = "Narrow the request (filters, a smaller limit, one page or one record at a time) and call again."
        recovery = Recovery.FIX_INPUT
    else:
        kind = _quoted(answer.headers.get("content-type") or "no content type", 60)
        began = _quoted(_opening(answer, 100), 100)
        what = (
            f"the API answered HTTP {status} to '{action.name}' with {kind} that is {answer.problem}, so "
            "this server cannot read it." + (f' It began: "{began}".' if began else "")
        )
        fix = f"This needs the user: ask them to check that {base_url_env} points at the API itself"
        fix += (
            " and that the credential is valid: an HTML page usually is a login or error page."
            if "html" in kind.lower()
            else "."
        )
        recovery = Recovery.NEEDS_HUMAN
    if action.idempotent:
        return ToolError(what, fix, recovery)
    check = action.check_with or "a read action of this server"
    return ToolError(
        f"{what} The API accepted the request, so whether '{action.name}' took effect is unknown.",
        f"Do not repeat '{action.name}' yet. Check with {check} whether the change happened.",
        Recovery.CHECK_OUTCOME,
    )


def check_before_repeating(action: Action, how: str) -> str:
    """`how`, led by a check that the change did not happen, for an action that is not safe to
    repeat: the API may have acted before it failed or redirected (E4 unknown outcome is not retry)."""
    if action.idempotent:
        return how
    check = action.check_with or "a read action of this server"
    return f"Before calling '{action.name}' again, check with {check} that it did not take effect. {how}"


# ---- A failure the API reports inside a 2xx answer ---------------------------------------------------------------
# Some APIs answer 200 and say inside it that the call failed: Slack's {"ok": false, "error": ...}, an `ErrorCode`
# that is not 0 or "None", a non-empty `errors`. The generator reads which fields say so from each operation's
# response schema, or the mapping names them (`failure:`); such an answer is an error, never a success.
_WORDS_KEYS = frozenset(
    {"message", "messages", "msg", "error", "errors", "detail", "details", "reason"}
)
# The API's words that say its failure changed nothing.
_UNCHANGED = re.compile(
    r"\b(no changes? (was |were )?made|nothing (was )?(changed|saved|created|sent)|rolled back|"
    r"not (been )?(created|updated|saved|applied|changed|deleted|sent|posted))\b",
    re.I,
)


def reported_failure(
    answer: Answer, action: Action, table: Mapping[str, str]
) -> ToolError | None:
    """The failure a 2xx answer reports in a field the action's `failures` name, else in a top-level flag
    the spec does not show, as a tool error with the API's own words; None when the answer reports none."""
    for failure in action.failures:
        found, value = _at(answer.data, failure.at)
        if found and _fails(value, failure):
            return _failed(answer, action, table, failure, value)
    if not action.undescribed_failures:
        return None
    named = frozenset(f.at for f in action.failures)
    return undescribed_failure(answer, action, table, named)


# Failure flags at the top of a 2xx answer whose spec does not describe them (build/failures.py reads
# the ones it does): a success or ok that is false, an error code that is set and not zero. An answer
# that says it failed never reads as a success
# (E3 which kind of recovery; R4 truncation is announced);
# the error says the spec did not show the field. `failure: false` in the mapping stops it.
_SUCCESS_WORDS = frozenset(("success", "ok", "succeeded", "successful"))
_ERROR_CODE_WORDS = frozenset(("errorcode", "errcode"))
_NO_ERROR = (0, "0", "", "ok", "none", "success")


def undescribed_failure(
    answer: Answer,
    action: Action,
    table: Mapping[str, str],
    named: frozenset[str] = frozenset(),
) -> ToolError | None:
    """The failure a 2xx answer reports in a top-level flag the spec does not show, as a tool error with
    the API's own words; None when it reports none. `named`: the pointers the action's own `failures`
    read, which keep their own rule (an `errors` list the spec declares beside an undeclared `ok`)."""
    data = answer.data
    if not isinstance(data, dict):
        return None
    for key, value in data.items():
        word = re.sub(r"[^a-z]", "", str(key).lower())
        pointer = "/" + str(key).replace("~", "~0").replace("/", "~1")
        if pointer in named:
            continue
        if word in _SUCCESS_WORDS:
            failure = Failure(at=pointer, equals=(False,))
        elif word in _ERROR_CODE_WORDS:
            failure = Failure(at=pointer, unless=_NO_ERROR)
        else:
            continue
        if _fails(value, failure):
            error = _failed(answer, action, table, failure, value)
            error.what += (
                f" The spec does not describe '{key}' in this answer; the server read it as the"
                " API's own word that the call failed."
            )
            return error
    return None


def _fails(value: Any, failure: Failure) -> bool:
    if value is None:
        return False
    if failure.non_empty:
        return isinstance(value, (str, list, dict)) and len(value) > 0
    if failure.equals:
        return any(_same(value, v) for v in failure.equals)
    return bool(failure.unless) and not any(_same(value, v) for v in failure.unless)


def _same(value: Any, expected: Any) -> bool:
    """Equal as JSON values: false is not 0, and texts compare without regard to case ("none" is "None")."""
    if isinstance(value, bool) or isinstance(expected, bool):
        return value is expected
    if isinstance(value, str) and isinstance(expected, str):
        return value.casefold() == expected.casefold()
    return bool(value == expected)


def _at(data: Any, pointer: str) -> tuple[bool, Any]:
    """The value at a JSON pointer ('/meta/success'), and whether it is there."""
    node = data
    for raw in pointer.split("/")[1:]:
        key = _unescaped(raw)
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return False, None
    return True, node


def _failed(
    answer: Answer,
    action: Action,
    table: Mapping[str, str],
    failure: Failure,
    value: Any,
) -> ToolError:
    problem = _reported_problem(answer.data, failure, value)
    field = _unescaped(failure.at.rsplit("/", 1)[-1])
    shown = "not empty" if failure.non_empty else _quoted(json_text(value), 60)
    what = (
        f"the API reported a failure in its answer to '{action.name}' (HTTP {answer.status_code}, "
        f"{field} is {shown}).{told(problem)}"
    )
    kind = recovery_kind(problem, action, table)
    how, recovery = _next_step(kind, problem, action)
    if action.idempotent:
        return ToolError(what, how, recovery)
    if failure.unchanged or _UNCHANGED.search(problem.said):
        return ToolError(
            f"{what} The API reports it did not make the change.", how, recovery
        )
    check = action.check_with or "a read action of this server"
    return ToolError(
        f"{what} Its answer does not say whether anything changed, so the outcome of '{action.name}' is unknown.",
        f"Do not repeat '{action.name}' yet. Check with {check} whether the change happened; if it did not: {how}",
        Recovery.CHECK_OUTCOME,
    )


def _next_step(
    kind: str | None, problem: ApiProblem, action: Action
) -> tuple[str, Recovery]:
    if kind == "wait":
        return f"Wait a minute, then call '{action.name}' again.", Recovery.RETRY_LATER
    if kind == "needs_human":
        return _user_must_act(action), Recovery.NEEDS_HUMAN
    if kind == "permission":
        return (
            f"This needs the user: ask them to grant permission for '{action.name}' to this server's "
            "credential. Calling again before that fails the same way.",
            Recovery.NEEDS_PERMISSION,
        )
    param = param_named(action, problem.fields, problem.said)
    if param is not None:
        return (
            f"{about(param).strip()} Correct {param.arg} and call again.",
            Recovery.FIX_INPUT,
        )
    return "Correct what the API names and call again.", Recovery.FIX_INPUT


def _reported_problem(data: Any, failure: Failure, value: Any) -> ApiProblem:
    """What the API said about its failure: the field the mapping names, else (or when that field is not in
    the answer) the words beside the failing field (its message, error, errors, detail), never the records of
    a success answer. A failing code is the error code."""
    parent_at, _, name = failure.at.rpartition("/")
    problem = ApiProblem("")
    if failure.message is not None:
        found, said = _at(data, failure.message)
        if found:
            problem = api_problem({"message": said} if isinstance(said, str) else said)
    if not problem.said:
        _, parent = _at(data, parent_at)
        beside = parent if isinstance(parent, dict) else {}
        words = {
            k: v
            for k, v in beside.items()
            if key_words(str(k)) & _WORDS_KEYS
            and (failure.non_empty or str(k) != _unescaped(name))
        }
        problem = api_problem(words)
    if "code" in key_words(_unescaped(name)) and isinstance(value, (str, int)):
        problem = ApiProblem(problem.said, problem.fields, (str(value), *problem.codes))
    return problem


def _unescaped(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def json_text(value: Any) -> str:
    """A value as JSON, as a message quotes it."""
    return json.dumps(value, ensure_ascii=False, default=str)
