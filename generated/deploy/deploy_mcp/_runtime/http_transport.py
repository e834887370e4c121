"""The streamable HTTP transport: Host and Origin checks (http_guard.py), bearer tokens when the
package checks access, `GET /healthz` for balancers, a request id in every answer and log line, and a call
cancelled when its client hangs up (disconnect.py)."""

from __future__ import annotations

import contextvars
import json
import logging
import re
import uuid
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings

from .callers import HttpAccess
from .disconnect import CancelOnDisconnect
from .http_guard import Allowed, HostOriginGuard

log = logging.getLogger("mcp_server")


def serve_http(
    server: Server[Any],
    host: str,
    port: int,
    access: HttpAccess | None,
    allowed: Allowed,
    routes: list[Any] | None = None,
) -> None:
    """`routes`: served beside /mcp (a user's upstream sign-in callback, oauth_user.py)."""
    import uvicorn

    log.info("Host header allowed: %s", allowed.hosts_text())
    log.info("Origin header allowed: %s", allowed.origins_text())
    app = server.streamable_http_app(
        host=host,
        stateless_http=True,
        json_response=True,
        # HostOriginGuard checks Host and Origin for every request, without regard to case; the SDK's
        # own check (on by default for a loopback bind) compares case-sensitively and allows every
        # localhost port as an Origin, so it is off here.
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=False
        ),
        **(access.http_auth() if access is not None else {}),
        custom_starlette_routes=routes or None,
    )
    log.info("serving streamable HTTP on http://%s:%d/mcp", host, port)
    # Host and Origin checked before anything else; JSON answers, and a client that hangs up cancels
    # its call (disconnect.py); GET /healthz for balancers.
    uvicorn.run(
        with_health_check(HostOriginGuard(CancelOnDisconnect(app), allowed)),
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
