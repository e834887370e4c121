"""Request body fields that carry the API's own credential (P3 credentials), never an agent argument.

Some APIs take their credential in the JSON body beside (or instead of) a header: Plaid's `client_id`
and `secret` in every request body, next to its PLAID-CLIENT-ID and PLAID-SECRET header schemes;
Twilio's token endpoint `ClientSecret`; api.video's `apiKey` exchanged for a token. Offered to the
agent, the model would be asked for a secret it must never hold, and its value would travel beside the
server's own. A body field is such a credential when:

- its name is one no resource field takes (api_key, access_token, client_secret, ...: the names
  request_parts.py knows for query and header parameters);
- or a security scheme of the spec names it, a vendor's prefix aside (PLAID-SECRET names `secret`);
- or, for the names a resource may also use (secret, password, client_id, key, token), the context
  says it is the API's: its description says "your ... API" / "your ... secret" (Plaid's "Your Plaid
  API `secret`"), every operation with a body takes it (an API that wants its password in every call),
  or, for a client id, a credential secret sits beside it. A webhook's signing `secret` (LaunchDarkly)
  and a new user's `password` stay the agent's: they are the data of the request.

The server sends such a field from its environment (mapping `auth: {type: api_key, in: body, name:
secret}` or `params: {access_token: {env: NAME}}`) or leaves it out.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from mcpgen.build.request_parts import CREDENTIAL_NAMES, CREDENTIAL_SUFFIXES, SpecKey
from mcpgen.load.openapi import Operation, Spec

_AMBIGUOUS = frozenset({"secret", "password", "passwd", "clientid", "key", "token", "auth"})
_CLIENT_ID = "clientid"
# What a scheme's name must hold to be a credential (Plaid-Version is an apiKey scheme, not a secret).
_SECRET_WORDS = ("key", "secret", "token", "password", "clientid", "auth")
_YOURS = re.compile(
    r"\byour\b[^.]{0,40}?\b(api\b|secret|(access|api|auth)[ _-]?token|client[ _-]?secret|password|"
    r"credentials?)",
    re.I,
)
_MIN_OPERATIONS_FOR_GLOBAL = 3


def bare(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def body_credentials(spec: Spec, operation: Operation, fields: dict[str, Any]) -> frozenset[str]:
    """The names of the top-level body fields (name -> resolved schema) that carry a credential."""
    found = {name for name, schema in fields.items() if _credential(spec, name, schema, fields)}
    if found - {n for n in fields if bare(n) == _CLIENT_ID}:
        # A client id beside a credential secret is the other half of the API's own credential.
        found |= {n for n in fields if bare(n) == _CLIENT_ID}
    return frozenset(found)


def _credential(spec: Spec, name: str, schema: Any, fields: dict[str, Any]) -> bool:
    if not isinstance(schema, dict) or schema.get("readOnly") or schema.get("type") not in (None, "string"):
        return False
    word = bare(name)
    if word in _scheme_words(SpecKey(spec)) or any(
        scheme.endswith(word) and len(word) >= 6 for scheme in _scheme_words(SpecKey(spec))
    ):
        return True
    if word in _AMBIGUOUS:
        if word == _CLIENT_ID:
            return _YOURS.search(str(schema.get("description", ""))) is not None and "secret" in "".join(
                bare(n) for n in fields
            )
        return _YOURS.search(str(schema.get("description", ""))) is not None or name in _every_body(
            SpecKey(spec)
        )
    return word in CREDENTIAL_NAMES or word.endswith(CREDENTIAL_SUFFIXES)


@functools.lru_cache(maxsize=8)
def _scheme_words(key: SpecKey) -> frozenset[str]:
    """The bare names of the spec's apiKey schemes that name a secret (any location)."""
    schemes = key.spec.security_schemes()
    names = (
        bare(str(s.get("name", "")))
        for s in schemes.values()
        if isinstance(s, dict) and s.get("type") == "apiKey"
    )
    return frozenset(n for n in names if any(w in n for w in _SECRET_WORDS))


@functools.lru_cache(maxsize=8)
def _every_body(key: SpecKey) -> frozenset[str]:
    """The top-level body field names every operation with a JSON or form body declares."""
    bodies = [fields for op in key.spec.operations if (fields := _top_fields(key.spec, op)) is not None]
    if len(bodies) < _MIN_OPERATIONS_FOR_GLOBAL:
        return frozenset()
    shared = set(bodies[0])
    for fields in bodies[1:]:
        shared &= set(fields)
    return frozenset(shared)


def _top_fields(spec: Spec, operation: Operation) -> dict[str, Any] | None:
    """The body's top-level properties as the spec states them (through `$ref`s); None without a body."""
    body = operation.request_body
    content = body.value.get("content") if body is not None else None
    if body is None or not isinstance(content, dict):
        return None
    for media, entry in content.items():
        if ("json" in str(media) or "form" in str(media)) and isinstance(entry, dict):
            if not isinstance(entry.get("schema"), dict):
                return {}
            schema = spec.resolver.deref(body.child("content", media, "schema")).value
            properties = schema.get("properties") if isinstance(schema, dict) else None
            return dict(properties) if isinstance(properties, dict) else {}
    return None
