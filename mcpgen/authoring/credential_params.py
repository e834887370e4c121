"""Credentials a spec asks for as plain parameters, with no security scheme (issue 12, oracle category a).

Jumpseller's spec declares no `securitySchemes`; every store operation takes `?authtoken=` instead
(jumpseller.com.json /components/parameters/AuthtokenParam). The build never lets an agent pass a
credential (P3 credentials, request_parts.py), so unless the server sends it, such a request goes out
without one. When the spec gives the server nothing to send, the draft's `auth` is the set of credential
parameters most operations take together, and an operation that needs another one stays unmapped,
with the reason (the server sends one set of credentials to every operation).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from mcpgen.authoring.model import DraftAuth
from mcpgen.build.request_parts import is_credential
from mcpgen.diagnostics import rule_name
from mcpgen.load.openapi import Operation, Spec
from mcpgen.names import snake_case

# Where a server's api key can go (mapping `auth.in`); a cookie credential is left to the user.
_SENDABLE = ("query", "header")


@dataclass(frozen=True, slots=True)
class CredentialParam:
    name: str
    location: str
    required: bool


def credential_params(spec: Spec, op: Operation) -> list[CredentialParam]:
    """The operation's parameters that carry a credential and that an api key in `auth` could send
    (the build keeps them out of its parameter list, so they are read from the spec here)."""
    found = []
    for located in op.parameters:
        raw = located.value
        name, location = str(raw.get("name", "")), str(raw.get("in", ""))
        if location in _SENDABLE and is_credential(spec, name, location, str(raw.get("description") or "")):
            found.append(CredentialParam(name, location, raw.get("required") is True))
    return found


def inferred_auth(spec: Spec, operations: Sequence[Operation], server: str) -> tuple[DraftAuth, ...]:
    """Api keys for the set of credential parameters most operations take together (ExaVault's
    `ev-api-key` and `ev-access-token` headers on every operation); () when no operation takes one."""
    sets: Counter[frozenset[tuple[str, str]]] = Counter()
    in_order: dict[frozenset[tuple[str, str]], tuple[tuple[str, str], ...]] = {}
    for op in operations:
        found = credential_params(spec, op)
        needed = tuple((p.name, p.location) for p in ([p for p in found if p.required] or found[:1]))
        if needed:
            sets[frozenset(needed)] += 1
            in_order.setdefault(frozenset(needed), needed)  # as the spec first lists them
    if not sets:
        return ()
    most, taken = max(sets.items(), key=lambda kv: kv[1])
    chosen = in_order[most]
    stem = server.upper()
    where = " and ".join(f"{location} parameter '{name}'" for name, location in chosen)
    why = (
        f"the spec declares no security schemes, and {taken} of {len(operations)} operations take the "
        f"credential{'s' if len(chosen) > 1 else ''} in {where}"
    )
    return tuple(
        DraftAuth(type="api_key", env=f"{stem}_{_env_word(name)}", location=location, name=name, why=why)
        for name, location in chosen
    )


def _env_word(name: str) -> str:
    return (re.sub(r"[^A-Za-z0-9]+", "_", snake_case(name)).strip("_").upper() or "API_KEY")[:40]


def uncovered_credential(spec: Spec, op: Operation, auths: Sequence[DraftAuth]) -> str | None:
    """Why an operation cannot be served with `auths`: it requires a credential parameter they do not send."""
    sent = {((a.name or "").lower(), a.location) for a in auths}
    for p in credential_params(spec, op):
        if p.required and (p.name.lower(), p.location) not in sent:
            sends = " and ".join(f"{a.location} parameter '{a.name}'" for a in auths)
            return (
                f"needs the credential in {p.location} parameter '{p.name}', and the server sends its "
                f"credential in {sends} to every operation; map it in a server of its own with "
                f"auth: {{type: api_key, in: {p.location}, name: {p.name}}} ({rule_name('P3')})"
            )
    return None
