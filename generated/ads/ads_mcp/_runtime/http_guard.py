"""Which HTTP requests the server takes: the Host and Origin checks (DNS-rebinding protection).

Host: a browser led to this server by DNS rebinding sends the attacker's name, so only the loopback
names, the bind address and the names a deployment allows pass (421 otherwise). Origin: a browser
page sends its own origin, and a page of another site, or of another program on this machine (any
other localhost port), must not call the server; only the server's own origins (http, the loopback
names and bind address, the port it listens on) and the allowed ones pass (403 otherwise). A request
without an Origin header comes from no browser page and passes. Host names and schemes compare
without regard to case (RFC 3986 section 3.2.2, RFC 9110 section 4.2.3). Every refusal says what is
allowed and how to allow more.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("mcp_server")

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# Names a deployment adds to the allowed Host set (a balancer's public name), beside --allowed-host.
ALLOWED_HOSTS_ENV = "MCP_ALLOWED_HOSTS"
# Origins of browser pages allowed to call the server (a web client's), beside --allowed-origin.
ALLOWED_ORIGINS_ENV = "MCP_ALLOWED_ORIGINS"
_NAME = r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)"
# A host name or an IP address (IPv6 in brackets), optionally with a port: what a Host header carries.
_HOST = re.compile(rf"(?P<name>{_NAME})(?::(?P<port>[0-9]{{1,5}}))?")
# scheme://host[:port] and nothing after: what an Origin header carries.
_ORIGIN = re.compile(rf"(?P<scheme>https?)://(?P<host>{_NAME}(?::[0-9]{{1,5}})?)", re.I)
_DEFAULT_PORTS = {"http": "80", "https": "443"}
# Public metadata that browser-based clients read across origins (the SDK answers it with CORS).
_UNGUARDED_PREFIX = "/.well-known/"


def allowed_host_names(env_value: str | None, flags: Sequence[str]) -> list[str]:
    """The names $MCP_ALLOWED_HOSTS (comma- or space-separated) and --allowed-host add, in order, once
    each; ValueError names one that cannot be a Host header's value and says what to write instead."""
    names = _listed(env_value, flags)
    for name in names:
        if not _HOST.fullmatch(name):
            raise ValueError(
                f"allowed host {name!r} is not a host name: give the name clients reach the server by, "
                "as it appears in their Host header (api.example.com, or api.example.com:8443 for one "
                "port), without a scheme, path or wildcard"
            )
    return list(dict.fromkeys(name.lower() for name in names))


def allowed_origin_values(env_value: str | None, flags: Sequence[str]) -> list[str]:
    """The origins $MCP_ALLOWED_ORIGINS (comma- or space-separated) and --allowed-origin add, in order,
    once each, as browsers write them; ValueError names one that is no origin and says what to write."""
    origins = []
    for given in _listed(env_value, flags):
        origin = _origin(given)
        if origin is None:
            raise ValueError(
                f"allowed origin {given!r} is not an origin: give the scheme, host and port of the "
                "page that calls the server, as its Origin header says (https://app.example.com, or "
                "http://localhost:6274), without a path, trailing slash or wildcard"
            )
        origins.append(origin)
    return list(dict.fromkeys(origins))


def _listed(env_value: str | None, flags: Sequence[str]) -> list[str]:
    return [*(env_value or "").replace(",", " ").split(), *flags]


def _origin(value: str) -> str | None:
    """`value` as a browser serializes an origin (lower case, no default port), or None."""
    match = _ORIGIN.fullmatch(value.strip())
    if match is None:
        return None
    scheme = match["scheme"].lower()
    host = match["host"].lower()
    default = f":{_DEFAULT_PORTS[scheme]}"
    return f"{scheme}://{host.removesuffix(default)}"


@dataclass(frozen=True, slots=True)
class Allowed:
    """What passes: Host names on any port (and without one), Host name:port pairs, exact origins, and
    scheme://name origins on any port. All in lower case; tuples keep the order refusals list them in."""

    host_names: tuple[str, ...]
    host_ports: tuple[str, ...]
    origins: tuple[str, ...]
    origin_names: tuple[str, ...]

    def host(self, value: str) -> bool:
        match = _HOST.fullmatch(value.strip().lower())
        if match is None:
            return False
        return match["name"] in self.host_names or match[0] in self.host_ports

    def origin(self, value: str) -> bool:
        origin = _origin(value)
        if origin is None:
            return False
        return origin in self.origins or origin.rsplit(":", 1)[0] in self.origin_names

    def hosts_text(self) -> str:
        return ", ".join(
            [*(f"{n} (any port)" for n in self.host_names), *self.host_ports]
        )

    def origins_text(self) -> str:
        return ", ".join(
            f"{o} (any port)" if o in self.origin_names else o for o in self.origins
        )


