"""Who may call the server over streamable HTTP (P3 credentials).

Every HTTP request needs a bearer token issued for this server: a JWT whose issuer and audience
are checked, signed with a key from the server's environment (MCP_AUTH_JWT_SECRET for HS256, or
MCP_AUTH_JWKS_URL for keys published as a JWKS, https:// or file://). The SDK's bearer middleware
refuses requests without a valid token; this module verifies tokens for it, and callers.py hides the
tools a token lacks the scopes for and checks those scopes again on every call: hiding is a
convenience, the check is the protection. A package carries this module (and depends on PyJWT) only
when its mapping sets `server.access`. The caller's token is only read here; requests to the upstream API
carry the server's own credentials, never the caller's.

stdio is not checked: its caller is the user who started the server.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

import anyio.to_thread
import jwt
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from pydantic import AnyHttpUrl

log = logging.getLogger("mcp_server")

SECRET_ENV = "MCP_AUTH_JWT_SECRET"
JWKS_ENV = "MCP_AUTH_JWKS_URL"
_ASYMMETRIC = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256", "EdDSA"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Access:
    issuer: str
    audience: str  # this server's resource URL
    scopes: tuple[str, ...] = ()  # needed by every request

    def http_auth(self) -> dict[str, Any]:
        return http_auth(self)


class JwtVerifier:
    """The SDK's TokenVerifier for JWTs issued to this server; any failure means "no valid token"."""

    def __init__(self, access: Access, secret: str | None, jwks_url: str | None):
        self.access = access
        self._secret = secret
        self._jwks: jwt.PyJWKClient | None = None
        self._key_set: jwt.PyJWKSet | None = None
        if jwks_url and jwks_url.startswith("file://"):
            self._key_set = _key_set_file(jwks_url)  # read once, at start-up
        elif jwks_url:
            self._jwks = jwt.PyJWKClient(jwks_url)  # fetched and cached by PyJWT

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            if self._key_set is not None:
                key: Any = _by_kid(self._key_set, token).key
                algorithms = _ASYMMETRIC
            elif self._jwks is not None:
                signing_key = await anyio.to_thread.run_sync(
                    self._jwks.get_signing_key_from_jwt, token
                )
                key = signing_key.key
                algorithms = _ASYMMETRIC
            else:
                key, algorithms = self._secret, ["HS256"]
            claims = jwt.decode(
                token,
                key,
                algorithms=algorithms,
                audience=self.access.audience,
                issuer=self.access.issuer,
                options={"require": ["exp", "iss", "aud"]},
            )
        except (jwt.PyJWTError, OSError, KeyError) as exc:
            # The reason, never the token (E5 no internals).
            log.info("refused a bearer token: %s", type(exc).__name__)
            return None
        subject = claims.get("sub")
        client_id = claims.get("client_id") or claims.get("azp") or subject or "unknown"
        return AccessToken(
            token=token,
            client_id=str(client_id),
            scopes=_scopes(claims),
            expires_at=int(claims["exp"]),
            resource=self.access.audience,
            subject=str(subject) if subject is not None else None,
            claims={
                k: v
                for k, v in claims.items()
                if k in ("iss", "sub", "aud", "exp", "iat")
            },
        )


def _key_set_file(url: str) -> jwt.PyJWKSet:
    path = Path(url2pathname(urlsplit(url).path))
    try:
        return jwt.PyJWKSet.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, jwt.PyJWTError) as exc:
        raise SystemExit(
            f"{JWKS_ENV} names {path}, which is not a readable JWKS ({type(exc).__name__})."
        ) from None


def _by_kid(key_set: jwt.PyJWKSet, token: str) -> jwt.PyJWK:
    """The key the token's header names; with one key and no kid, that key."""
    kid = jwt.get_unverified_header(token).get("kid")
    if kid is None and len(key_set.keys) == 1:
        return key_set.keys[0]
    if not isinstance(kid, str):
        raise KeyError("the token names no key of several")
    return key_set[kid]  # KeyError for an unknown kid


def _scopes(claims: Mapping[str, Any]) -> list[str]:
    """OAuth puts scopes in `scope` (space-separated); some issuers use a `scp` list."""
    scope = claims.get("scope")
    if isinstance(scope, str):
        return scope.split()
    scp = claims.get("scp")
    if isinstance(scp, list):
        return [str(s) for s in scp]
    return []


def http_auth(access: Access) -> dict[str, Any]:
    """Keyword arguments for the SDK's `streamable_http_app`: its bearer middleware with our verifier.

    Raises SystemExit with what to set when no key is configured: an HTTP server that cannot check
    tokens must not start, or it would serve everyone.
    """
    secret = os.environ.get(SECRET_ENV) or None
    jwks_url = os.environ.get(JWKS_ENV) or None
    if not secret and not jwks_url:
        raise SystemExit(
            f"this server checks bearer tokens over HTTP (issuer {access.issuer}, audience {access.audience}) "
            f"but has no key to check them with: set {SECRET_ENV} (HS256 shared secret) or {JWKS_ENV} "
            "(the issuer's JWKS, https:// or file://)."
        )
    settings = AuthSettings(
        issuer_url=AnyHttpUrl(access.issuer),
        resource_server_url=AnyHttpUrl(access.audience),
        required_scopes=list(access.scopes) or None,
        validate_token_resource=False,  # JwtVerifier checks `aud` itself
    )
    return {"auth": settings, "token_verifier": JwtVerifier(access, secret, jwks_url)}
