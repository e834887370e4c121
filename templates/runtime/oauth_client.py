"""A token the server obtains with its own OAuth 2.0 client credentials (RFC 6749 section 4.4), sent
upstream as a bearer token (P3 credentials: the server's own credentials, never the caller's token).

The token is kept until shortly before it expires and fetched again then, or at once when the API
answers 401 invalid_token to it. Concurrent calls at a cold cache wait for one token request. The
token, the client secret and the token endpoint's answer are never logged or returned (E5 no internals).
"""

from __future__ import annotations

import base64
import json
import logging
import os
import time
from collections import deque
from typing import Any
from urllib.parse import quote, urlsplit

import anyio
import httpx

from .credentials import credential, refuse_insecure
from .errors import Recovery, ToolError

log = logging.getLogger("mcp_server")

# Without `expires_in`, a token is kept this long at most (or until the API refuses it).
DEFAULT_LIFETIME_S = 3600.0
# Renewed this long before it expires: a tenth of its lifetime, at most a minute.
MAX_MARGIN_S = 60.0
MAX_TOKEN_ANSWER_BYTES = 64 * 1024
KEPT_FOR_REDACTION = 4  # tokens of this server a late answer could still echo


class ClientCredentials:
    """`server.auth: {type: oauth2_client_credentials, ...}`: one token for the whole server."""

    def __init__(
        self,
        *,
        token_url: str,
        client_id_env: str,
        client_secret_env: str,
        scopes: tuple[str, ...] = (),
        allow_insecure: bool = False,
    ) -> None:
        self.token_url = token_url
        self.client_id_env = client_id_env
        self.env = client_secret_env
        self.scopes = scopes
        self.allow_insecure = allow_insecure
        self._token: str | None = None
        self._renew_at = 0.0
        self._lock: anyio.Lock | None = None
        self._issued: deque[str] = deque(maxlen=KEPT_FOR_REDACTION)

    async def token(self, client: httpx.AsyncClient, subject: str = "") -> str:
        """The current token, fetched once for all the calls waiting on a cold or expired cache."""
        if self._token is not None and time.monotonic() < self._renew_at:
            return self._token
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            if self._token is not None and time.monotonic() < self._renew_at:
                return self._token  # another call fetched it while this one waited
            client_id, secret = self._client()
            fields = {"grant_type": "client_credentials"}
            if self.scopes:
                fields["scope"] = " ".join(self.scopes)
            answer = await token_request(
                client,
                self.token_url,
                fields,
                client_id,
                secret,
                self.allow_insecure,
                self.env,
            )
            token, lifetime = access_token(
                answer, self.token_url, self.client_id_env, self.env
            )
            self._token = token
            self._renew_at = (
                time.monotonic() + lifetime - min(MAX_MARGIN_S, lifetime / 10)
            )
            self._issued.append(token)
            log.info(
                "obtained an access token from %s, valid %.0f s",
                _host(self.token_url),
                lifetime,
            )
            return token

    def refused(self, token: str, subject: str = "") -> None:
        """The API refused this token (401 invalid_token): the next call fetches a new one. A token
        already replaced by another call's refresh is left alone, so one refusal makes one refresh."""
        if token == self._token:
            self._token = None

    def refused_env(self, subject: str = "") -> str:
        return self.env

    def routes(self) -> list[Any]:
        return []  # nothing to serve: the server's own client needs no user

    async def described(self, subject: str = "") -> list[dict[str, Any]]:
        return [
            {
                "env": env,
                "kind": "oauth2_client_credentials",
                "configured": bool(os.environ.get(env)),
            }
            for env in (self.client_id_env, self.env)
        ]

    def secret_forms(self) -> tuple[str, ...]:
        forms = list(self._issued)
        secret = os.environ.get(self.env)
        if secret:
            forms += [secret, quote(secret, safe="")]
        return tuple(forms)

    def _client(self) -> tuple[str, str]:
        client_id = credential(self.client_id_env, "client id")
        secret = credential(self.env, "client secret")
        unset = [
            env
            for env, value in ((self.client_id_env, client_id), (self.env, secret))
            if not value
        ]
        if unset:
            raise unset_client(unset)
        return str(client_id), str(secret)


class TokenRefused(ToolError):
    """The token endpoint refused the grant; `code` is its RFC 6749 error code ('invalid_grant')."""

    def __init__(
        self, what: str, how: str, recovery: Recovery, code: str | None
    ) -> None:
        super().__init__(what, how, recovery)
        self.code = code


