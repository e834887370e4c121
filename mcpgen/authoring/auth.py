"""The credentials the drafted server sends: one security requirement of the spec (or, without a
scheme the server can send, the credential parameters most operations take: `credential_params.py`),
and the operations that need other credentials left unmapped, with why (P3)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Any

from mcpgen.authoring.auth_schemes import authorization_key, oauth_flow, scheme_lines
from mcpgen.authoring.credential_params import inferred_auth, uncovered_credential
from mcpgen.authoring.model import DraftAuth, Unmapped
from mcpgen.authoring.operations import OpInfo, shown
from mcpgen.diagnostics import rule_name
from mcpgen.load.openapi import Operation, Spec
from mcpgen.names import snake_case


def schemes_said(spec: Spec, chosen: tuple[str, ...], auths: tuple[DraftAuth, ...]) -> tuple[str, ...]:
    """The draft's comment on credentials: every scheme of the spec, then the one chosen and why."""
    lines = scheme_lines(spec.security_schemes())
    if not lines:
        return ()
    if chosen:
        names = " and ".join(f"securitySchemes.{n}" for n in chosen)
        lines.append(
            f"chosen: {names}, the requirement most operations accept among those the server can meet "
            "(a token, key or password a user holds before an OAuth flow)"
        )
    elif auths:
        lines.append(f"chosen: {auths[0].why}")
    return tuple(lines)


def choose_auth(spec: Spec, server: str) -> tuple[tuple[DraftAuth, ...], str | None, tuple[str, ...]]:
    """The credentials the server sends: of the security requirements whose schemes the server can all
    send (several schemes in one requirement are needed together: a key and a client id), one without
    OAuth2 if there is one, then the one most operations accept, ties going to bearer, then api key, then
    basic. Without any requirement in the spec, the best-ranked scheme. Also the chosen requirement's
    scheme names (none when the spec states no requirement to choose from)."""
    schemes = spec.security_schemes()
    ranks = {name: rank for name, scheme in schemes.items() if (rank := _scheme_rank(scheme)) is not None}
    if not ranks:
        if schemes:
            return (
                (),
                f"the spec's security schemes ({', '.join(sorted(schemes))}) are not ones the server can send",
                (),
            )
        return (), "the spec declares no security schemes; add `auth:` if the API needs credentials", ()
    coverage: Counter[tuple[str, ...]] = Counter()
    for operation in spec.operations:
        for requirement in _requirements(spec, operation):
            if requirement and all(name in ranks for name in requirement):
                coverage[requirement] += 1
    if coverage:
        # Credentials a user can simply hold (a token, a key, a password) before OAuth flows; then the
        # requirement most operations accept.
        chosen = min(
            coverage,
            key=lambda r: (max(ranks[n] for n in r) == 3, -coverage[r], max(ranks[n] for n in r), len(r)),
        )
    else:
        chosen = (min(ranks, key=lambda n: ranks[n]),)
    env_stem = server.upper()
    together = len(chosen) > 1
    drafted = [
        _draft_auth(
            name,
            schemes[name],
            ranks[name],
            env_stem,
            f"{env_stem}_{_env_word(name)}" if together else None,
            (_wanted_scopes(spec, name), spec.servers[0] if spec.servers else None),
        )
        for name in chosen
    ]
    if together:
        both = " and ".join(f"securitySchemes.{n}" for n in chosen)
        drafted = [replace(d, why=f"{d.why}; the spec needs {both} together") for d in drafted]
    return tuple(drafted), None, tuple(chosen) if coverage else ()


def auth_from_params(
    spec: Spec, server: str, infos: list[OpInfo], unmapped: list[Unmapped], note: str | None
) -> tuple[tuple[DraftAuth, ...], str | None, list[OpInfo], list[Unmapped]]:
    """No scheme the server can send: the credential parameters most operations take become `auth`
    (credential_params.py), and operations needing another credential stay unmapped, with why."""
    auths = inferred_auth(spec, [i.op for i in infos], server)
    if not auths:
        return (), note, infos, unmapped
    kept: list[OpInfo] = []
    for info in infos:
        why = uncovered_credential(spec, info.op, auths)
        if why is None:
            kept.append(info)
        else:
            unmapped = [*unmapped, Unmapped(operation=shown(info.op), reason=why)]
    return auths, None, kept, unmapped


