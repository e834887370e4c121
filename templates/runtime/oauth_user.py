"""Each user's own upstream token: OAuth 2.0 authorization code with PKCE (RFC 6749 4.1, RFC 7636), linked
through a URL-mode elicitation (P3 credentials: the caller's MCP token never goes upstream, and one
user's upstream token never serves another).

A caller (the `server.access` token's subject) with no link gets a URL-mode elicitation instead of a
result: the API's sign-in page, which sends the browser back to this server's `GET /oauth/callback`.
`state` names a one-time record of who asked (taken on first use: a replayed callback is refused) and is
signed (a tampered one is refused before the store is read). The tokens are kept encrypted (AES-GCM,
the key from `MCP_TOKEN_KEY`, each record bound to its owner's key name) in the store every replica
shares, refreshed when they expire (a rotated refresh token replaces the old one), and removed by
`POST /oauth/unlink`; `GET /oauth/link` says whether the caller is linked.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections import deque
from typing import Any
from urllib.parse import urlencode

import anyio
import httpx
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import ElicitRequestURLParams

from .callers import current_caller
from .credentials import credential
from .errors import Recovery, ToolError
from .oauth_client import (
    MAX_MARGIN_S,
    TokenRefused,
    access_token,
    token_request,
    unset_client,
)
from .store import PreviewStore, open_store

log = logging.getLogger("mcp_server")

TOKEN_KEY_ENV = "MCP_TOKEN_KEY"  # encrypts the stored tokens; the same on every replica
PUBLIC_URL_ENV = (
    "MCP_PUBLIC_URL"  # where users' browsers reach this server (the balancer's address)
)
CALLBACK_PATH = "/oauth/callback"
LINK_PATH = "/oauth/link"
UNLINK_PATH = "/oauth/unlink"
PENDING_S = 600.0  # a sign-in link works this long, once
KEPT_S = 90 * 86400.0  # a link is kept this long after its last refresh
KEPT_FOR_REDACTION = 16
# One replica refreshes a user's token at a time: it holds a lease for as long as a token request may
# take (the client's timeout) and REFRESH_SPARE_S more; the others read the store every REFRESH_POLL_S
# until the new token is there, or the lease ran out and is theirs to take.
REFRESH_SPARE_S = 5.0
REFRESH_WAIT_S = 10.0
REFRESH_POLL_S = 0.2


class UserTokens:
    """`server.auth: {type: oauth2_user, ...}`: a token for each caller, linked by that caller."""

    def __init__(
        self,
        *,
        package: str,
        authorization_url: str,
        token_url: str,
        client_id_env: str,
        client_secret_env: str | None = None,
        revocation_url: str | None = None,
        scopes: tuple[str, ...] = (),
        allow_insecure: bool = False,
        token_env: str | None = None,
    ) -> None:
        self.package = package
        # A token from the environment for a call that comes with no user (stdio, no server.access): the
        # deployment's own account, as a bearer token would be; a user's call always uses their link.
        self.token_env = token_env
        self.authorization_url = authorization_url
        self.token_url = token_url
        self.client_id_env = client_id_env
        self.client_secret_env = client_secret_env
        self.env = client_secret_env or client_id_env
        self.revocation_url = revocation_url
        self.scopes = scopes
        self.allow_insecure = allow_insecure
        self._store: PreviewStore | None = None
        self._locks: dict[str, anyio.Lock] = {}
        self._stale: set[str] = set()  # tokens the API refused (401 invalid_token)
        self._seen: deque[str] = deque(maxlen=KEPT_FOR_REDACTION)

    # --- the token source (upstream.TokenSource) -------------------------------------------------

    async def token(self, client: httpx.AsyncClient, subject: str) -> str:
        """The caller's upstream token, refreshed when it has expired; a URL-mode elicitation when
        the caller has not linked one (or the API no longer honours the link)."""
        if not subject and self.token_env:
            # A client config's placeholder is refused here, naming the variable.
            fixed = credential(self.token_env, "token of the API")
            if fixed and fixed.strip():
                return self._seen_token(fixed.strip())
        name = _link_name(_required(subject, self.token_env))
        link = await self._read(name)
        if link is not None and self._fresh(link):
            return self._seen_token(link["access_token"])
        async with self._locks.setdefault(name, anyio.Lock()):
            return await self._renewed(client, name, subject)

    async def _renewed(self, client: httpx.AsyncClient, name: str, subject: str) -> str:
        """The link's token, refreshed by exactly one replica at a time: the one holding the store's
        lease refreshes (with the refresh token it reads after taking the lease), the others wait and
        read what it wrote. An API that rotates refresh tokens takes a rotated one used again as a
        replay and revokes the whole grant, so two refreshes at once would unlink the user."""
        owner = secrets.token_urlsafe(12)
        lease_s = (client.timeout.read or 30.0) + REFRESH_SPARE_S
        deadline = time.monotonic() + lease_s + REFRESH_WAIT_S
        while True:
            # Another call or replica may have refreshed it, or be refreshing it now.
            link = await self._stored(name, subject)
            if self._fresh(link):
                return self._seen_token(link["access_token"])
            if await self._store_().lease(name, owner, lease_s):
                break
            if time.monotonic() > deadline:
                raise _refresh_stuck()
            await anyio.sleep(REFRESH_POLL_S)
        try:
            # What was written between the read above and the lease is what to refresh from.
            link = await self._stored(name, subject)
            if self._fresh(link):
                return self._seen_token(link["access_token"])
            return await self._refresh(client, name, subject, link)
        finally:
            with anyio.CancelScope(shield=True):
                await self._store_().release_lease(name, owner)

    async def _stored(self, name: str, subject: str) -> dict[str, Any]:
        """The caller's link as stored; a URL-mode elicitation when there is none that can be refreshed."""
        link = await self._read(name)
        if link is None or (not link.get("refresh_token") and not self._fresh(link)):
            raise await self._link_required(subject)
        return link

    async def _refresh(
        self, client: httpx.AsyncClient, name: str, subject: str, link: dict[str, Any]
    ) -> str:
        try:
            answer = await self._grant(
                client,
                {"grant_type": "refresh_token", "refresh_token": link["refresh_token"]},
            )
        except TokenRefused as refused:
            if refused.code != "invalid_grant":
                raise
            # Revoked or expired at the API: link again.
            await self._store_().delete_value(name)
            raise await self._link_required(subject) from None
        renewed = self._link_of(answer, link.get("refresh_token"))
        await self._write(name, renewed)
        return self._seen_token(renewed["access_token"])

    def refused(self, token: str, subject: str) -> None:
        self._stale.add(token)

    def refused_env(self, subject: str) -> str:
        # A call with no user sent the environment's token; a user's, their link's (the client's).
        return self.token_env if not subject and self.token_env else self.env

    def secret_forms(self) -> tuple[str, ...]:
        secret = (
            os.environ.get(self.client_secret_env) if self.client_secret_env else None
        )
        return (*self._seen, *((secret,) if secret else ()))

    async def described(self, subject: str) -> list[dict[str, Any]]:
        linked = bool(subject) and await self._read(_link_name(subject)) is not None
        envs = [
            e for e in (self.client_id_env, self.client_secret_env, self.token_env) if e
        ]
        return [
            {
                "env": env,
                "kind": "oauth2_user",
                "configured": bool(os.environ.get(env)),
                "linked": linked,
            }
            for env in envs
        ]

    def routes(self) -> list[Any]:
        from starlette.routing import Route

        return [
            Route(CALLBACK_PATH, self.callback, methods=["GET"]),
            Route(LINK_PATH, self.link_status, methods=["GET"]),
            Route(UNLINK_PATH, self.link_status, methods=["POST"]),
        ]

    # --- linking ------------------------------------------------------------------------------------

    async def _link_required(self, subject: str) -> UrlElicitationRequiredError:
        """A one-time sign-in link for this caller, as a URL-mode elicitation (the MCP client opens it)."""
        redirect_uri = _public_url() + CALLBACK_PATH
        client_id = self._client_id()
        nonce = secrets.token_urlsafe(24)
        verifier = secrets.token_urlsafe(48)
        pending = {
            "subject": subject,
            "verifier": verifier,
            "redirect_uri": redirect_uri,
        }
        await self._store_().put_value(
            f"pending:{nonce}",
            _seal(f"pending:{nonce}", pending),
            time.time() + PENDING_S,
        )
        challenge = (
            base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            .rstrip(b"=")
            .decode()
        )
        query = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "state": f"{nonce}.{_sign(nonce)}",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            **({"scope": " ".join(self.scopes)} if self.scopes else {}),
        }
        url = f"{self.authorization_url}{'&' if '?' in self.authorization_url else '?'}{urlencode(query)}"
        message = (
            "This server calls the API as you: link your account at the API's sign-in page, then call again. "
            f"Open: {url}"
        )
        asked = ElicitRequestURLParams(
            mode="url", message=message, url=url, elicitation_id=nonce
        )
        return UrlElicitationRequiredError([asked], message)

    async def callback(self, request: Any) -> Any:
        """`GET /oauth/callback?code&state`: the API's sign-in sends the browser here. The state must be
        one this server signed and not yet used; the code is exchanged with its PKCE verifier."""
        from starlette.responses import HTMLResponse

        state, code = (
            request.query_params.get("state", ""),
            request.query_params.get("code", ""),
        )
        nonce, _, signature = state.partition(".")
        if not nonce or not hmac.compare_digest(signature, _sign(nonce)):
            return HTMLResponse(
                _page("This sign-in link is not one this server made."), status_code=400
            )
        sealed = await self._store_().take_value(f"pending:{nonce}")
        if sealed is None:
            return HTMLResponse(
                _page("This sign-in link was already used or has expired: ask again."),
                400,
            )
        pending = _open(f"pending:{nonce}", sealed)
        if request.query_params.get("error") or not code:
            return HTMLResponse(
                _page("The API's sign-in did not grant access; nothing was linked."),
                400,
            )
        fields = {"grant_type": "authorization_code", "code": code, "redirect_uri": pending["redirect_uri"],
                  "code_verifier": pending["verifier"]}  # fmt: skip
        try:
            async with httpx.AsyncClient(
                timeout=30.0, follow_redirects=False
            ) as client:
                answer = await self._grant(client, fields)
        except ToolError as exc:
            return HTMLResponse(_page(f"Linking failed: {exc.what}"), status_code=502)
        await self._write(_link_name(pending["subject"]), self._link_of(answer, None))
        log.info("a user linked their account at the API")
        return HTMLResponse(
            _page("Your account is linked. Return to your assistant and call again.")
        )

    async def link_status(self, request: Any) -> Any:
        """`GET /oauth/link`: whether the caller (by their MCP token) is linked; `POST /oauth/unlink`
        unlinks, and revokes the refresh token at the API when the mapping names its revocation endpoint."""
        from starlette.responses import JSONResponse

        caller = current_caller()
        if caller is None or not caller.subject:
            return JSONResponse(
                {"error": "a bearer token of this server is needed"}, status_code=401
            )
        name = _link_name(caller.subject)
        if request.url.path == UNLINK_PATH:
            link = await self._read(name)
            await self._store_().delete_value(name)
            if link is not None:
                await self._revoke(link)
            return JSONResponse({"linked": False})
        return JSONResponse({"linked": await self._read(name) is not None})

    # --- helpers ------------------------------------------------------------------------------------

    async def _grant(
        self, client: httpx.AsyncClient, fields: dict[str, str]
    ) -> dict[str, Any]:
        secret = (
            credential(self.client_secret_env, "client secret")
            if self.client_secret_env
            else None
        )
        if self.client_secret_env and not secret:
            raise unset_client([self.client_secret_env])
        return await token_request(
            client,
            self.token_url,
            fields,
            self._client_id(),
            secret,
            self.allow_insecure,
            self.env,
        )

    def _client_id(self) -> str:
        client_id = credential(self.client_id_env, "client id")
        if not client_id:
            raise unset_client([self.client_id_env])
        return client_id

    def _link_of(
        self, answer: dict[str, Any], previous_refresh: str | None
    ) -> dict[str, Any]:
        token, lifetime = access_token(
            answer, self.token_url, self.client_id_env, self.env
        )
        refresh = (
            answer.get("refresh_token")
            if isinstance(answer.get("refresh_token"), str)
            else None
        )
        margin = min(MAX_MARGIN_S, lifetime / 10)
        return {"access_token": token, "refresh_token": refresh or previous_refresh,
                "renew_at": time.time() + lifetime - margin}  # fmt: skip

    def _fresh(self, link: dict[str, Any]) -> bool:
        return (
            time.time() < float(link.get("renew_at", 0))
            and link["access_token"] not in self._stale
        )

    def _seen_token(self, token: str) -> str:
        if token not in self._seen:
            self._seen.append(token)
        return token

    async def _read(self, name: str) -> dict[str, Any] | None:
        sealed = await self._store_().get_value(name)
        return _open(name, sealed) if sealed is not None else None

    async def _write(self, name: str, link: dict[str, Any]) -> None:
        await self._store_().put_value(name, _seal(name, link), time.time() + KEPT_S)

    async def _revoke(self, link: dict[str, Any]) -> None:
        """RFC 7009, best effort: the link is gone here whatever the API answers."""
        if not self.revocation_url:
            return
        token = link.get("refresh_token") or link["access_token"]
        secret = (
            os.environ.get(self.client_secret_env) if self.client_secret_env else None
        )
        client_id = os.environ.get(self.client_id_env, "")
        data = {"token": token, **({} if secret else {"client_id": client_id})}
        auth: Any = (client_id, secret) if secret else None
        try:
            async with httpx.AsyncClient(timeout=10.0) as client:
                await client.post(self.revocation_url, data=data, auth=auth)
        except httpx.HTTPError as exc:
            log.warning(
                "revoking an unlinked token at the API failed (%s)", type(exc).__name__
            )

    def _store_(self) -> PreviewStore:
        if self._store is None:
            self._store = open_store(self.package)
        return self._store