def unset_client(unset: list[str]) -> ToolError:
    """Reported when a tool is called, not at start-up (E3 which kind of recovery)."""
    names = " and ".join(unset)
    return ToolError(
        f"no credentials: {names} {'is' if len(unset) == 1 else 'are'} not set, so the server cannot get "
        "an access token for the API.",
        f"This needs the user: 1. register this server as an OAuth client at the API; 2. set {names} "
        "to its client id and secret in this MCP server's environment; 3. restart the server and call again.",
        Recovery.NEEDS_PERMISSION,
    )


async def token_request(
    client: httpx.AsyncClient,
    token_url: str,
    fields: dict[str, str],
    client_id: str,
    secret: str | None,
    allow_insecure: bool,
    env: str,
) -> dict[str, Any]:
    """POST to the token endpoint; its JSON answer, or an error that says what to do (RFC 6749 5.2).
    A confidential client authenticates with HTTP Basic (RFC 6749 2.3.1); a public one sends its id."""
    refuse_insecure(token_url, allow_insecure, env)
    headers = {"accept": "application/json"}
    if secret is not None:
        pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"
        headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    else:
        fields = {**fields, "client_id": client_id}
    try:
        with anyio.fail_after(client.timeout.read or 30.0):
            async with client.stream(
                "POST", token_url, data=fields, headers=headers
            ) as response:
                content = await _read_small(response)
    except (httpx.HTTPError, TimeoutError) as exc:
        raise ToolError(
            f"cannot reach the API's token endpoint at {_host(token_url)} ({type(exc).__name__}).",
            "Wait and retry; if it keeps failing, tell the user the API's sign-in service is unavailable.",
            Recovery.RETRY_LATER,
        ) from None
    body = _json(content)
    if response.status_code >= 400 or not isinstance(body, dict):
        raise _token_refused(response.status_code, body, token_url, env)
    return body


def access_token(
    answer: dict[str, Any], token_url: str, client_id_env: str, env: str
) -> tuple[str, float]:
    """The token and how long it lives, in seconds, from a token endpoint's answer (RFC 6749 5.1)."""
    token = answer.get("access_token")
    kind = str(answer.get("token_type", "bearer")).lower()
    if not isinstance(token, str) or not token or kind not in ("bearer", "dpop", "n_a"):
        raise ToolError(
            f"the token endpoint at {_host(token_url)} answered without a bearer access token.",
            f"This needs the user: check that {client_id_env} and {env} belong to a client of this API "
            "allowed this grant, then restart the server.",
            Recovery.NEEDS_HUMAN,
        )
    expires = answer.get("expires_in")
    lifetime = (
        float(expires)
        if isinstance(expires, int | float) and expires > 0
        else DEFAULT_LIFETIME_S
    )
    return token, min(lifetime, 366 * 86400.0)


def _token_refused(status: int, body: Any, token_url: str, env: str) -> TokenRefused:
    """RFC 6749 5.2 error codes, as what to do next; the description is the API's own words."""
    code = body.get("error") if isinstance(body, dict) else None
    said = body.get("error_description") if isinstance(body, dict) else None
    words = (
        f" ({code}: {str(said)[:200]})"
        if code and said
        else f" ({code})"
        if code
        else ""
    )
    where = _host(token_url)
    code = code if isinstance(code, str) else None
    if status >= 500 or status == 429:
        return TokenRefused(
            f"the API's token endpoint at {where} failed (HTTP {status}){words}.",
            "Wait a minute and retry; if it keeps failing, tell the user the API's sign-in service is down.",
            Recovery.RETRY_LATER,
            code,
        )
    if code == "invalid_scope":
        return TokenRefused(
            f"the API's token endpoint at {where} refused the scopes this server asks for{words}.",
            "This needs the user: allow this client those scopes at the API, or change the scopes in "
            "server.auth and regenerate.",
            Recovery.NEEDS_PERMISSION,
            code,
        )
    return TokenRefused(
        f"the API's token endpoint at {where} refused this server's credentials (HTTP {status}){words}.",
        f"This needs the user: check the client id and secret (the secret is in {env}) and that the "
        "client may use this grant, then restart the server. Calling again before that fails the same way.",
        Recovery.NEEDS_PERMISSION,
        code,
    )


async def _read_small(response: httpx.Response) -> bytes:
    """The answer's body, or b'' past MAX_TOKEN_ANSWER_BYTES (never read further: P5 timeouts)."""
    content = bytearray()
    async for chunk in response.aiter_bytes():
        content += chunk
        if len(content) > MAX_TOKEN_ANSWER_BYTES:
            return b""
    return bytes(content)


def _json(content: bytes) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return None


def _host(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}" + (
        f":{parts.port}" if parts.port else ""
    )
