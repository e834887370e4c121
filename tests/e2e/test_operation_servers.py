"""Operations the spec sends to a server of their own (issue 12 defect 5): Box upload sessions go to
upload.box.com. The generated server, over stdio and the official MCP client, against two recording
loopback upstreams standing in for the two hosts: the operation's own variable moves it, the API's
variable alone moves everything (the credential never goes to a host the user did not choose), and a
redirect is still never followed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.mcp_client import result_text, stdio_client
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}

# box.com.json /servers, /paths/~1files~1{file_id}/get and /paths/~1files~1upload_sessions/post
# (its servers: https://upload.box.com/api/2.0; requestBody folder_id, file_size, file_name).
SPEC = {
    "openapi": "3.0.2",
    "info": {"title": "Box Platform API", "version": "2.0.0"},
    "servers": [{"description": "Box Platform API server", "url": "https://api.box.com/2.0"}],
    "paths": {
        "/files/{file_id}": {
            "get": {
                "operationId": "get_files_id",
                "parameters": [{"name": "file_id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": OK,
            }
        },
        "/files/upload_sessions": {
            "post": {
                "operationId": "post_files_upload_sessions",
                "servers": [{"description": "Server for file uploads", "url": "https://upload.box.com/api/2.0"}],
                "requestBody": {"content": {"application/json": {"schema": {
                    "type": "object", "required": ["folder_id", "file_size", "file_name"],
                    "properties": {"folder_id": {"type": "string"}, "file_size": {"type": "integer"},
                                   "file_name": {"type": "string"}}}}}},
                "responses": OK,
            }
        },
    },
}  # fmt: skip

MAPPING = """\
mcpgen: 1
server:
  name: box
  auth: {type: bearer, env: BOX_TOKEN}
tools:
  - name: files
    description: Read a file's details or start a chunked upload.
    actions:
      - name: get
        operation: get_files_id
      - name: start_upload
        operation: post_files_upload_sessions
"""
UPLOAD = {"action": "start_upload", "folder_id": "0", "file_size": 104857600, "file_name": "Project.mov"}


class Host(LoopbackUpstream):
    def __init__(self, name: str, redirect_to: str | None = None) -> None:
        super().__init__()
        reply = (
            Reply(302, None, {"location": f"{redirect_to}/files/upload_sessions"}) if redirect_to else None
        )
        self.route("GET", "/files/{file_id}", lambda r, p: Reply(200, {"id": p["file_id"], "host": name}))
        self.route(
            "POST", "/files/upload_sessions", lambda r, p: reply or Reply(200, {"id": "s1", "host": name})
        )


# Prism judges every request either host receives against the spec (tests/support/prism.py).
PRISM_SPECS = {Host: SPEC}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("box")
    (root / "spec.json").write_text(json.dumps(SPEC), encoding="utf-8")
    (root / "mapping.yaml").write_text(MAPPING, encoding="utf-8")
    completed = run_mcpgen("generate", root / "spec.json", "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    return root / "out"


def test_the_package_names_the_operations_host_and_its_variable(package: Path) -> None:
    module = (package / "box_mcp" / "tools" / "files.py").read_text(encoding="utf-8")
    assert "https://upload.box.com/api/2.0" in module and "BOX_UPLOAD_BASE_URL" in module
    assert "BOX_UPLOAD_BASE_URL" in (package / "README.md").read_text(encoding="utf-8")


async def test_each_operation_goes_to_its_own_host_with_the_credential(package: Path) -> None:
    with Host("api") as api, Host("upload") as upload:
        env = {"PYTHONPATH": str(package), "BOX_TOKEN": "tok-9a7e", "BOX_BASE_URL": api.base_url,
               "BOX_UPLOAD_BASE_URL": upload.base_url}  # fmt: skip
        async with stdio_client([sys.executable, "-m", "box_mcp"], env) as client:
            got = await client.call_tool("box_files", {"action": "get", "file_id": "12345"})
            started = await client.call_tool("box_files", UPLOAD)
        assert [r.path for r in api.requests] == ["/files/12345"]
        assert [r.path for r in upload.requests] == ["/files/upload_sessions"]
        assert upload.requests[0].headers["authorization"] == "Bearer tok-9a7e"
        assert upload.requests[0].json == {
            "folder_id": "0",
            "file_size": 104857600,
            "file_name": "Project.mov",
        }
    assert not got.is_error and not started.is_error, result_text(started)


async def test_moving_only_the_api_moves_every_operation(package: Path) -> None:
    with Host("api") as api:
        env = {"PYTHONPATH": str(package), "BOX_TOKEN": "tok-9a7e", "BOX_BASE_URL": api.base_url}
        async with stdio_client([sys.executable, "-m", "box_mcp"], env) as client:
            started = await client.call_tool("box_files", UPLOAD)
        assert [r.path for r in api.requests] == ["/files/upload_sessions"]
    assert not started.is_error, result_text(started)


async def test_a_redirect_from_the_operations_host_is_not_followed(package: Path) -> None:
    with Host("api") as api, Host("upload", redirect_to=api.base_url) as upload:
        env = {"PYTHONPATH": str(package), "BOX_TOKEN": "tok-9a7e", "BOX_BASE_URL": api.base_url,
               "BOX_UPLOAD_BASE_URL": upload.base_url}  # fmt: skip
        async with stdio_client([sys.executable, "-m", "box_mcp"], env) as client:
            refused = await client.call_tool("box_files", UPLOAD)
        assert api.requests == [] and len(upload.requests) == 1
    assert refused.is_error and "does not follow redirects" in result_text(refused)
