"""`server.auth` of a mapping: how the server authenticates upstream (P3 credentials), checked beyond
what the schema can say (the keys each type takes and needs), and read into an `AuthRule`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, error
from mcpgen.load.sources import Document


@dataclass(frozen=True, slots=True, kw_only=True)
class AuthRule:
    type: str
    env: str | None  # bearer, api_key, basic
    location: str | None
    name: str | None
    prefix: str | None = None  # api_key in a header: 'Bearer ', 'Token '
    # oauth2_client_credentials and oauth2_user
    token_url: str | None = None
    authorization_url: str | None = None
    revocation_url: str | None = None
    scopes: tuple[str, ...] = ()
    client_id_env: str | None = None
    client_secret_env: str | None = None
    allow_insecure: bool = False  # a credential may go over plain http to another host


def check_auth(document: Document) -> list[Diagnostic]:
    auth = document.data["server"].get("auth")
    if not auth:
        return []
    if isinstance(auth, list):  # several credentials sent together
        found = [d for i, one in enumerate(auth) for d in _check_one_auth(one, f"/server/auth/{i}", document)]
        if any(one["type"].startswith("oauth2") for one in auth):
            found.append(
                error(
                    codes.M112,
                    "an oauth2 auth is the only credential the server sends; it cannot be one of several",
                    document.locate("/server/auth"),
                    hint="keep the oauth2 entry alone as server.auth",
                )
            )
        return found
    return _check_one_auth(auth, "/server/auth", document)


# The keys each type of auth takes, and those it needs.
_AUTH_KEYS = {
    "bearer": ({"env"}, {"env"}),
    "basic": ({"env"}, {"env"}),
    "api_key": ({"env", "in", "name", "prefix"}, {"env"}),
    "oauth2_client_credentials": (
        {"token_url", "scopes", "client_id_env", "client_secret_env"},
        {"token_url", "client_id_env", "client_secret_env"},
    ),
    "oauth2_user": (
        {
            "token_url",
            "authorization_url",
            "revocation_url",
            "scopes",
            "client_id_env",
            "client_secret_env",
            "env",
        },
        {"token_url", "authorization_url", "client_id_env"},
    ),
}


def auth_envs(auth: dict[str, Any]) -> list[str]:
    return [auth[k] for k in ("env", "client_id_env", "client_secret_env") if k in auth]


def _check_one_auth(auth: dict[str, Any], pointer: str, document: Document) -> list[Diagnostic]:
    kind = auth["type"]
    if kind == "api_key" and not ("in" in auth and "name" in auth):
        return [
            error(
                codes.M109,
                "an api_key auth needs 'in' (header, query or body) and 'name'",
                document.locate(pointer),
                hint="for example:  in: header  and  name: X-API-Key",
            )
        ]
    if kind != "api_key" and ("in" in auth or "name" in auth):
        return [
            error(
                codes.M110,
                f"'in' and 'name' apply only to api_key auth, not {kind}",
                document.locate(pointer),
                hint="remove them, or use type: api_key",
            )
        ]
    takes, needs = _AUTH_KEYS[kind]
    keys = set(auth) - {"type", "allow_insecure"}
    missing, foreign = sorted(needs - keys), sorted(keys - takes)
    if kind == "api_key" and "prefix" in auth and auth.get("in") != "header":
        foreign.append("prefix")
    if not (missing or foreign):
        return []
    said = []
    if missing:
        said.append(f"needs {', '.join(missing)}")
    if foreign:
        said.append(f"does not take {', '.join(foreign)}")
    example = {
        "oauth2_client_credentials": "token_url: https://api.example.com/oauth/token, client_id_env: "
        "MYAPI_CLIENT_ID, client_secret_env: MYAPI_CLIENT_SECRET",
        "oauth2_user": "authorization_url: https://api.example.com/oauth/authorize, token_url: "
        "https://api.example.com/oauth/token, client_id_env: MYAPI_CLIENT_ID",
    }.get(kind, "env: MYAPI_TOKEN")
    return [
        error(
            codes.M112,
            f"a {kind} auth {' and '.join(said)}",
            document.locate(pointer),
            hint=f"for example:  {example}",
        )
    ]


def read_auth(auth: dict[str, Any]) -> AuthRule:
    return AuthRule(
        type=auth["type"],
        env=auth.get("env"),
        location=auth.get("in"),
        name=auth.get("name"),
        prefix=auth.get("prefix"),
        token_url=auth.get("token_url"),
        authorization_url=auth.get("authorization_url"),
        revocation_url=auth.get("revocation_url"),
        scopes=tuple(auth.get("scopes") or ()),
        client_id_env=auth.get("client_id_env"),
        client_secret_env=auth.get("client_secret_env"),
        allow_insecure=bool(auth.get("allow_insecure", False)),
    )