def allowed_requests(
    bind: str, port: int, hosts: Sequence[str] = (), origins: Sequence[str] = ()
) -> Allowed:
    """The loopback names and the bind address pass as Host on any port, and as the origin
    http://name:<port the server listens on>. Each extra host passes as Host and, over http and https,
    as an origin: on any port (or without one, as behind a balancer on 443) unless it names its port.
    Each extra origin passes as itself. Nothing else, so the default stays loopback-only."""
    bound = f"[{bind}]" if ":" in bind and not bind.startswith("[") else bind
    own = list(dict.fromkeys(n.lower() for n in (*LOOPBACK_HOSTS, bound)))
    extra_names = [h for h in hosts if not _has_port(h)]
    extra_ports = [h for h in hosts if _has_port(h)]
    own_origins = [_origin(f"http://{name}:{port}") for name in own]
    extra_origins = [
        _origin(f"{scheme}://{h}") for h in hosts for scheme in ("http", "https")
    ]
    return Allowed(
        host_names=_unique([*own, *extra_names]),
        host_ports=_unique(extra_ports),
        origins=_unique([*own_origins, *extra_origins, *origins]),
        origin_names=_unique(
            f"{scheme}://{h}" for h in extra_names for scheme in ("http", "https")
        ),
    )


def configured_requests(
    environ: Mapping[str, str],
    bind: str,
    port: int,
    host_flags: Sequence[str],
    origin_flags: Sequence[str],
) -> Allowed:
    """What passes, with the hosts and origins the environment and the command line add; ValueError
    says which one given is malformed and what to write instead."""
    return allowed_requests(
        bind,
        port,
        allowed_host_names(environ.get(ALLOWED_HOSTS_ENV), host_flags),
        allowed_origin_values(environ.get(ALLOWED_ORIGINS_ENV), origin_flags),
    )


def _unique(values: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v.lower() for v in values if v is not None))


def _has_port(name: str) -> bool:
    return re.search(r":[0-9]+$", name) is not None and not name.endswith("]")


class HostOriginGuard:
    """Answers 421 to a request whose Host is not allowed and 403 to one from a page whose Origin is
    not allowed, before any token check or handler; the text says what is allowed and how to allow
    more. Everything else goes on to `app`."""

    def __init__(self, app: ASGIApp, allowed: Allowed):
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith(_UNGUARDED_PREFIX):
            refusal = self.refusal(_values(scope, b"host"), _values(scope, b"origin"))
            if refusal is not None:
                await _refuse(send, *refusal)
                return
        await self.app(scope, receive, send)

    def refusal(self, hosts: list[str], origins: list[str]) -> tuple[int, str] | None:
        """(status, text) for a request with these Host and Origin headers, or None when it passes.
        One Host header is needed (HTTP/1.1 requires it), and every Origin header must pass."""
        if len(hosts) != 1 or not self.allowed.host(hosts[0]):
            shown = hosts[0] if len(hosts) == 1 and _HOST.fullmatch(hosts[0]) else None
            log.warning(
                "refused a request for Host %s", shown or "(missing or malformed)"
            )
            return 421, (
                f"Host {shown or 'header (missing, repeated or malformed)'} is not served here "
                f"(DNS-rebinding protection): the server answers to {self.allowed.hosts_text()}. "
                "To serve another name (a load balancer's), start it with --allowed-host NAME "
                f"or set {ALLOWED_HOSTS_ENV}=NAME (comma-separated)."
            )
        for origin in origins:
            if not self.allowed.origin(origin):
                return 403, self._origin_refused(origin)
        return None

    def _origin_refused(self, origin: str) -> str:
        shown = _origin(origin)
        named = shown or repr(origin[:80])  # `null` from a file or sandboxed page
        log.warning("refused a request from Origin %s", named)
        allow = (
            f"To allow another page's origin, start the server with --allowed-origin {shown} "
            f"or set {ALLOWED_ORIGINS_ENV}={shown} (comma-separated)."
            if shown
            else "Only a scheme://host[:port] origin can be allowed."
        )
        return (
            f"Origin {named} may not call this server: only pages from "
            f"{self.allowed.origins_text()} may. {allow}"
        )


def _values(scope: Scope, name: bytes) -> list[str]:
    return [
        value.decode("latin-1")
        for key, value in scope.get("headers", ())
        if key == name
    ]


async def _refuse(send: Send, status: int, text: str) -> None:
    body = text.encode()
    headers: list[Any] = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", b"%d" % len(body)),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
