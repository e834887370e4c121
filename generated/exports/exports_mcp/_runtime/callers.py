"""Who is calling, and which tools they may see and call (P3 credentials).

Over streamable HTTP with access checks, the SDK's bearer middleware verifies every request's token
(access.py, present only in a package whose mapping sets `server.access`) and this module reads the
verified caller; on stdio there is none: its caller is the user who started the server.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from mcp.server.auth.middleware.auth_context import get_access_token

from .errors import Recovery, ToolError


class HttpAccess(Protocol):
    """access.py's `Access`: how HTTP callers are checked. The rendered server.py imports it."""

    def http_auth(self) -> dict[str, Any]:
        """Keyword arguments for the SDK's `streamable_http_app`: its bearer middleware and verifier."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Caller:
    subject: str  # the token's `sub` (or its client id): previews are bound to it (S3 handles)
    scopes: frozenset[str]


def current_caller() -> Caller | None:
    """The verified caller of the request being handled; None on stdio."""
    token = get_access_token()
    if token is None:
        return None
    return Caller(
        subject=token.subject or token.client_id, scopes=frozenset(token.scopes)
    )


class ScopeCheck:
    """Per-tool scopes: which tools a caller sees, and whether it may call one (P2 deterministic tools/list; P3 credentials)."""

    def __init__(self, required: Mapping[str, Iterable[str]], enforced: bool):
        self.required = {name: tuple(scopes) for name, scopes in required.items()}
        self.enforced = enforced

    def visible(self, name: str, caller: Caller | None) -> bool:
        return not self._missing(name, caller)

    def check(self, name: str, caller: Caller | None) -> None:
        missing = self._missing(name, caller)
        if missing:
            raise ToolError(
                f"your access token does not allow {name}: it needs the scope {' '.join(missing)}.",
                f"Ask the user to authorize this client for {' '.join(missing)} (sign in again with that "
                "scope), then call again. Use the tools of the current token until then.",
                Recovery.NEEDS_PERMISSION,
            )

    def _missing(self, name: str, caller: Caller | None) -> list[str]:
        if not self.enforced:
            return []
        needed = self.required.get(name, ())
        have = caller.scopes if caller is not None else frozenset()
        return [scope for scope in needed if scope not in have]
