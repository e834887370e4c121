"""What the spec's security schemes say about how a credential travels, for `mcpgen init` (P3 credentials).

- An apiKey scheme on the `Authorization` header usually wants a scheme word before the key: the
  spec's text says which ("in the format `Bearer {token}`", 'prefixed with "Token"'), or the scheme's
  name does (`BearerToken`). Bearer becomes `type: bearer`, Basic `type: basic`, any other word a
  `prefix`; without either, the key goes as it is and the draft says how to add one.
- An OAuth 2.0 scheme with a clientCredentials flow becomes `oauth2_client_credentials` (the server's
  own token), one with an authorizationCode flow `oauth2_user` (each user's token), whichever flow's
  scopes cover the operations' requirements; implicit and password flows stay a bearer token the user
  gets elsewhere.
- Every scheme is listed in the draft's comments, with its flows, so the choice can be checked.
Pure: schemes in, drafted values out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urljoin

from mcpgen.authoring.model import DraftAuth

# A scheme word in the scheme's text, in the ways specs write it: the first group is the word.
_WORD_PATTERNS = (
    re.compile(r"prefix(?:ed)?(?:\s+with)?\s+[\"'`]?([A-Za-z][\w-]*)", re.I),
    re.compile(r"prepended\s+with\s+[\"'`]?([A-Za-z][\w-]*)", re.I),
    re.compile(r"(?:the\s+)?(?:string|word)\s+[\"'`]([A-Za-z][\w-]*)[\"'`]\s+followed\s+by", re.I),
    re.compile(r"[\"'`]([A-Za-z][\w-]*)\s+[{<\[][\w ]*[}>\]]"),  # `Bearer {token}`, "Token <key>"
    re.compile(r"\b([A-Za-z][\w-]*)\s+\{token\}"),  # NetworkInsight {token}
    re.compile(r"[\"'`]([A-Za-z][\w-]*)[\"'`]\s*\[?space\]?", re.I),  # Enter 'Bearer' [space]
)
_SCOPE = re.compile(r"^[!#-\[\]-~]+$")  # an RFC 6749 scope token, as the mapping's auth scopes allow
_BEARER_TEXT = re.compile(r"\bbearer\b", re.I)
_NOT_A_WORD = frozenset({"the", "a", "an", "your", "with", "and", "or", "api", "key", "token", "value"})


def header_scheme_word(name: str, scheme: dict[str, Any]) -> tuple[str | None, str]:
    """The word an apiKey on the Authorization header goes after ('Bearer', 'Token', ...), or None
    when the spec does not say; and where it was read (for the draft's comment)."""
    text = str(scheme.get("description") or "")
    found = sorted(
        (m.start(), m.group(1), m.group(0)) for pattern in _WORD_PATTERNS for m in pattern.finditer(text)
    )
    for _, word, said in found:  # the first the text says
        if word.lower() in _NOT_A_WORD - {"token"}:
            continue
        if word.lower() == "token" and not re.search(r"prefix|prepended", said, re.I):
            continue  # "token <key>" in a format is the thing itself, not a word before it
        return word, "the scheme's description"
    if _BEARER_TEXT.search(text):
        return "Bearer", "the scheme's description"
    if re.search(r"bearer", name, re.I):
        return "Bearer", "the scheme's name"
    return None, ""


def authorization_key(name: str, scheme: dict[str, Any], env_stem: str, env: str | None) -> DraftAuth:
    """An apiKey scheme on the Authorization header, drafted as what the spec says goes there."""
    word, where = header_scheme_word(name, scheme)
    why = f"from securitySchemes.{name}"
    if word is not None and word.lower() == "bearer":
        return DraftAuth(
            type="bearer",
            env=env or f"{env_stem}_TOKEN",
            location=None,
            name=None,
            why=f"{why}, an apiKey on the Authorization header that {where} says is 'Bearer <token>'",
        )
    if word is not None and word.lower() == "basic":
        return DraftAuth(
            type="basic",
            env=env or f"{env_stem}_CREDENTIALS",
            location=None,
            name=None,
            why=f"{why}, an apiKey on the Authorization header that {where} says is 'Basic <base64>': set the "
            "variable to what is base64-encoded (the key, or 'user:password')",
        )
    header = str(scheme["name"])
    if word is not None:
        return DraftAuth(
            type="api_key",
            env=env or f"{env_stem}_API_KEY",
            location="header",
            name=header,
            prefix=f"{word} ",
            why=f"{why}; {where} says the key goes after '{word} '",
        )
    return DraftAuth(
        type="api_key",
        env=env or f"{env_stem}_API_KEY",
        location="header",
        name=header,
        why=f"{why}; the spec does not say whether a word goes before the key, so it is sent as it is: "
        "if the API wants 'Bearer <key>' (or Token), add prefix: 'Bearer '",
    )


def oauth_flow(
    name: str, scheme: dict[str, Any], wanted_scopes: Iterable[str], base_url: str | None, env_stem: str
) -> DraftAuth | None:
    """An OAuth 2.0 scheme as the token the server obtains: client credentials (its own) or
    authorization code (each user's), whichever flow's scopes cover the scopes operations require;
    None when it has neither flow."""
    raw = scheme.get("flows")
    flows: dict[str, Any] = raw if isinstance(raw, dict) else {}
    wanted = sorted(s for s in set(wanted_scopes) if _SCOPE.match(s))
    usable = {
        kind: flow
        for kind, flow in flows.items()
        if kind in ("clientCredentials", "authorizationCode") and isinstance(flow, dict)
        and isinstance(flow.get("tokenUrl"), str)
        and (kind == "clientCredentials" or isinstance(flow.get("authorizationUrl"), str))
    }  # fmt: skip
    if not usable:
        return None

    def covered(kind: str) -> int:
        scopes = usable[kind].get("scopes")
        return sum(1 for s in wanted if isinstance(scopes, dict) and s in scopes)

    kind = max(usable, key=lambda k: (covered(k), k == "clientCredentials"))
    flow = usable[kind]
    token_url = _absolute(str(flow["tokenUrl"]), base_url)
    sign_in = _absolute(str(flow.get("authorizationUrl", "")), base_url)
    if not token_url.startswith(("https://", "http://")) or (
        kind != "clientCredentials" and not sign_in.startswith(("https://", "http://"))
    ):
        return None  # relative to a server the spec does not name: the user gets a token elsewhere
    common = {
        "token_url": token_url,
        "scopes": tuple(wanted),
        "client_id_env": f"{env_stem}_CLIENT_ID",
        "client_secret_env": f"{env_stem}_CLIENT_SECRET",
    }
    if kind == "clientCredentials":
        return DraftAuth(
            type="oauth2_client_credentials",
            env="",
            location=None,
            name=None,
            why=f"from securitySchemes.{name}'s clientCredentials flow: the server gets its own token with "
            "this client id and secret, and renews it before it expires",
            **common,  # type: ignore[arg-type]
        )
    return DraftAuth(
        type="oauth2_user",
        env=f"{env_stem}_TOKEN",
        location=None,
        name=None,
        authorization_url=sign_in,
        why=f"from securitySchemes.{name}'s authorizationCode flow: each user links their own account "
        f"through the API's sign-in page (served over HTTP with server.access); a call with no user (stdio) "
        f"uses the token in {env_stem}_TOKEN",
        **common,  # type: ignore[arg-type]
    )


def _absolute(url: str, base_url: str | None) -> str:
    """A flow URL relative to the API's server (OpenAPI allows it) made absolute."""
    return urljoin(base_url.rstrip("/") + "/", url) if base_url and "://" not in url else url


def scheme_lines(schemes: dict[str, Any]) -> list[str]:
    """Every security scheme of the spec in one line each, OAuth flows included (for the draft's comments)."""
    lines = []
    for name in sorted(schemes):
        scheme = schemes[name]
        lines.append(f"securitySchemes.{name}: {_described(scheme)}")
    return lines


def _described(scheme: Any) -> str:
    if not isinstance(scheme, dict):
        return "not an object"
    kind = str(scheme.get("type", "?"))
    if kind == "apiKey":
        return f"apiKey in {scheme.get('in', '?')} {scheme.get('name', '?')}"
    if kind == "http":
        return f"http {scheme.get('scheme', '?')}"
    if kind == "openIdConnect":
        return f"openIdConnect ({scheme.get('openIdConnectUrl', '?')})"
    if kind != "oauth2":
        return kind
    raw = scheme.get("flows")
    flows: dict[str, Any] = raw if isinstance(raw, dict) else {}
    said = []
    for flow_name in sorted(flows):
        flow = flows[flow_name] if isinstance(flows[flow_name], dict) else {}
        urls = [f"{k} {flow[k]}" for k in ("authorizationUrl", "tokenUrl") if isinstance(flow.get(k), str)]
        found = flow.get("scopes")
        scopes: dict[str, Any] = found if isinstance(found, dict) else {}
        listed = ", ".join(sorted(scopes)[:6]) + (", ..." if len(scopes) > 6 else "")
        said.append(f"{flow_name} ({'; '.join(urls)}{'; scopes ' + listed if scopes else ''})")
    return "oauth2 " + ("; ".join(said) if said else "with no flows")