def _required(subject: str, token_env: str | None) -> str:
    if not subject:
        fallback = (
            f", or set {token_env} to a token of the API and restart the server"
            if token_env
            else ""
        )
        raise ToolError(
            "this server calls the API with each user's own account, and this call has no user: it did not "
            "come over HTTP with an access token of this server.",
            f"Connect over HTTP with a token issued for this server (server.access){fallback}, then call again.",
            Recovery.NEEDS_HUMAN,
        )
    return subject


def _refresh_stuck() -> ToolError:
    return ToolError(
        "this user's API token is being refreshed by another replica of this server, and the refresh "
        "did not finish in time.",
        "Wait a few seconds and call again.",
        Recovery.RETRY_LATER,
    )


def _link_name(subject: str) -> str:
    return "link:" + hashlib.sha256(subject.encode()).hexdigest()


def _public_url() -> str:
    url = os.environ.get(PUBLIC_URL_ENV, "").strip().rstrip("/")
    if not url.startswith(("https://", "http://")):
        raise ToolError(
            f"this server cannot send users to the API's sign-in page: {PUBLIC_URL_ENV} is not set.",
            f"Ask the user to set {PUBLIC_URL_ENV} to the address browsers reach this server at (the balancer's, "
            f"e.g. https://mcp.example.com), register <that address>{CALLBACK_PATH} as a redirect URI of the "
            "API's OAuth client, and restart the server.",
            Recovery.NEEDS_HUMAN,
        )
    return url


