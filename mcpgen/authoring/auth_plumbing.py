"""Operations that are authentication plumbing: an OAuth sign-in page, token, refresh or revoke endpoint.

They are how a client gets the credentials the server sends, not tasks an agent does (T1 tools for
tasks): a generated server takes its credentials from its environment (`server.auth`), so `mcpgen init`
leaves these out and lists them in the draft's unmapped section with the reason. Pure: a spec and an
operation in, a reason or None out.
"""

from __future__ import annotations

import re
from typing import Any

from mcpgen.load.openapi import Operation, Spec

# The flow URLs OAuth2 security schemes name: what a person would call each, and what it does.
_FLOW_URLS = {
    "authorizationUrl": ("its sign-in page", "is the sign-in page a person opens in a browser"),
    "tokenUrl": ("its token endpoint", "exchanges a sign-in grant or a refresh token for an access token"),
    "refreshUrl": ("its token refresh endpoint", "refreshes an access token"),
}
_OAUTH_WORDS = frozenset({"oauth", "oauth2", "openid"})
_AUTH_WORDS = _OAUTH_WORDS | {"auth"}
# The last path word of an auth endpoint, and what the endpoint does, in plain words.
_DOES = {
    "token": "exchanges a sign-in grant or a refresh token for an access token",
    "access": "exchanges a sign-in grant for an access token",
    "refresh": "refreshes an access token",
    "revoke": "revokes an access token",
    "authorize": "is the sign-in page a person opens in a browser",
    "introspect": "checks whether an access token is valid",
}


def plumbing_reason(spec: Spec, op: Operation) -> str | None:
    """Why `op` is left out of the draft, when it is authentication plumbing; None otherwise."""
    found = _flow_url(spec, op)
    does = _what_it_does(_path_words(op.path))
    if found is None:
        return None if does is None else f"authentication plumbing: it {does}"
    scheme, role, role_does = found
    return f"authentication plumbing: it {does or role_does} ({role} in securitySchemes.{scheme})"


def _flow_url(spec: Spec, op: Operation) -> tuple[str, str, str] | None:
    """The security scheme and flow URL this operation's server + path is, if any, and what it does."""
    urls = {_without_query(u) for u in _operation_urls(spec, op)}
    for name, scheme in spec.security_schemes().items():
        if not isinstance(scheme, dict):
            continue
        flows = scheme.get("flows")
        for flow in flows.values() if isinstance(flows, dict) else ():
            if not isinstance(flow, dict):
                continue
            for key, (role, does) in _FLOW_URLS.items():
                url = flow.get(key)
                if isinstance(url, str) and _without_query(url) in urls:
                    return name, role, does
        url = scheme.get("openIdConnectUrl")
        if isinstance(url, str) and _without_query(url) in urls:
            return name, "its OpenID Connect discovery document", "tells clients how to sign in"
    return None


def _operation_urls(spec: Spec, op: Operation) -> list[str]:
    """Where the operation is, for each server that may serve it (operation, path item, spec)."""
    path = op.path.split("#", 1)[0]
    item = spec.document.data.get("paths", {}).get(op.path)
    servers: list[Any] = []
    for holder in (op.located.value, item if isinstance(item, dict) else {}):
        listed = holder.get("servers")
        if isinstance(listed, list):
            servers += [s.get("url") for s in listed if isinstance(s, dict)]
    servers += list(spec.servers)
    return [s.rstrip("/") + path for s in servers if isinstance(s, str)]


def _without_query(url: str) -> str:
    return re.sub(r"[?#].*$", "", url).rstrip("/").lower()


def _path_words(path: str) -> list[str]:
    """Lower-case literal words of a path: '/oauth2/token#refresh' -> oauth2, token, refresh;
    Slack's '/oauth.v2.access' -> oauth, v2, access."""
    literal = [s for s in re.split(r"[/.#]", path) if s and not s.startswith("{")]
    return [w.lower() for w in literal]


# The last literal path word of a password sign-in endpoint, whatever is above it ('/v4/auth/login',
# '/Users/AuthenticateByName', '/Sessions/Logout'), and what it does: the server signs in with its own
# credentials, so an agent never calls these.
_SIGN_IN = {
    "login": "signs in with a user name and password for a session token",
    "signin": "signs in with a user name and password for a session token",
    "authenticate": "signs in with a user name and password for a session token",
    "authenticatebyname": "signs in with a user name and password for a session token",
    "authenticatewithquickconnect": "signs in with a one-time code for a session token",
    "logout": "ends the session the server's own credentials opened",
    "signout": "ends the session the server's own credentials opened",
}
_TOKEN_CHECKS = ("verify", "validate", "introspect")


def _what_it_does(words: list[str]) -> str | None:
    """What an endpoint under an auth word does ('/oauth2/revoke', '/auth.revoke'), or a sign-in or
    token-check endpoint anywhere ('/v4/auth/login', '/token/verify'); None when it is not one
    ('/auth.test' checks who the credentials belong to: a task an agent may have)."""
    if words and (words[-1].replace("_", "").replace("-", "") in _SIGN_IN):
        return _SIGN_IN[words[-1].replace("_", "").replace("-", "")]
    if (
        len(words) >= 2
        and {words[-1], words[-2]} & {"token", "tokens"}
        and {words[-1], words[-2]} & set(_TOKEN_CHECKS)
    ):
        return "checks whether an access token is valid"
    if not words or not (_AUTH_WORDS & set(words)):
        return None
    for word in reversed(words):
        if word in _DOES:
            return _DOES[word]
    if _OAUTH_WORDS & set(words) and not any(w in ("test", "me", "whoami", "userinfo") for w in words):
        return "is part of the OAuth sign-in"
    return None
