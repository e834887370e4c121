"""Credentials as the spec's security asks for them (issue 12 oracle category a): `mcpgen init` picks the
requirement the operations accept, two schemes required together are both sent, and neither value
ever comes back to the agent (rule "credentials", "no internals"). `mcpgen init` and `generate` run as
a user runs them; the server runs over stdio, driven by the official MCP client, against a recording
loopback upstream.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.mcp_client import result_text, stdio_client
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
BODY = {"content": {"application/json": {"schema": {"type": "object", "required": ["txnId"], "properties": {
    "txnId": {"type": "string", "format": "uuid"}}}}}}  # fmt: skip

# apisetu.gov.in/eservicearunachal.json /components/securitySchemes and /paths/~1chcer~1certificate/post
# (security: [{apiKey: [], clientId: []}]: both headers in one requirement, so both are needed).
APISETU = {
    "openapi": "3.0.1",
    "info": {"title": "eService Arunachal", "version": "3.0.0"},
    "servers": [{"url": "https://apisetu.gov.in/eservicearunachal/v3"}],
    "components": {
        "securitySchemes": {
            "apiKey": {"type": "apiKey", "in": "header", "name": "X-APISETU-APIKEY"},
            "clientId": {"type": "apiKey", "in": "header", "name": "X-APISETU-CLIENTID"},
        }
    },
    "paths": {
        "/chcer/certificate": {
            "post": {"operationId": "chcer", "security": [{"apiKey": [], "clientId": []}], "requestBody": BODY,
                     "responses": OK}
        },
        "/tbcer/certificate": {
            "post": {"operationId": "tbcer", "security": [{"apiKey": [], "clientId": []}], "requestBody": BODY,
                     "responses": OK}
        },
    },
}  # fmt: skip

# linqr.app.json /components/securitySchemes (Byvalue, RapidAPI) and its operations' security: most
# accept either ([{Byvalue: []}, {RapidAPI: []}], /paths/~1qrcode/post/security), some only RapidAPI
# (/paths/~1images/get/security): the one every operation accepts is RapidAPI.
LINQR = {
    "openapi": "3.0.2",
    "info": {"title": "LinQR", "version": "2.0"},
    "servers": [{"url": "https://qrcode3.p.rapidapi.com"}],
    "components": {
        "securitySchemes": {
            "Byvalue": {"type": "apiKey", "in": "header", "name": "Byvalue-Token"},
            "RapidAPI": {"type": "apiKey", "in": "header", "name": "X-RapidAPI-Key"},
        }
    },
    "paths": {
        "/qrcode": {"post": {"operationId": "qrCode_qrcode_post", "security": [{"Byvalue": []}, {"RapidAPI": []}],
                             "requestBody": BODY, "responses": OK}},
        "/images": {"get": {"operationId": "images_images_get", "security": [{"RapidAPI": []}], "responses": OK}},
    },
}  # fmt: skip


def drafted(root: Path, spec: dict[str, object], name: str) -> tuple[Path, dict[str, object]]:
    (root / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    completed = run_mcpgen("init", root / "spec.json", "-o", root / "mapping.yaml", "--name", name)
    assert completed.returncode == 0, completed.stderr
    mapping = yaml.safe_load((root / "mapping.yaml").read_text(encoding="utf-8"))
    generated = run_mcpgen("generate", root / "spec.json", "-m", root / "mapping.yaml", "-o", root / "out")
    assert generated.returncode == 0, generated.stderr
    return root / "out", mapping


class Echoing(LoopbackUpstream):
    """Refuses with a message that repeats the credential, as careless APIs do."""

    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/chcer/certificate", lambda r, p: Reply(200, {"ok": True}))
        self.route("POST", "/tbcer/certificate", self._refuse)

    def _refuse(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(
            401, {"error": {"message": f"client {request.headers.get('x-apisetu-clientid')} is unknown"}}
        )


# Prism judges every request the stand-in receives against the spec it answers for (tests/support/prism.py).
PRISM_SPECS = {Echoing: APISETU}


async def test_two_schemes_required_together_are_both_sent_and_never_shown(tmp_path: Path) -> None:
    package, mapping = drafted(tmp_path, APISETU, "setu")
    server = mapping["server"]
    assert isinstance(server, dict)
    assert [(a["in"], a["name"]) for a in server["auth"]] == [
        ("header", "X-APISETU-APIKEY"),
        ("header", "X-APISETU-CLIENTID"),
    ]
    envs = [a["env"] for a in server["auth"]]
    assert envs == ["SETU_API_KEY", "SETU_CLIENT_ID"]
    with Echoing() as upstream:
        env = {"PYTHONPATH": str(package), "SETU_BASE_URL": upstream.base_url,
               "SETU_API_KEY": "key-5f1c90", "SETU_CLIENT_ID": "client-77aa31"}  # fmt: skip
        async with stdio_client([sys.executable, "-m", "setu_mcp"], env) as client:
            tools = sorted(t.name for t in (await client.list_tools()).tools)
            uuid = "f7f1469c-29b0-4325-9dfc-c567200a70f7"
            chcer, tbcer = (next(t for t in tools if word in t) for word in ("chcer", "tbcer"))
            names = await client.call_tool(chcer, {"action": "chcer", "txn_id": uuid})
            refused = await client.call_tool(tbcer, {"action": "tbcer", "txn_id": uuid})
        seen = list(upstream.requests)
    assert not names.is_error, result_text(names)
    for request in seen:
        assert request.headers["x-apisetu-apikey"] == "key-5f1c90"
        assert request.headers["x-apisetu-clientid"] == "client-77aa31"
    text = result_text(refused)
    assert refused.is_error and "client [redacted] is unknown" in text
    assert "client-77aa31" not in text


def test_init_picks_the_scheme_every_operation_accepts(tmp_path: Path) -> None:
    _, mapping = drafted(tmp_path, LINQR, "linqr")
    auth = mapping["server"]["auth"]  # type: ignore[index]
    assert (auth["type"], auth["in"], auth["name"]) == ("api_key", "header", "X-RapidAPI-Key")


def test_a_list_of_one_credential_is_one_credential_and_a_typo_in_it_is_located(tmp_path: Path) -> None:
    (tmp_path / "spec.json").write_text(json.dumps(LINQR), encoding="utf-8")
    (tmp_path / "mapping.yaml").write_text(
        "mcpgen: 1\nserver:\n  name: linqr\n  auth:\n    - {type: api_key, env: K, in: header, nmae: X-RapidAPI-Key}\n"
        "tools:\n  - name: images\n    description: List images.\n    actions:\n"
        "      - {name: list, operation: images_images_get}\n",
        encoding="utf-8",
    )
    completed = run_mcpgen("validate", tmp_path / "spec.json", "-m", tmp_path / "mapping.yaml")
    assert completed.returncode != 0
    assert "mapping.yaml:5" in completed.stderr + completed.stdout
    assert "unknown key 'nmae'" in completed.stderr + completed.stdout