def served_by(
    spec: Spec, chosen: tuple[str, ...], infos: list[OpInfo], unmapped: list[Unmapped]
) -> tuple[list[OpInfo], list[Unmapped]]:
    """Operations whose security the drafted auth meets; the others stay unmapped, with why: the server
    sends one set of credentials to every operation (obono.at.json GET /auth takes basicAuth alone,
    every other operation jwt; the petstore's findPetsByStatus takes its OAuth petstore_auth alone,
    and an api_key sent instead is refused: P3 credentials)."""
    schemes = spec.security_schemes()
    kept: list[OpInfo] = []
    for info in infos:
        wanted = _requirements(spec, info.op)
        if not wanted or any(set(r) <= set(chosen) for r in wanted):
            kept.append(info)
            continue
        unmapped = [*unmapped, Unmapped(operation=shown(info.op), reason=_unserved(schemes, wanted, chosen))]
    return kept, unmapped


def _unserved(schemes: dict[str, Any], wanted: list[tuple[str, ...]], chosen: tuple[str, ...]) -> str:
    """Why the server cannot call an operation: the credentials it needs, said with their kind (an OAuth
    flow the draft does not set up), and how to serve it."""
    needs = " or ".join(
        " and ".join(f"securitySchemes.{n}{_kind(schemes.get(n))}" for n in r) for r in wanted
    )
    sends = " and ".join(f"securitySchemes.{n}" for n in chosen)
    return (
        f"needs {needs}, which this draft does not set up: the server sends {sends} to every operation; "
        f"to serve it, map it in a server of its own whose auth sends that ({rule_name('P3')})"
    )


def _kind(scheme: Any) -> str:
    if not isinstance(scheme, dict):
        return ""
    if scheme.get("type") == "oauth2":
        flows = scheme.get("flows")
        named = sorted(flows) if isinstance(flows, dict) else []
        return f" (OAuth 2.0{' ' + ', '.join(named) if named else ''})"
    if scheme.get("type") == "openIdConnect":
        return " (OpenID Connect)"
    return ""


def _scheme_rank(scheme: Any) -> int | None:
    if not isinstance(scheme, dict):
        return None
    kind, http = scheme.get("type"), str(scheme.get("scheme", "")).lower()
    if kind == "http" and http == "bearer":
        return 0
    if kind == "apiKey" and scheme.get("in") in ("header", "query") and scheme.get("name"):
        return 1
    if kind == "http" and http == "basic":
        return 2
    if kind in ("oauth2", "openIdConnect"):
        return 3
    return None


def _requirements(spec: Spec, operation: Operation) -> list[tuple[str, ...]]:
    """The operation's security requirements (its own, else the spec's), each as its scheme names."""
    own = operation.located.value.get("security")
    listed = own if isinstance(own, list) else spec.document.data.get("security")
    if not isinstance(listed, list):
        return []
    return [tuple(sorted(r)) for r in listed if isinstance(r, dict)]


def _env_word(scheme_name: str) -> str:
    return (re.sub(r"[^A-Za-z0-9]+", "_", snake_case(scheme_name)).strip("_").upper() or "CREDENTIAL")[:40]


def _wanted_scopes(spec: Spec, scheme: str) -> set[str]:
    """The scopes the operations' requirements of this scheme name (the least the server asks for)."""
    wanted: set[str] = set()
    for operation in spec.operations:
        own = operation.located.value.get("security")
        listed = own if isinstance(own, list) else spec.document.data.get("security")
        for requirement in listed if isinstance(listed, list) else ():
            scopes = requirement.get(scheme) if isinstance(requirement, dict) else None
            wanted.update(s for s in scopes if isinstance(s, str)) if isinstance(scopes, list) else None
    return wanted


def _draft_auth(
    name: str,
    scheme: dict[str, Any],
    rank: int,
    env_stem: str,
    env: str | None,
    oauth: tuple[set[str], str | None] = (set(), None),
) -> DraftAuth:
    why = f"from securitySchemes.{name}"
    if rank == 1 and scheme["in"] == "header" and str(scheme["name"]).lower() == "authorization":
        return authorization_key(name, scheme, env_stem, env)
    if rank == 3 and not env:
        flow = oauth_flow(name, scheme, oauth[0], oauth[1], env_stem)
        if flow is not None:
            return flow
    if rank == 1:
        return DraftAuth(
            type="api_key",
            env=env or f"{env_stem}_API_KEY",
            location=scheme["in"],
            name=str(scheme["name"]),
            why=why,
        )
    if rank == 2:
        return DraftAuth(
            type="basic",
            env=env or f"{env_stem}_CREDENTIALS",
            location=None,
            name=None,
            why=why + " ('user:password')",
        )
    if rank == 3:
        why += f" ({scheme['type']}: get a token elsewhere and set it; the server sends it as a bearer token)"
    return DraftAuth(type="bearer", env=env or f"{env_stem}_TOKEN", location=None, name=None, why=why)
