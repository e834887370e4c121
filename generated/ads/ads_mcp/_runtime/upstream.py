"""Turn a validated action call into one HTTP request to the upstream API, and send it (P3 credentials; P5 timeouts)."""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import re
import uuid
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import quote, urlencode

import anyio.to_thread
import httpx

from .credentials import TokenSource, credential, refuse_insecure
from .errors import Recovery, ToolError
from .hooks import HOOK_HEADERS
from .pagination import merge_query, page_query, place_offset, upstream_values
from .refusals import http_error, redirect_error, reported_failure, unusable_error
from .results import Answer, decode_body
from .routing import Action, Fixed, Param

MAX_BODY_BYTES = 8 * 1024 * 1024

# (parameter, arguments) -> the argument's value in the API's unit (conversion.py's to_upstream).
ToUpstream = Callable[[Param, Mapping[str, Any]], Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Auth:
    """Credentials the server sends upstream, read from its own environment (P3 credentials, stdio)."""

    kind: Literal["bearer", "api_key", "basic"]
    env: str
    # body: a field of each request body that declares it, sent as the action's Fixed (from env).
    at: Literal["header", "query", "body"] | None = None
    name: str | None = None
    # api_key in a header: what goes before the key ('Bearer ', 'Token '), unless the key has it already.
    prefix: str = ""
    # The credential may go over plain http:// to another machine (a trusted network).
    allow_insecure: bool = False


class FileSource(Protocol):
    """files.py: a multipart or binary body (content, content type); None when nothing is sent."""

    def body(
        self,
        kind: str,
        form: list[tuple[str, str]],
        files: list[tuple[str, str, Any]],
        json: frozenset[str] = frozenset(),
    ) -> tuple[bytes, str] | None: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Upstream:
    base_url_env: str
    default_base_url: str
    auth: Auth | None
    timeout_s: float
    # The API reads an idempotency key from this header on POST (E4 unknown outcome is not retry); None when it has none.
    idempotency_header: str | None = None
    # The most an answer's body may hold; a bigger one is refused, never read whole (P5 timeouts).
    max_body_bytes: int = MAX_BODY_BYTES
    # Further credentials the API needs together with `auth` (a key and a client id), all sent.
    extra_auth: tuple[Auth, ...] = ()
    # The mapping's fixed request headers (an API version, say), sent with every call.
    headers: tuple[tuple[str, str], ...] = ()
    # Environment variables sent as parameter values (a per-deployment access token): never shown.
    value_envs: tuple[str, ...] = ()
    # The API's error codes the mapping's `server.errors` gives a kind of recovery (refusals.py).
    errors: Mapping[str, str] = field(default_factory=dict)
    # A token the server obtains (OAuth 2.0), sent as a bearer token; instead of `auth`.
    tokens: TokenSource | None = None
    # Reads the files a multipart or binary body sends (files.py); None in a package without such bodies.
    files: FileSource | None = None

    def base_url(self) -> str:
        url = os.environ.get(self.base_url_env) or self.default_base_url
        if not url:
            raise ToolError(
                f"the server does not know where the API is: {self.base_url_env} is not set.",
                f"Ask the user to set {self.base_url_env} to the API's base URL (for example "
                f"https://api.example.com) in this MCP server's environment, then call again.",
                Recovery.NEEDS_HUMAN,
            )
        return url.rstrip("/")

    def base_url_for(self, action: Action) -> str:
        """The operation's own server when the spec gives it one, unless the user moved the API and not
        it: then everything goes where the user pointed (the credential never goes elsewhere)."""
        if action.base_url_env:
            own = os.environ.get(action.base_url_env)
            if own:
                return own.rstrip("/")
            if not os.environ.get(self.base_url_env) and action.default_base_url:
                return action.default_base_url.rstrip("/")
        return self.base_url()

    def secret(self) -> str | None:
        """The credential's value, for redaction; None when there is no auth or it is unset."""
        return os.environ.get(self.auth.env) if self.auth else None

    def start_problems(self) -> list[str]:
        """What would refuse every call's credential, said once at start as well (the server still
        starts, and each call says it again: E3 which kind of recovery)."""
        checks: list[Callable[[], Any]] = []
        try:
            base = self.base_url()
        except ToolError:
            base = ""
        for auth in self.auths:
            checks += [
                functools.partial(refuse_insecure, base, auth.allow_insecure, auth.env),
                functools.partial(credential, auth.env, "credential"),
            ]
        if self.tokens is not None:
            tokens = self.tokens
            checks += [
                functools.partial(
                    refuse_insecure, base, tokens.allow_insecure, tokens.env
                ),
                functools.partial(
                    refuse_insecure, tokens.token_url, tokens.allow_insecure, tokens.env
                ),
            ]
        problems: list[str] = []
        for check in checks:
            try:
                check()
            except ToolError as exc:
                problems.append(f"{exc.what} {exc.how}")
        return list(dict.fromkeys(problems))

    def credential_env(self, subject: str = "") -> str | None:
        """The variable a refused credential is most likely wrong in (for this caller: a call with no
        user may send another token than a user's); None when the server sends none."""
        if self.tokens is not None:
            return self.tokens.refused_env(subject)
        return self.auth.env if self.auth else None

    @property
    def auths(self) -> tuple[Auth, ...]:
        return (self.auth, *self.extra_auth) if self.auth else ()

    def secret_forms(self) -> tuple[str, ...]:
        """Every form each credential travels in, so none of them comes back to the agent (E5 no internals)."""
        forms: list[str] = []
        sources = [(a.env, a.kind) for a in self.auths] + [
            (e, "value") for e in self.value_envs
        ]
        for env, kind in sources:
            secret = os.environ.get(env)
            if not secret:
                continue
            encoded = (
                base64.b64encode(secret.encode()).decode()
                if kind == "basic"
                else quote(secret, safe="")
            )
            forms += [secret, encoded]
        if self.tokens is not None:
            forms += self.tokens.secret_forms()
        return tuple(forms)


def build_request(
    upstream: Upstream,
    action: Action,
    values: Mapping[str, Any],
    idempotency_key: str | None = None,
    *,
    to_upstream: ToUpstream | None = None,
) -> httpx.Request:
    """`to_upstream`: in a package with units of its own (T5 parameter names), what turns an
    argument into the API's unit; without, every argument goes as the agent gave it."""
    # A resumed cursor goes upstream as the API's own.
    values = upstream_values(action.paging, values)
    path_values: dict[str, str] = {}
    query: list[tuple[str, str]] = []
    headers: dict[str, str] = {
        "accept": action.accept or "application/json",
        "accept-encoding": ACCEPT_ENCODING,
    }
    headers.update((name.lower(), value) for name, value in upstream.headers)
    # A before-hook's own headers (hooks.py), already checked to be str -> str.
    headers.update(
        (name.lower(), value) for name, value in values.get(HOOK_HEADERS, {}).items()
    )
    cookies: dict[str, str] = {}
    body: dict[str, Any] = {}
    form: list[tuple[str, str]] = []
    whole_body: Any = None
    placed, nested = _sent_values(action, values, to_upstream or _as_given)
    files: list[tuple[str, Any]] = []
    typed = {p.wire for p in action.params if p.style == "json"}
    for wire, at, value, style, explode in placed:
        if at == "path":
            path_values[wire] = _path_segment(value, style, explode)
        elif at == "query":
            query.extend(form_pairs(wire, value, style, explode))
        elif at == "header":
            headers[wire.lower()] = _simple(value, style, explode)
        elif at == "cookie":
            cookies[wire] = _simple(value, style, explode)
        elif style == "file":
            files.append((wire, value))
        elif at == "body":
            body[wire] = value
            # A form field holding an object with no style of its own carries it as JSON, typed so in a multipart part as an array's object items are (OpenAPI's default content type for an object; Twilio's Channel, Routing).
            json_object = style is None and isinstance(value, dict)
            items = value if isinstance(value, list) else [value]
            if style is None and any(isinstance(item, dict) for item in items):
                typed.add(wire)
            form.extend(
                form_pairs(wire, value, "json" if json_object else style, explode)
            )
        else:
            whole_body = value
    # Fields the mapping lifted out of their body object (T2 flat action enum).
    for wire, path, value in nested:
        _put_nested(body, wire, path, value)
    # An offset inside the body (a search sent by POST) is computed from page and limit too.
    place_offset(body, action.paging, values)
    query = merge_query(query, page_query(action.paging, values))
    url = upstream.base_url_for(action) + _PATH_PARAM.sub(
        lambda m: path_values[m.group(1)], action.path
    )
    _apply_auth(upstream, url, headers, query)
    # One key per logical request: the apply's (the same for every attempt of its preview) or a new one; a resend after a timeout sends this same request, key and all (E4 unknown outcome is not retry).
    key = idempotency_key or uuid.uuid4().hex
    key_header = _idempotency_header(upstream, action)
    if key_header:
        headers[key_header] = key
    if action.idempotency_body and whole_body is None:
        body[action.idempotency_body] = key
        form.append((action.idempotency_body, key))
    content = _content(action, body, whole_body, form, headers)
    content.update(_file_content(upstream, action, files, form, headers, typed))
    if cookies:
        headers["cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    return _request(action, url, tuple(query), headers, content, values)


def _fixed_value(fixed: Fixed) -> Any:
    """The mapping's value, or its environment variable's (P3 credentials: the agent never sees it)."""
    if fixed.env is None:
        return fixed.value
    value = os.environ.get(fixed.env)
    if not value:
        raise ToolError(
            f"the environment variable {fixed.env} is not set, so the server cannot send "
            f"{fixed.wire}, which the API needs ({fixed.at}).",
            f"This needs the user: set {fixed.env} in this MCP server's environment (for example in "
            f'the client\'s server config: "env": {{"{fixed.env}": "<value>"}}), restart the server '
            "and call again. The value is the user's to set, never an argument.",
            Recovery.NEEDS_HUMAN,
        )
    return value


def _request(
    action: Action,
    url: str,
    query: tuple[tuple[str, str], ...],
    headers: dict[str, str],
    content: dict[str, Any],
    values: Mapping[str, Any],
) -> httpx.Request:
    try:
        return httpx.Request(
            action.method, url, params=query, headers=headers, **content
        )
    except httpx.InvalidURL:
        raise _unsendable_address(action, values) from None


def _unsendable_address(action: Action, values: Mapping[str, Any]) -> ToolError:
    """A request whose address httpx refuses: too long (past 65,536 characters) or not one HTTP can
    carry; the longest path or query value is named, as the likely cause (E2 what, why, how)."""
    placed = [
        p.arg for p in action.params if p.at in ("path", "query") and p.arg in values
    ]
    longest = max(placed, key=lambda arg: len(str(values[arg])), default=None)
    blamed = (
        f" The longest value in it is {longest} ({len(str(values[longest]))} characters)."
        if longest is not None
        else ""
    )
    return ToolError(
        f"the request for '{action.name}' cannot be sent: its address (path and query) would be too "
        f"long for an HTTP request, or not one HTTP can carry.{blamed}",
        "Give shorter values for the path and query parameters (an id, not a document), and call again.",
        Recovery.FIX_INPUT,
    )


_PATH_PARAM = re.compile(r"\{([^{}]+)\}")


def _as_given(param: Param, values: Mapping[str, Any]) -> Any:
    return values[param.arg]


def _sent_values(
    action: Action, values: Mapping[str, Any], convert: ToUpstream
) -> tuple[
    list[tuple[str, str, Any, str | None, bool | None]],
    list[tuple[str, tuple[str, ...], Any]],
]:
    """What the request carries: (wire, location, value, style, explode) for each parameter and
    fixed value at its place, and (wire, path, value) for each field inside a body object."""
    placed: list[tuple[str, str, Any, str | None, bool | None]] = [
        (p.wire, p.at, convert(p, values), p.style, p.explode)
        for p in action.params
        if p.arg in values and not p.path
    ]
    placed += [
        (f.wire, f.at, _fixed_value(f), None, None) for f in action.fixed if not f.path
    ]
    nested = [
        (p.wire, p.path, convert(p, values))
        for p in action.params
        if p.path and p.arg in values
    ]
    nested += [(f.wire, f.path, _fixed_value(f)) for f in action.fixed if f.path]
    return placed, nested


def _content(
    action: Action,
    body: dict[str, Any],
    whole_body: Any,
    form: list[tuple[str, str]],
    headers: dict[str, str],
) -> dict[str, Any]:
    """httpx's body arguments for the action's encoding; a form also sets the content type."""
    content: dict[str, Any] = {}
    if action.body == "json" and (
        body or whole_body is not None or action.body_required
    ):
        content["json"] = body if whole_body is None else whole_body
    elif action.body == "form" and body:
        # Pairs, not a dict: an exploded array repeats its name (Twilio's Audiences=a&Audiences=b).
        content["content"] = urlencode(form)
        headers["content-type"] = "application/x-www-form-urlencoded"
    return content


def _file_content(
    upstream: Upstream,
    action: Action,
    files: list[tuple[str, Any]],
    form: list[tuple[str, str]],
    headers: dict[str, str],
    typed: set[str],
) -> dict[str, Any]:
    """httpx's body argument for a multipart or binary body (files.py reads and encodes it); `typed`: the parts of JSON text."""
    if upstream.files is None or action.body not in ("multipart", "binary"):
        return {}
    params = {p.wire: p.arg for p in action.params}
    named = [(wire, params.get(wire, wire), value) for wire, value in files]
    sent = upstream.files.body(action.body, form, named, frozenset(typed))
    if sent is None:
        return {}
    headers["content-type"] = sent[1]
    return {"content": sent[0]}


def _put_nested(
    body: dict[str, Any], wire: str, path: tuple[str, ...], value: Any
) -> None:
    """body[wire][path...] = value, beside what the agent passed in the object itself (copied, never
    changed in place)."""
    holder = body
    for key in (wire, *path[:-1]):
        inner = holder.get(key)
        holder[key] = dict(inner) if isinstance(inner, dict) else {}
        holder = holder[key]
    holder[path[-1]] = value


def _idempotency_header(upstream: Upstream, action: Action) -> str:
    """Where this action's idempotency key goes: the header its operation declares, or for a POST the
    server-wide one of the mapping; '' when it sends none."""
    if action.idempotency_header:
        return action.idempotency_header.lower()
    if upstream.idempotency_header and action.method == "POST":
        return upstream.idempotency_header.lower()
    return ""


def _carries_key(upstream: Upstream, action: Action, request: httpx.Request) -> bool:
    """The request holds an idempotency key, so sending it again makes the change at most once."""
    return bool(action.idempotency_body and action.body) or (
        _idempotency_header(upstream, action) in request.headers
    )


def _path_segment(
    value: Any, style: str | None = None, explode: bool | None = None
) -> str:
    # Encode everything, '/' included, so a value can never change which path is called; '.' and '..' alone are dot-segments that URL normalization would resolve, so encode them too.
    segment = quote(_simple(value, style, explode), safe="")
    return segment.replace(".", "%2E") if segment in (".", "..") else segment


def _scalar(value: Any) -> str:
    """One value as text: JSON for structure (never Python's `{'a': 1}`), true/false for booleans."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list) or value is None:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value)


_DELIMITERS = {"spaceDelimited": " ", "pipeDelimited": "|"}


def form_pairs(
    name: str, value: Any, style: str | None, explode: bool | None
) -> list[tuple[str, str]]:
    """A query parameter or form field as OpenAPI serializes it (style defaults to form, which
    explodes by default): arrays repeat the name or join with the style's delimiter, objects become
    their own fields (form, exploded), `name[key]` pairs (deepObject) or `k,v` lists; a parameter
    whose content is JSON carries JSON text."""
    if style == "json":
        return [(name, _scalar(value))]
    exploded = explode if explode is not None else style in (None, "form", "deepObject")
    if style == "deepObject" and isinstance(value, dict | list):
        return _deep_pairs(name, value)
    if isinstance(value, list):
        if exploded:
            return [(name, _scalar(item)) for item in value]
        return [(name, _DELIMITERS.get(style or "", ",").join(map(_scalar, value)))]
    if isinstance(value, dict):
        if exploded:
            return [(key, _scalar(item)) for key, item in value.items()]
        return [(name, ",".join(f"{k},{_scalar(v)}" for k, v in value.items()))]
    return [(name, _scalar(value))]


def _deep_pairs(name: str, value: Any, depth: int = 0) -> list[tuple[str, str]]:
    """deepObject: `filter[status]=open`; nested objects nest the brackets, list items are numbered
    (Stripe's `line_items[0][price]`, as Prism reads them too; bounded, as the arguments were checked to be)."""
    if isinstance(value, dict | list) and depth < 8:
        items = value.items() if isinstance(value, dict) else enumerate(value)
        pairs: list[tuple[str, str]] = []
        for key, item in items:
            pairs += _deep_pairs(f"{name}[{key}]", item, depth + 1)
        return pairs
    return [(name, _scalar(value))]


def _simple(value: Any, style: str | None, explode: bool | None) -> str:
    """Path, header and cookie values (style simple): arrays and objects as comma lists."""
    if style == "json":
        return _scalar(value)
    if isinstance(value, list):
        return ",".join(map(_scalar, value))
    if isinstance(value, dict):
        joiner = "=" if explode else ","
        return ",".join(f"{k}{joiner}{_scalar(v)}" for k, v in value.items())
    return _scalar(value)


def _apply_auth(
    upstream: Upstream, url: str, headers: dict[str, str], query: list[tuple[str, str]]
) -> None:
    for auth in upstream.auths:
        refuse_insecure(url, auth.allow_insecure, auth.env)
        _apply_one(auth, headers, query)


def _apply_one(
    auth: Auth, headers: dict[str, str], query: list[tuple[str, str]]
) -> None:
    secret = credential(auth.env, _CREDENTIAL_WORDS[auth.kind][1])
    if secret is None:
        raise missing_credential(auth)
    if auth.kind == "bearer":
        # A token set with its scheme word already ('Bearer abc') is sent as it is.
        has_word = secret[:7].lower() == "bearer "
        headers["authorization"] = secret if has_word else f"Bearer {secret}"
    elif auth.kind == "basic":
        headers["authorization"] = "Basic " + base64.b64encode(secret.encode()).decode()
    elif auth.at == "query":
        query.append((auth.name or "api_key", secret))
    elif auth.at == "body":
        return  # each body that declares it carries it (the action's Fixed, from the same variable)
    else:
        has_prefix = secret.lower().startswith(auth.prefix.lower())
        headers[(auth.name or "x-api-key").lower()] = (
            secret if has_prefix else auth.prefix + secret
        )


def missing_credential(auth: Auth) -> ToolError:
    """Reported when a tool is called, not at start-up: the server still starts and lists its tools (E3 which kind of recovery)."""
    article, what = _CREDENTIAL_WORDS[auth.kind]
    return ToolError(
        f"no credentials: the environment variable {auth.env} is not set, so the server cannot call the API.",
        f"This needs the user: 1. get {article} {what} for the API; 2. set {auth.env} to it in this MCP "
        f'server\'s environment (for example in the client\'s server config: "env": {{"{auth.env}": '
        f'"<your {what}>"}}); 3. restart the server and call again.',
        Recovery.NEEDS_PERMISSION,
    )


_CREDENTIAL_WORDS = {
    "bearer": ("an", "access token"),
    "api_key": ("an", "API key"),
    "basic": ("a", "user:password pair"),
}


async def send(
    client: httpx.AsyncClient,
    upstream: Upstream,
    request: httpx.Request,
    action: Action,
    subject: str = "",
) -> Answer:
    """Send with the configured timeout. Only a 2xx with a JSON body (or none) comes back; refusals,
    redirects, answers too big or not JSON, and network failures become errors that say what to do
    next (E2 what, why, how; E4 unknown outcome is not retry). A token the server obtains goes with
    it, and once more, new, when the API answers 401 invalid_token (the request was refused unread)."""
    tokens = upstream.tokens
    if tokens is None:
        answer = await _exchange(client, upstream, request, action)
    else:
        answer = await _with_token(client, upstream, tokens, request, action, subject)
    if answer.status_code >= 400:
        env = upstream.credential_env(subject)
        refused = http_error(answer, action, env, upstream.errors)
        if answer.status_code == 401:
            refused.how = _unprefixed_hint(upstream) + refused.how
        raise refused
    if answer.status_code >= 300:
        raise redirect_error(answer, action, upstream.base_url_env)
    # A file is no JSON, and one past the cap file_answers.py refuses with its size.
    if answer.problem and not (action.file and (answer.content or answer.too_big)):
        raise unusable_error(answer, action, upstream.base_url_env)
    failed = reported_failure(answer, action, upstream.errors)
    if failed is not None:  # a 2xx that says the call failed is no success
        raise failed
    return answer


async def _with_token(
    client: httpx.AsyncClient,
    upstream: Upstream,
    tokens: TokenSource,
    request: httpx.Request,
    action: Action,
    subject: str,
) -> Answer:
    refuse_insecure(str(request.url), tokens.allow_insecure, tokens.env)
    token = await tokens.token(client, subject)
    request.headers["authorization"] = f"Bearer {token}"
    answer = await _exchange(client, upstream, request, action)
    if answer.status_code == 401 and _invalid_token(answer):
        tokens.refused(token, subject)
        request.headers["authorization"] = (
            f"Bearer {await tokens.token(client, subject)}"
        )
        answer = await _exchange(client, upstream, request, action)
    return answer


def _invalid_token(answer: Answer) -> bool:
    """RFC 6750: an expired or revoked token is answered `WWW-Authenticate: Bearer error="invalid_token"`."""
    challenge = answer.headers.get("www-authenticate", "")
    return bool(re.search(r'error\s*=\s*"?invalid_token', challenge, re.IGNORECASE))


def _unprefixed_hint(upstream: Upstream) -> str:
    """A key sent as the whole Authorization header: many APIs want a scheme word before it."""
    auth = upstream.auth
    if auth is None or auth.kind != "api_key" or auth.at != "header" or auth.prefix:
        return ""
    if (auth.name or "").lower() != "authorization":
        return ""
    return (
        f"The key in {auth.env} is sent as the whole Authorization header, with no scheme word before "
        "it; if the API's documentation writes 'Authorization: Bearer <key>' (or Token), ask the user to "
        "add prefix: 'Bearer ' to server.auth and regenerate, or to set the variable to 'Bearer <key>'. "
    )


async def _exchange(
    client: httpx.AsyncClient,
    upstream: Upstream,
    request: httpx.Request,
    action: Action,
) -> Answer:
    """One exchange within the timeout. A request that carries an idempotency key is sent once more
    after a timeout, with the same key: the API applies it at most once (E4 unknown outcome is not retry).
    """
    try:
        return await _send_within_limit(client, upstream, request)
    except httpx.TimeoutException:
        if _carries_key(upstream, action, request):
            with contextlib.suppress(httpx.TransportError):
                return await _send_within_limit(client, upstream, request)
        if action.idempotent:
            raise ToolError(
                f"the API did not answer within {upstream.timeout_s:g} s.",
                "Wait a few seconds and call again.",
                Recovery.RETRY_LATER,
            ) from None
        # A change that timed out may still have happened (E4 unknown outcome is not retry): never tell the agent to retry it.
        check = action.check_with or "a read action of this server"
        raise ToolError(
            f"the API did not answer within {upstream.timeout_s:g} s, so the outcome of "
            f"'{action.name}' is unknown: it may or may not have taken effect.",
            f"Do not repeat '{action.name}' yet. Check with {check} whether the change happened, "
            "and only if it did not, call again.",
            Recovery.CHECK_OUTCOME,
        ) from None
    except httpx.TransportError as exc:
        port = f":{request.url.port}" if request.url.port else ""
        where = f"{request.url.scheme}://{request.url.host}{port}"  # never the userinfo (E5 no internals)
        if not action.idempotent and not isinstance(exc, httpx.ConnectError):
            # The request may have arrived before the connection broke (E4 unknown outcome is not retry).
            check = action.check_with or "a read action of this server"
            raise ToolError(
                f"the connection to the API at {where} broke ({type(exc).__name__}), so the outcome of "
                f"'{action.name}' is unknown: it may or may not have taken effect.",
                f"Do not repeat '{action.name}' yet. Check with {check} whether the change happened.",
                Recovery.CHECK_OUTCOME,
            ) from None
        raise ToolError(
            f"cannot reach the API at {where} ({type(exc).__name__}).",
            f"Wait and retry; if it keeps failing, ask the user to check that the API is up and that "
            f"{upstream.base_url_env} points at it.",
            Recovery.RETRY_LATER,
        ) from None


class UpstreamClients:
    """A few small connection pools to the API, each call on the least busy one. httpcore checks every
    pooled connection for expiry on each request, so one pool holding 50 kept-alive connections spent
    about a third of a loaded server's CPU on that scan; pools of a few connections keep it short. A
    lone caller always gets the first pool, so its calls share one kept-alive connection. The pools
    share one TLS context: the CA bundle is read once."""

    POOLS = 8

    def __init__(self, timeout_s: float) -> None:
        self._timeout_s = timeout_s
        self._clients: list[httpx.AsyncClient | None] = [None] * self.POOLS
        self._busy = [0] * self.POOLS
        self._tls: Any = None

    @contextlib.contextmanager
    def lease(self) -> Iterator[httpx.AsyncClient]:
        """The least busy pool's client for one exchange (with: the count goes back down after it)."""
        index = self._busy.index(min(self._busy))
        client = self._clients[index] or self._open(index)
        self._busy[index] += 1
        try:
            yield client
        finally:
            self._busy[index] -= 1

    def _open(self, index: int) -> httpx.AsyncClient:
        if self._tls is None:
            self._tls = httpx.create_ssl_context()
        # Every upstream call has a timeout (P5 timeouts); the SDK never sees the upstream's credentials.
        client = httpx.AsyncClient(
            timeout=self._timeout_s, follow_redirects=False, verify=self._tls
        )
        self._clients[index] = client
        return client


# A body this small parses in well under a millisecond: a hop to a worker thread would cost more.
_PARSE_INLINE_BYTES = 64 * 1024


async def _send_within_limit(
    client: httpx.AsyncClient, upstream: Upstream, request: httpx.Request
) -> Answer:
    """httpx's timeout bounds each connect and read; this bounds the whole exchange: the answer, however
    slowly the API trickles it, and its parsing (P5 timeouts). The body is read as a stream and never past
    `max_body_bytes`; one over 64 KiB is parsed in a worker thread, so a large one cannot stall other calls."""
    with anyio.move_on_after(upstream.timeout_s):
        response = await client.send(request, stream=True)
        try:
            content = await _read_capped(response, upstream.max_body_bytes)
        except UnreadableEncoding as exc:
            coding = str(exc)[:40] or "?"
            unread = f"encoded as {coding!r}, which this server does not decode"
            return Answer.of(response, b"", problem=unread)
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()
        if content is None:
            too_big = f"more than {_megabytes(upstream.max_body_bytes)}"
            return Answer.of(response, b"", problem=too_big, too_big=True)
        if len(content) <= _PARSE_INLINE_BYTES:
            data, problem = decode_body(content, upstream.secret_forms())
        else:
            data, problem = await anyio.to_thread.run_sync(
                decode_body, content, upstream.secret_forms(), abandon_on_cancel=True
            )
        return Answer.of(response, content, data=data, problem=problem)
    raise httpx.ReadTimeout(
        "the exchange took longer than the timeout", request=request
    )


async def _read_capped(response: httpx.Response, limit: int) -> bytes | None:
    """The body decoded, or None as soon as it is past `limit` bytes (the rest is never read). The cap
    counts decoded bytes: a small gzip answer that would expand to gigabytes is cut at the cap, and
    never decoded further than one byte past it (P5 timeouts)."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    decoder = _BoundedDecoder(response.headers.get("content-encoding", ""), limit)
    raw = 0
    async for chunk in response.aiter_raw():
        raw += len(chunk)
        if raw > limit or not decoder.feed(chunk):
            return None
    return decoder.finish()


# What this server asks for and decodes itself, within the cap; httpx's own decoders have no output
# bound, and br or zstd it would decode only when an optional package happens to be installed.
ACCEPT_ENCODING = "gzip, deflate"
_PIECE_BYTES = 256 * 1024  # decoded at a time, so the peak stays near the cap itself
_WBITS = {
    "gzip": zlib.MAX_WBITS | 16,
    "x-gzip": zlib.MAX_WBITS | 16,
    "deflate": zlib.MAX_WBITS,
}


class UnreadableEncoding(Exception):
    """The answer is encoded in a way this server does not decode (br, zstd, compress, or broken)."""


class _BoundedDecoder:
    """Content-Encoding undone chunk by chunk, in pieces of at most _PIECE_BYTES, never holding more
    than `limit` + 1 decoded bytes."""

    def __init__(self, encoding: str, limit: int):
        codings = [c.strip().lower() for c in encoding.split(",")]
        codings = [c for c in codings if c and c != "identity"]
        unknown = [c for c in codings if c not in _WBITS]
        if unknown or len(codings) > 1:
            raise UnreadableEncoding(encoding.strip())
        self.coding = codings[0] if codings else ""
        self.limit = limit
        self.body = bytearray()
        self._inflater = (
            zlib.decompressobj(_WBITS[self.coding]) if self.coding else None
        )
        self._started = False

    def feed(self, chunk: bytes) -> bool:
        """False once the decoded body is past the limit."""
        if self._inflater is None:
            self.body += chunk
            return len(self.body) <= self.limit
        data = chunk
        while data:
            room = min(self.limit + 1 - len(self.body), _PIECE_BYTES)
            try:
                self.body += self._inflater.decompress(data, room)
            except zlib.error:
                if self.coding == "deflate" and not self._started:
                    # Some servers send raw deflate without the zlib header (as httpx allows).
                    self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                    self._started = True
                    continue
                raise UnreadableEncoding(self.coding) from None
            self._started = True
            if len(self.body) > self.limit:
                return False
            data = self._inflater.unconsumed_tail
        return True

    def finish(self) -> bytes | None:
        if self._inflater is not None:
            self.body += self._inflater.flush(self.limit + 1 - len(self.body))
        return bytes(self.body) if len(self.body) <= self.limit else None


def _megabytes(count: int) -> str:
    return f"{count / 1024 / 1024:g} MB" if count >= 1024 * 1024 else f"{count} bytes"