def _key() -> bytes:
    value = os.environ.get(TOKEN_KEY_ENV, "").strip()
    if len(value) < 32:
        raise ToolError(
            f"users' API tokens cannot be stored: {TOKEN_KEY_ENV} is not set to a key of 32+ characters.",
            f"Ask the user to set {TOKEN_KEY_ENV} to a random value (openssl rand -hex 32), the same on every "
            "replica and kept across restarts, and restart the server.",
            Recovery.NEEDS_HUMAN,
        )
    return hashlib.sha256(b"mcp-token-key\0" + value.encode()).digest()


def _sign(nonce: str) -> str:
    digest = hmac.new(_key(), b"state\0" + nonce.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _seal(name: str, value: dict[str, Any]) -> str:
    """AES-GCM with the record's name as associated data: a record copied under another user's name
    does not open."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = secrets.token_bytes(12)
    sealed = AESGCM(_key()).encrypt(nonce, json.dumps(value).encode(), name.encode())
    return base64.b64encode(nonce + sealed).decode()


def _open(name: str, sealed: str) -> dict[str, Any]:
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    raw = base64.b64decode(sealed)
    try:
        opened: dict[str, Any] = json.loads(
            AESGCM(_key()).decrypt(raw[:12], raw[12:], name.encode())
        )
    except InvalidTag:
        raise ToolError(
            f"a stored link does not open with the current {TOKEN_KEY_ENV} (the key changed).",
            "Ask the user to link their account again, or to restore the previous key.",
            Recovery.NEEDS_HUMAN,
        ) from None
    return opened


def _page(text: str) -> str:
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"<!doctype html><meta charset=utf-8><title>Link</title><p>{escaped}</p>"
