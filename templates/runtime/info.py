"""The `<name>_server_info` diagnostic tool: what this server is and whether it can reach its API.

It names the credential environment variables and says whether each is set, never what it holds (E5 no internals),
and probes the base URL without credentials: any HTTP answer means the API is reachable.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
import httpx

from .callers import current_caller
from .errors import ToolError
from .upstream import Upstream

PROBE_TIMEOUT_S = 5.0


async def server_info(
    name: str, version: str, upstream: Upstream, client: httpx.AsyncClient
) -> dict[str, Any]:
    from_env = bool(os.environ.get(upstream.base_url_env))
    info: dict[str, Any] = {
        "server": name,
        "version": version,
        "base_url": "",
        "base_url_from": f"environment variable {upstream.base_url_env}"
        if from_env
        else "the server's default",
        "credentials": await _credentials(upstream),
    }
    try:
        info["base_url"] = upstream.base_url()
    except ToolError as exc:
        info["upstream"] = {"reachable": False, "problem": exc.what}
        return info
    info["upstream"] = await _probe(info["base_url"], upstream, client)
    return info


async def _credentials(upstream: Upstream) -> list[dict[str, Any]]:
    if upstream.tokens is not None:
        caller = current_caller()
        return await upstream.tokens.described(
            caller.subject if caller is not None else ""
        )
    return [
        {
            "env": auth.env,
            "kind": auth.kind,
            "configured": bool(os.environ.get(auth.env)),
        }
        for auth in upstream.auths
    ]


async def _probe(
    base_url: str, upstream: Upstream, client: httpx.AsyncClient
) -> dict[str, Any]:
    timeout = min(upstream.timeout_s, PROBE_TIMEOUT_S)
    try:
        with anyio.fail_after(timeout):
            # Only the status line matters: the body, however big, is never read.
            async with client.stream(
                "GET", base_url + "/", timeout=timeout
            ) as response:
                status = response.status_code
    except (httpx.TimeoutException, TimeoutError):
        return {"reachable": False, "problem": f"no answer within {timeout:g} s"}
    except httpx.HTTPError as exc:
        return {"reachable": False, "problem": f"cannot connect ({type(exc).__name__})"}
    return {"reachable": True, "status": status}
