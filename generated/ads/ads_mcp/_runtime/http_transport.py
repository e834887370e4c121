"""The streamable HTTP transport: Host and Origin checks, bearer tokens when the package checks
access, `GET /healthz` for balancers, a request id in every answer and log line, and a call
cancelled when its client hangs up (disconnect.py)."""

from __future__ import annotations

import contextvars
import json
import logging
import re
import uuid
from collections.abc import Sequence
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings

from .callers import HttpAccess
from .disconnect import CancelOnDisconnect

log = logging.getLogger("mcp_server")

_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# Names a deployment adds to the allowed Host set (a balancer's public name), beside --allowed-host.
ALLOWED_HOSTS_ENV = "MCP_ALLOWED_HOSTS"
# A host name or an IP address (IPv6 in brackets), optionally with a port: what a Host header carries.
_HOST_NAME = re.compile(
    r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::[0-9]{1,5})?"
)


def allowed_host_names(env_value: str | None, flags: Sequence[str]) -> list[str]:
    """The names $MCP_ALLOWED_HOSTS (comma- or space-separated) and --allowed-host add, in order, once
    each; ValueError names one that cannot be a Host header's value and says what to write instead."""
    names = [*(env_value or "").replace(",", " ").split(), *flags]
    for name in names:
        if not _HOST_NAME.fullmatch(name):
            raise ValueError(
                f"allowed host {name!r} is not a host name: give the name clients reach the server by, "
                "as it appears in their Host header (api.example.com, or api.example.com:8443 for one "
                "port), without a scheme, path or wildcard"
            )
    return list(dict.fromkeys(names))


def transport_security(bind: str, extra: Sequence[str]) -> TransportSecuritySettings:
    """Host and Origin are always checked (DNS rebinding). Allowed: the loopback names and the bind
    address on any port, and each extra name: on any port (or without one, as behind a balancer on 443)
    unless it names its port. Nothing else, so the default stays loopback-only."""
    hosts = [f"{h}:*" for h in dict.fromkeys((*_LOOPBACK_HOSTS, bind))]
    origins = [f"http://{h}" for h in hosts]
    for name in extra:
        given = [name] if _has_port(name) else [name, f"{name}:*"]
        hosts += given
        origins += [f"{scheme}://{h}" for h in given for scheme in ("http", "https")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(dict.fromkeys(hosts)),
        allowed_origins=list(dict.fromkeys(origins)),
    )


def _has_port(name: str) -> bool:
    return re.search(r":[0-9]+$", name) is not None and not name.endswith("]")


def serve_http(
    server: Server[Any],
    host: str,
    port: int,
    access: HttpAccess | None,
    allowed_hosts: Sequence[str] = (),
) -> None:
    import uvicorn

    security = transport_security(host, allowed_hosts)
    if allowed_hosts:
        log.info("Host header also allowed: %s", ", ".join(allowed_hosts))
    app = server.streamable_http_app(
        host=host,
        stateless_http=True,
        json_response=True,
        transport_security=security,
        **(access.http_auth() if access is not None else {}),
    )
    log.info("serving streamable HTTP on http://%s:%d/mcp", host, port)
    # JSON answers, and a client that hangs up cancels its call (disconnect.py); GET /healthz for balancers.
    uvicorn.run(
        with_health_check(CancelOnDisconnect(app)),
        host=host,
        port=port,
        log_level="warning",
    )


_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "request_id", default=None
)


class JsonLogFormatter(logging.Formatter):
    """One JSON object a line (for log collectors), with the HTTP request's id when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        request_id = _request_id.get()
        if request_id is not None:
            entry["request_id"] = request_id
        return json.dumps(entry, ensure_ascii=False)


def use_json_logs() -> None:
    for handler in logging.getLogger().handlers:
        handler.setFormatter(JsonLogFormatter())


def _request_id_of(scope: Any) -> str:
    """The caller's X-Request-Id when it is a plain token (a balancer's), else a new one."""
    for key, value in scope.get("headers", ()):
        if key == b"x-request-id":
            given = str(value.decode("latin-1"))
            if re.fullmatch(r"[A-Za-z0-9._:-]{1,128}", given):
                return given
    return uuid.uuid4().hex


HEALTH_PATH = "/healthz"


def with_health_check(app: Any) -> Any:
    """`app` plus `GET /healthz`, answered 200 before any Host check or token: what a load balancer
    asks each replica before sending it traffic. The replica holds no state of its own (previews live
    in the shared store), so serving requests is all it has to say. Every other HTTP request gets an
    id (the caller's X-Request-Id, or a new one): in the JSON logs and in the answer's X-Request-Id."""
    body = b'{"status": "ok"}'

    async def serve(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == HEALTH_PATH:
            status = 200 if scope["method"] in ("GET", "HEAD") else 405
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
            ]
            await send(
                {"type": "http.response.start", "status": status, "headers": headers}
            )
            await send(
                {
                    "type": "http.response.body",
                    "body": body if scope["method"] == "GET" else b"",
                }
            )
            return
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        request_id = _request_id_of(scope)
        token = _request_id.set(request_id)

        async def send_with_id(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    *message.get("headers", ()),
                    (b"x-request-id", request_id.encode()),
                ]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await app(scope, receive, send_with_id)
        finally:
            _request_id.reset(token)

    return serve
