"""Credentials the server sends upstream, checked before they leave (P3 credentials): never a client
config's placeholder, never over plain http:// to another machine unless the mapping allows it; and
what a token the server obtains itself (OAuth 2.0, an optional module) must offer the core."""

from __future__ import annotations

import os
import re
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

from .errors import Recovery, ToolError


class TokenSource(Protocol):
    """A token the server obtains itself and sends as a bearer token: oauth_client.py's
    `ClientCredentials` or oauth_user.py's `UserTokens`, present only in a package whose `server.auth`
    is one of those (P3 credentials: the caller's own token never goes upstream)."""

    allow_insecure: bool
    env: str  # the variable a refused token's credentials are most likely wrong in
    token_url: str

    async def token(self, client: httpx.AsyncClient, subject: str) -> str: ...

    def refused(self, token: str, subject: str) -> None:
        """The API answered 401 invalid_token to this token: forget it, so the next one is new."""
        ...

    def secret_forms(self) -> tuple[str, ...]: ...

    def refused_env(self, subject: str) -> str:
        """The variable to name when the API refuses the token this caller's call sent."""
        ...

    async def described(self, subject: str) -> list[dict[str, Any]]:
        """The credential variables, whether each is set, and for a user's token whether the caller
        has linked one; never a value (for the server_info tool)."""
        ...

    def routes(self) -> list[Any]:
        """HTTP routes it serves beside /mcp (a user's sign-in callback), Starlette's."""
        ...


# What the generated client configs hold until the user fills them in: never sent as a credential.
_PLACEHOLDER = re.compile(r"^\s*<\s*your\b[^>]*>\s*$", re.IGNORECASE)


def credential(env: str, what: str) -> str | None:
    """The value of a credential variable; None when unset. One still holding the client config's
    `<your ...>` placeholder is refused, naming the variable (E3 which kind of recovery)."""
    value = os.environ.get(env)
    if not value:
        return None
    if _PLACEHOLDER.match(value):
        raise ToolError(
            f"no credentials: the environment variable {env} still holds the placeholder of the client "
            "config, not a real value, so nothing was sent to the API.",
            f"This needs the user: replace the placeholder of {env} with the {what} in this MCP server's "
            "config, restart the server and call again.",
            Recovery.NEEDS_PERMISSION,
        )
    return value


def insecure(url: str) -> bool:
    """Plain http:// to a host other than this machine: anyone on the way could read a credential."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    loopback = host in ("localhost", "::1") or re.fullmatch(r"127(\.\d{1,3}){3}", host)
    return parts.scheme.lower() == "http" and not loopback


def refuse_insecure(url: str, allowed: bool, env: str) -> None:
    """A credential never goes over plain http:// to another machine unless the mapping says the
    network is trusted (P3 credentials); the call says so, and how to fix it."""
    if allowed or not insecure(url):
        return
    parts = urlsplit(url)
    raise ToolError(
        f"the credential in {env} was not sent: the API's address {parts.scheme}://{parts.hostname} is "
        "plain http:// to another machine, where anyone on the way could read it.",
        "This needs the user: point the server at the API's https:// address (its base URL variable), or, "
        "on a trusted network only, set allow_insecure: true on server.auth and regenerate.",
        Recovery.NEEDS_HUMAN,
    )
