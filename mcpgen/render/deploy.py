"""The package's deployment files: a Dockerfile, and a compose file running N replicas behind haproxy
with Redis as the shared preview store (persisted on a volume), every replica signing with one
MCP_SIGNING_KEY. The servers hold no state of their own over streamable HTTP,
so round robin per request is safe; previews are claimed atomically in Redis, so an apply sent to
any replica, or to several at once, changes the API once."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from mcpgen.ir import RenderedFile, ServerSpec
from mcpgen.render.clients import server_env
from mcpgen.render.pyemit import EmitError

# The generated server's environment variables these files set (templates/runtime: app.py, store.py).
ALLOWED_HOSTS_ENV = "MCP_ALLOWED_HOSTS"
STORE_URL_ENV = "MCP_STORE_URL"
SIGNING_KEY_ENV = "MCP_SIGNING_KEY"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

REPLICAS = 3
SERVER_PORT = 8000
BALANCER_PORT = 8080


def deploy_files(server: ServerSpec, header: str, uses_store: bool) -> list[RenderedFile]:
    return [
        RenderedFile("Dockerfile", dockerfile(server, header, uses_store)),
        RenderedFile("compose.yaml", compose(server, header, uses_store)),
        RenderedFile("haproxy.cfg", haproxy_config(header, [f"server:{SERVER_PORT}"], docker=True)),
    ]


def dockerfile(server: ServerSpec, header: str, uses_store: bool) -> str:
    """The image. The one derived string, the console script, goes in CMD's exec form, a JSON array
    (json.dumps writes it): no character of it can end the line or the instruction."""
    target = ".[redis]" if uses_store else "."
    command = _exec_form(
        [server.distribution_name, "--http", "--host", "0.0.0.0", "--port", str(SERVER_PORT)]
    )
    return f"""{header}
FROM python:3.12-slim
WORKDIR /app
COPY . /app
RUN pip install --no-cache-dir '{target}'
USER nobody
EXPOSE {SERVER_PORT}
# The balancer's check, also Docker's own.
HEALTHCHECK --interval=10s --timeout=3s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:{SERVER_PORT}/healthz')"
# The server answers only requests whose Host header is a loopback name or its bind address (DNS-rebinding
# protection). Behind a balancer reached by a real name, allow that name: MCP_ALLOWED_HOSTS=api.example.com
# (comma-separated), or append "--allowed-host", "api.example.com" to the command.
CMD {command}
"""


def _exec_form(arguments: list[str]) -> str:
    # ASCII only: U+2028 and other line separators are escaped too, not just newlines.
    return json.dumps(arguments, ensure_ascii=True)


def compose(server: ServerSpec, header: str, uses_store: bool) -> str:
    """The compose file, built as data and written by the YAML serializer: no value from the spec or
    the mapping can add a key, a service, an anchor or a tag. Values compose would interpolate are
    escaped for it (`compose_literal`, `compose_variable`)."""
    environment = {v.name: compose_variable(v.name, required=True) for v in server_env(server) if v.secret}
    environment |= {
        v.name: compose_variable(v.name, default=v.value) for v in server_env(server) if not v.secret
    }
    environment[ALLOWED_HOSTS_ENV] = compose_variable(ALLOWED_HOSTS_ENV, default="")
    services: dict[str, Any] = {
        "server": {"build": ".", "deploy": {"replicas": REPLICAS}, "environment": environment}
    }
    document: dict[str, Any] = {"services": services}
    if uses_store:
        environment[STORE_URL_ENV] = compose_literal("redis://redis:6379/0")
        environment[SIGNING_KEY_ENV] = compose_variable(SIGNING_KEY_ENV, required=True)
        services["server"]["depends_on"] = ["redis"]
        # Kept on a volume, written at every change (appendonly): a restarted Redis still holds the
        # previews, the user's answers and the tasks, and what they were claimed for.
        services["redis"] = {
            "image": "redis:7-alpine",
            "command": ["redis-server", "--appendonly", "yes", "--appendfsync", "always", "--dir", "/data"],
            "volumes": ["redis-data:/data"],
        }
    services["balancer"] = {
        "image": "haproxy:2.8",
        "volumes": ["./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"],
        "ports": [f"127.0.0.1:{BALANCER_PORT}:{BALANCER_PORT}"],
        "depends_on": ["server"],
    }
    if uses_store:
        document["volumes"] = {"redis-data": {}}
    notes = [
        f"docker compose up --build: {REPLICAS} replicas of the server behind haproxy on "
        f"http://127.0.0.1:{BALANCER_PORT}/mcp",
        f"{ALLOWED_HOSTS_ENV}: the names clients reach the balancer by, comma-separated: others are refused.",
    ]
    if uses_store:
        notes += [
            f"{STORE_URL_ENV}: one store for every replica: a preview or answer made on one is used once on any.",
            f"{SIGNING_KEY_ENV}: the key every replica signs and checks preview ids, answers and task handles",
            "with: the same on all, kept across restarts (openssl rand -hex 32).",
        ]
    comments = "".join(f"# {note}\n" for note in notes)
    return f"{header}\n{comments}{yaml_document(document)}"


def yaml_document(document: dict[str, Any]) -> str:
    """The one YAML writer of the deployment files: PyYAML's serializer, keys in the order given.
    ASCII only: written raw, U+0085 and U+2028 would be read back as line breaks."""
    text: str = yaml.safe_dump(document, sort_keys=False, allow_unicode=False, width=4096, indent=2)
    return text


def compose_literal(value: str) -> str:
    """A value compose passes on as written: `$` doubled, so that `${...}` in it is not interpolated."""
    return value.replace("$", "$$")


def compose_variable(name: str, *, default: str | None = None, required: bool = False) -> str:
    """`${NAME:?...}` (required) or `${NAME:-default}`. A default compose would read as more than text
    (`$`, `{` or `}` in it) cannot be written there, so the variable is required instead."""
    if not _ENV_NAME.fullmatch(name):  # the mapping's schema allows none other
        raise EmitError(f"{name!r} cannot be an environment variable's name in compose.yaml")
    if required or default is None or any(ch in default for ch in "${}"):
        return f"${{{name}:?set {name}}}"
    return f"${{{name}:-{default}}}"


def haproxy_config(header: str, backends: list[str], *, docker: bool, port: int = BALANCER_PORT) -> str:
    """Round robin over the replicas, each checked with GET /healthz; a request that could not reach a
    replica (refused, or closed before any answer: a replica that died) goes to the next one, which is
    safe for an apply too: the claim in the store makes a resent apply answer the first one's outcome."""
    if docker:  # compose's DNS names every replica of `server`
        resolvers = "resolvers docker\n    nameserver dns 127.0.0.11:53\n\n"
        servers = f"    server-template mcp {REPLICAS} {backends[0]} check resolvers docker init-addr none\n"
    else:
        resolvers = ""
        servers = "".join(
            f"    server mcp{n} {b} check inter 500ms fall 1 rise 1\n" for n, b in enumerate(backends)
        )
    return f"""{header}
global
    maxconn 1024

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    retries 3
    option redispatch
    retry-on conn-failure empty-response
    option http-buffer-request

{resolvers}# haproxy passes the client's Host header on unchanged: each name clients use must be in the replicas'
# MCP_ALLOWED_HOSTS (or --allowed-host), else they answer 421 Misdirected Request.
frontend mcp
    bind {"*" if docker else "127.0.0.1"}:{port}
    default_backend replicas

backend replicas
    balance roundrobin
    option httpchk GET /healthz
{servers}"""
