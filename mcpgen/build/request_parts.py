"""Parts of a request the agent is never asked for: credentials, the spec's global parameters, values
the spec allows only one of, and the Accept header (issue 17 defect 3, issue 12 oracle category a).

- A parameter that carries a credential (the `name` of an apiKey security scheme, or a name like key,
  token, api_key, access_token, oauth_token) is never an agent argument: the server sends its own
  credential (P3), and an agent's value next to it would reach the API (rule "credentials").
- A parameter every operation of the spec takes (Google's alt, fields, prettyPrint, quotaUser...) is
  about the transport, not the task: it is left out unless the mapping names it in the action's params.
- A required header, query or cookie parameter whose schema allows one value (AWS `X-Amz-Target`) is
  sent with that value; the agent never sees it.
- Accept names what the operation answers: JSON when it offers it, else its own JSON type
  (`application/prs.openbanking.opendata.v2.2+json`), else the types it declares.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from typing import Any

from mcpgen.load.mapping import UNSET
from mcpgen.load.openapi import Operation, Spec

# Names of parameters that carry a credential, compared without case, '-' or '_'.
CREDENTIAL_NAMES = frozenset(
    {
        "apikey",
        "xapikey",
        "accesstoken",
        "oauthtoken",
        "authtoken",
        "apitoken",
        "bearertoken",
        "sessiontoken",
        "idtoken",
        "refreshtoken",
        "authorization",
        "apisecret",
        "clientsecret",
        "secretkey",
        "appkey",
        "apptoken",
        "subscriptionkey",
        "ocpapimsubscriptionkey",
    }
)
# A vendor's prefix on one of these still names a credential (ExaVault's `ev-api-key`, `ev-access-token`).
CREDENTIAL_SUFFIXES = ("apikey", "accesstoken", "authtoken", "apitoken", "apisecret", "clientsecret")
# Names that carry a credential only when the description says so: GitHub's cache `key` and Jira's
# preference `key` are data; Google's `key` is "API key", Slack's `token` an "Authentication token".
_AMBIGUOUS_NAMES = frozenset({"key", "token", "auth", "secret", "signature"})
_CREDENTIAL_WORDS = re.compile(
    r"\b(api[ _-]?key|credential|authenticat\w*|authoriz\w*|access token|oauth|bearer)\b", re.I
)
_OUTSIDE_BODY = ("query", "header", "cookie")
_MIN_OPERATIONS_FOR_GLOBAL = 3  # in a spec this small, "every operation" says nothing


def is_credential(spec: Spec, name: str, location: str, description: str = "") -> bool:
    """Does this query, header or cookie parameter carry a credential?"""
    if location not in _OUTSIDE_BODY:
        return False
    if (name.lower(), location) in _scheme_params(SpecKey(spec)):
        return True
    bare = re.sub(r"[-_.\s]", "", name.lower())
    if bare in _AMBIGUOUS_NAMES:
        return _CREDENTIAL_WORDS.search(description) is not None
    return bare in CREDENTIAL_NAMES or bare.endswith(CREDENTIAL_SUFFIXES)


def is_global(spec: Spec, name: str, location: str) -> bool:
    """Does every operation of the spec take this optional parameter (a transport option, not a task's)?"""
    return (name, location) in _global_params(SpecKey(spec))


def single_value(schema: dict[str, Any]) -> Any:
    """The one value a schema allows (`const`, or an `enum` of one), else UNSET."""
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and len(enum) == 1:
        return enum[0]
    return UNSET


def constant(location: str, required: bool, schema: dict[str, Any]) -> Any:
    """The value the server sends itself for a required non-body parameter that allows one, else UNSET."""
    if location not in _OUTSIDE_BODY or not required:
        return UNSET
    return single_value(schema)


_ANY_MEDIA = "*/*"


def accept_for(spec: Spec, operation: Operation) -> str | None:
    """The Accept header the operation's success answers call for; None means application/json."""
    declared = [
        value.get("default") or (value.get("enum") or [None])[0]
        for value in (
            (p.value.get("schema") or {})
            for p in operation.parameters
            if str(p.value.get("in")) == "header" and str(p.value.get("name", "")).lower() == "accept"
        )
        if isinstance(value, dict)
    ]
    types = _success_media_types(spec, operation)
    specific = [t for t in types if t != _ANY_MEDIA]
    if any(t == "application/json" for t in specific) or not types:
        return None if not declared or declared[0] == "application/json" else str(declared[0])
    if not specific:
        # `*/*` only (quicksold.co.uk/location.json, apideck's downloads): JSON first, anything else
        # after it; a lone application/json is not among what the operation declares (Prism: 406).
        return str(declared[0]) if declared and declared[0] else f"application/json, {_ANY_MEDIA};q=0.8"
    own_json = [t for t in specific if _is_json(t)]
    if own_json:
        return own_json[0]
    # An Accept parameter's default is the spec's word only where it names what the operation answers:
    # vtex.local/Orders-API.json defaults it to application/json on an answer of text/plain only (406).
    if declared and isinstance(declared[0], str) and declared[0].split(";")[0].strip() in specific:
        return declared[0]
    return ", ".join(specific)


def non_json_answers(spec: Spec, operation: Operation) -> list[str]:
    """The media types of the operation's success answers when none of them is JSON (a PDF, a PNG, an
    HTML page): a generated server cannot read such an answer. [] when it answers JSON, may answer
    anything (`*/*`), or says nothing."""
    types = _success_media_types(spec, operation)
    if types == [_ANY_MEDIA] and _string_any(spec, operation):
        # apideck.com/file-storage.json GET /file-storage/files/{id}/download (a binary string);
        # Kubernetes' pod proxy (a string: whatever the pod serves, text/plain from Prism).
        return [f"{_ANY_MEDIA} (binary)"]
    if not types or _ANY_MEDIA in types or any(_is_json(t) for t in types):
        return []
    return types


def _string_any(spec: Spec, operation: Operation) -> bool:
    """Every `*/*` success answer is a string (of format binary or none): the body itself, text or a
    file, never a JSON document."""
    responses = operation.located.value.get("responses")
    schemas = []
    for status in responses if isinstance(responses, dict) else ():
        if str(status).startswith("2"):
            response = spec.resolver.deref(operation.located.child("responses", status)).value
            content = response.get("content") if isinstance(response, dict) else None
            if isinstance(content, dict) and isinstance(content.get(_ANY_MEDIA), dict):
                schemas.append(content[_ANY_MEDIA].get("schema"))
    return bool(schemas) and all(
        isinstance(s, dict)
        and (s.get("format") == "binary" or (s.get("type") == "string" and not s.get("format")))
        for s in schemas
    )


def _is_json(media: str) -> bool:
    return media.endswith("+json") or media.endswith("/json")


def _success_media_types(spec: Spec, operation: Operation) -> list[str]:
    """The media types of the 2xx answers, else of the `default` one, else of every answer the spec
    lists (adobe.com/aem.json GET /crx/packmgr/service/script.html documents 404 and 405 only, both
    text/html). Answers given as `$ref`s are followed (apideck.com/connector.json
    /components/responses/GetConnectorDocResponse is text/markdown)."""
    responses = operation.located.value.get("responses")
    if not isinstance(responses, dict):
        return []
    statuses = [status for status in responses if str(status).startswith("2")]
    if not statuses:
        statuses = ["default"] if isinstance(responses.get("default"), dict) else list(responses)
    found: list[str] = []
    for status in statuses:
        response = spec.resolver.deref(operation.located.child("responses", status)).value
        content = response.get("content") if isinstance(response, dict) else None
        if isinstance(content, dict):
            found += [str(m).split(";")[0].strip().lower() for m in content]
    return list(dict.fromkeys(found))


class SpecKey:
    """A spec as a cache key by identity: Spec holds dicts, so it cannot hash by value."""

    def __init__(self, spec: Spec):
        self.spec = spec

    def __hash__(self) -> int:
        return id(self.spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SpecKey) and other.spec is self.spec


@functools.lru_cache(maxsize=8)
def _scheme_params(key: SpecKey) -> frozenset[tuple[str, str]]:
    schemes = key.spec.security_schemes()
    return frozenset(
        (str(s.get("name", "")).lower(), str(s.get("in")))
        for s in schemes.values()
        if isinstance(s, dict) and s.get("type") == "apiKey"
    )


@functools.lru_cache(maxsize=8)
def _global_params(key: SpecKey) -> frozenset[tuple[str, str]]:
    operations = key.spec.operations
    if len(operations) < _MIN_OPERATIONS_FOR_GLOBAL:
        return frozenset()
    counts: Counter[tuple[str, str]] = Counter()
    for operation in operations:
        counts.update(
            {
                (str(p.value.get("name")), str(p.value.get("in")))
                for p in operation.parameters
                if p.value.get("in") in _OUTSIDE_BODY and not p.value.get("required")
            }
        )
    return frozenset(param for param, count in counts.items() if count == len(operations))
