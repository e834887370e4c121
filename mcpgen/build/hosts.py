"""Operations the spec sends to a server of their own (issue 12 defect 5): Box uploads go to
`https://upload.box.com/api/2.0` while the API is `https://api.box.com/2.0`.

An operation- or path-level `servers` entry that differs from the API's base URL gives the action its
own base URL, with an environment variable of its own, named for its host (`BOX_UPLOAD_BASE_URL`), that
wins over it at run time, as `<NAME>_BASE_URL` does for the API.

Where the credential goes (rule "credentials"): only to URLs the spec declares for that operation, or
that the user set. When the user moves the API (sets the server's base-URL variable: a proxy, a mock,
staging) and not the operation's own variable, the operation follows the API's base URL: the server
never sends the credential to a host the user did not choose next to one they did. Redirects are
never followed, whichever host answers.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any
from urllib.parse import urljoin, urlsplit

from mcpgen.ir import ActionSpec, ToolSpec
from mcpgen.load.openapi import Operation, Spec, find_operation


def with_own_hosts(tools: list[ToolSpec], spec: Spec, server_name: str, base_url: str) -> list[ToolSpec]:
    """The tools with each action that the spec sends elsewhere given that URL and its variable."""
    envs: dict[str, str] = {}
    out = []
    for tool in tools:
        actions = tuple(_hosted(action, spec, server_name, base_url, envs) for action in tool.actions)
        out.append(replace(tool, actions=actions))
    return out


def _hosted(
    action: ActionSpec, spec: Spec, server_name: str, base_url: str, envs: dict[str, str]
) -> ActionSpec:
    operation = find_operation(spec, f"{action.method} {action.path}")
    own = own_server_url(spec, operation, base_url) if operation is not None else None
    if own is None:
        return action
    if own not in envs:
        envs[own] = _env_name(server_name, own, base_url, set(envs.values()))
    return replace(action, base_url=own, base_url_env=envs[own])


def own_server_url(spec: Spec, operation: Operation, base_url: str) -> str | None:
    """The first usable URL of the operation's (else its path's) servers, when it is not the API's."""
    servers = operation.located.value.get("servers")
    if not isinstance(servers, list) or not servers:
        path_item = (spec.document.data.get("paths") or {}).get(operation.path)
        servers = path_item.get("servers") if isinstance(path_item, dict) else None
    if not isinstance(servers, list):
        return None
    for server in servers:
        url = _concrete(server, base_url)
        if url is not None:
            return None if url.rstrip("/") == base_url.rstrip("/") else url.rstrip("/")
    return None


def _concrete(server: Any, base_url: str) -> str | None:
    """A server object's URL with its variables at their defaults, relative ones against the API's."""
    if not isinstance(server, dict) or not isinstance(server.get("url"), str):
        return None
    found = server.get("variables")
    variables: dict[str, Any] = found if isinstance(found, dict) else {}
    url = re.sub(
        r"\{([^{}]+)\}",
        lambda m: str((variables.get(m.group(1)) or {}).get("default", m.group(0))),
        server["url"],
    )
    if "{" in url:
        return None
    if not url.startswith(("http://", "https://")):
        if not base_url:
            return None
        url = urljoin(base_url.rstrip("/") + "/", url.lstrip("/"))
    return url


def _env_name(server_name: str, url: str, base_url: str, taken: set[str]) -> str:
    """`BOX_UPLOAD_BASE_URL` for upload.box.com next to api.box.com; the path's words when the host is
    the API's own; a number when neither tells them apart."""
    host = urlsplit(url).hostname or ""
    main = urlsplit(base_url).hostname or ""
    words = [w for w in host.split(".")[:-2] if w] if host != main else []
    if not words or words == [w for w in main.split(".")[:-2] if w]:
        words = [w for w in urlsplit(url).path.split("/") if w][-1:]
    label = re.sub(r"[^A-Z0-9]+", "_", "_".join(words).upper()).strip("_") or "OTHER"
    stem = f"{server_name.upper()}_{label}"
    name, count = f"{stem}_BASE_URL", 2
    while name in taken or name == f"{server_name.upper()}_BASE_URL":
        name, count = f"{stem}_{count}_BASE_URL", count + 1
    return name
