"""The deployment files say how a balancer's public name gets past the Host check (issue 16): compose
passes MCP_ALLOWED_HOSTS to every replica, and the Dockerfile and haproxy.cfg say why it is needed."""

from __future__ import annotations

import yaml

from tests.support.paths import GENERATED


def test_compose_passes_the_allowed_hosts_to_every_replica() -> None:
    compose = yaml.safe_load((GENERATED / "ads" / "compose.yaml").read_text(encoding="utf-8"))
    environment = compose["services"]["server"]["environment"]
    assert environment["MCP_ALLOWED_HOSTS"] == "${MCP_ALLOWED_HOSTS:-}"  # empty by default: loopback only


def test_the_dockerfile_and_the_balancer_config_name_the_option() -> None:
    dockerfile = (GENERATED / "ads" / "Dockerfile").read_text(encoding="utf-8")
    haproxy = (GENERATED / "ads" / "haproxy.cfg").read_text(encoding="utf-8")
    assert "MCP_ALLOWED_HOSTS=api.example.com" in dockerfile and '"--allowed-host"' in dockerfile
    assert "MCP_ALLOWED_HOSTS" in haproxy and "421" in haproxy


def test_compose_keeps_the_store_and_the_signing_key_across_restarts() -> None:
    """A Redis restarted without its data would forget every preview's claim and the key ids are signed
    with: compose persists Redis on a volume (appendonly) and makes every replica take one MCP_SIGNING_KEY."""
    compose = yaml.safe_load((GENERATED / "ads" / "compose.yaml").read_text(encoding="utf-8"))
    environment = compose["services"]["server"]["environment"]
    assert environment["MCP_SIGNING_KEY"] == "${MCP_SIGNING_KEY:?set MCP_SIGNING_KEY}"
    redis = compose["services"]["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes" and "--save" not in command
    assert redis["volumes"] == ["redis-data:/data"] and "redis-data" in compose["volumes"]
    assert command[command.index("--dir") + 1] == "/data"
