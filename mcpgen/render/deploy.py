"""The package's deployment files: a Dockerfile, and a compose file running N replicas behind haproxy
with Redis as the shared preview store. The servers hold no state of their own over streamable HTTP,
so round robin per request is safe; previews are claimed atomically in Redis, so an apply sent to
any replica, or to several at once, changes the API once."""

from __future__ import annotations

from mcpgen.ir import RenderedFile, ServerSpec
from mcpgen.render.clients import server_env

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
    target = ".[redis]" if uses_store else "."
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
CMD ["{server.distribution_name}", "--http", "--host", "0.0.0.0", "--port", "{SERVER_PORT}"]
"""


def compose(server: ServerSpec, header: str, uses_store: bool) -> str:
    env = [f"      {v.name}: ${{{v.name}:?set {v.name}}}" for v in server_env(server) if v.secret]
    env += [f"      {v.name}: ${{{v.name}:-{v.value}}}" for v in server_env(server) if not v.secret]
    env.append(
        "      MCP_ALLOWED_HOSTS: ${MCP_ALLOWED_HOSTS:-}  # the names clients reach the balancer by, "
        "comma-separated: others are refused"
    )
    if uses_store:
        env.append(
            "      MCP_STORE_URL: redis://redis:6379/0  # one store for every replica: a preview or answer made on one is used once on any"
        )
    redis = (
        """  redis:
    image: redis:7-alpine
    command: ["redis-server", "--save", "", "--appendonly", "no"]
"""
        if uses_store
        else ""
    )
    depends = "    depends_on: [redis]\n" if uses_store else ""
    environment = "\n".join(env)
    return f"""{header}
# docker compose up --build: {REPLICAS} replicas of the server behind haproxy on http://127.0.0.1:{BALANCER_PORT}/mcp
services:
  server:
    build: .
    deploy:
      replicas: {REPLICAS}
    environment:
{environment}
{depends}{redis}  balancer:
    image: haproxy:2.8
    volumes: ["./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"]
    ports: ["127.0.0.1:{BALANCER_PORT}:{BALANCER_PORT}"]
    depends_on: [server]
"""


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
