"""Files in request bodies: a multipart upload (petstore.json POST /pet/{petId}/uploadImage, `file` a binary
string beside the text field additionalMetadata) sends a file the agent names by its path inside the
directory the mapping's `server.files.read` lets the server read, or passes as a base64 data URL; a path
outside that directory, a symlink leading out of it included, is refused before any request, naming the
directory. Through the official MCP client and a stand-in answering as Petstore does; Prism judges every
request against the spec's own operation.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

from tests.support.mcp_client import result_text, stdio_client, tool_dicts
from tests.support.paths import ROOT
from tests.support.spec_fragments import request_fragment
from tests.support.venvs import run_mcpgen
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest, Reply

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

PETSTORE = ROOT / ".cache" / "specs" / "petstore.json"
OPERATIONS = [("/pet/{petId}/uploadImage", "post")]
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))  # not text: every byte value once
MAPPING = """\
mcpgen: 1
server:
  name: petstore
  base_url: {env: PETSTORE_BASE_URL}
  auth: {type: bearer, env: PETSTORE_TOKEN}
  files: {read: UPLOADS}
tools:
  - name: pets_images
    description: Upload an image of a pet.
    actions:
      - {name: upload, operation: uploadFile}
"""


class PetImages(LoopbackUpstream):
    """Answers as Petstore does: an ApiResponse saying what it received."""

    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/pet/{pet_id}/uploadImage", self.upload)

    def upload(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        message = f"uploaded {len(request.body)} bytes"
        return Reply(200, {"code": 200, "type": "unknown", "message": message})


PRISM_SPECS = {PetImages: lambda: request_fragment(PETSTORE, OPERATIONS)}


def generate(root: Path, uploads: Path) -> Path:
    (root / "mapping.yaml").write_text(MAPPING.replace("UPLOADS", json.dumps(str(uploads))), encoding="utf-8")
    completed = run_mcpgen("generate", PETSTORE, "-m", root / "mapping.yaml", "-o", root / "out")
    assert completed.returncode == 0, completed.stderr
    return root / "out"


def parts(request: RecordedRequest) -> dict[str, tuple[str, bytes]]:
    """The multipart body's parts by name: (their headers, their content), parsed here, not by the server's code."""
    boundary = request.headers["content-type"].split("boundary=")[1].encode()
    found = {}
    for part in request.body.split(b"--" + boundary)[1:-1]:
        head, _, data = part.strip(b"\r\n").partition(b"\r\n\r\n")
        name = head.split(b'name="')[1].split(b'"')[0].decode()
        found[name] = (head.decode(), data)
    return found


async def test_a_file_goes_up_as_a_multipart_part_and_no_path_leaves_the_directory(tmp_path: Path) -> None:
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    package = generate(tmp_path, uploads)
    (uploads / "rex.png").write_bytes(PNG)
    (tmp_path / "secret.txt").write_text("not the agent's", encoding="utf-8")
    (uploads / "leak.png").symlink_to(tmp_path / "secret.txt")
    data_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    with PetImages() as upstream:
        env = {"PYTHONPATH": str(package), "PETSTORE_BASE_URL": upstream.base_url, "PETSTORE_TOKEN": "t-1"}
        async with stdio_client([sys.executable, "-m", "petstore_mcp"], env) as client:
            [tool] = tool_dicts(await client.list_tools())
            call = {"action": "upload", "pet_id": 7, "additional_metadata": "front view"}
            by_path = await client.call_tool("petstore_pets_images", {**call, "file": "rex.png"})
            by_content = await client.call_tool("petstore_pets_images", {**call, "file": data_url})
            outside = await client.call_tool("petstore_pets_images", {**call, "file": "../secret.txt"})
            linked = await client.call_tool("petstore_pets_images", {**call, "file": "leak.png"})
            absolute = await client.call_tool(
                "petstore_pets_images", {**call, "file": str(tmp_path / "secret.txt")}
            )
        requests = list(upstream.requests)
    assert "files.read" in tool["inputSchema"]["properties"]["file"]["description"]
    for result in (by_path, by_content):
        assert not result.is_error, result_text(result)
    assert len(requests) == 2  # the refused paths never reached the API
    sent = [parts(r) for r in requests]
    assert sent[0]["file"][1] == PNG and sent[1]["file"][1] == PNG
    assert 'filename="rex.png"' in sent[0]["file"][0] and "Content-Type: image/png" in sent[0]["file"][0]
    assert "Content-Type: image/png" in sent[1]["file"][0]
    assert sent[0]["additionalMetadata"][1] == b"front view"
    assert requests[0].path == "/pet/7/uploadImage"
    for refused in (outside, linked, absolute):
        text = result_text(refused)
        assert refused.is_error and str(uploads.resolve()) in text, text
        assert "not the agent's" not in json.dumps(text)


QAKKA = ROOT / ".cache" / "corpus" / "package" / "api" / "apache.org" / "qakka.json"
QAKKA_MAPPING = """\
mcpgen: 1
server:
  name: qakka
  base_url: {env: QAKKA_BASE_URL}
tools:
  - name: queue_messages
    description: Send a message to a queue.
    actions:
      - {name: send_binary, operation: sendMessageBinary}
"""


class QakkaQueues(LoopbackUpstream):
    """Answers as Qakka does: an ApiResponse."""

    def __init__(self) -> None:
        super().__init__()
        self.route("POST", "/queues/{queue}/messages", self.send)

    def send(self, request: RecordedRequest, path: dict[str, str]) -> Reply:
        return Reply(200, {"status": "OK", "count": 1, "messages": []})


PRISM_SPECS[QakkaQueues] = lambda: request_fragment(QAKKA, [("/queues/{queueName}/messages", "post")])


@pytest.mark.prism_expects(
    "Request body must be array",
    why="Qakka's octet-stream body is typed an array of byte strings (a conversion of a binary body): the "
    "bytes on the wire are the file, which Prism reads as one value, never an array",
)
async def test_a_binary_body_is_the_file_itself_and_without_files_read_only_content_goes(
    tmp_path: Path,
) -> None:
    (tmp_path / "mapping.yaml").write_text(QAKKA_MAPPING, encoding="utf-8")
    completed = run_mcpgen("generate", QAKKA, "-m", tmp_path / "mapping.yaml", "-o", tmp_path / "out")
    assert completed.returncode == 0, completed.stderr
    (tmp_path / "blob.bin").write_bytes(PNG)
    call = {"action": "send_binary", "queue_name": "jobs", "content_type": "image/png"}
    with QakkaQueues() as upstream:
        env = {"PYTHONPATH": str(tmp_path / "out"), "QAKKA_BASE_URL": upstream.base_url}
        async with stdio_client([sys.executable, "-m", "qakka_mcp"], env) as client:
            data_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
            sent = await client.call_tool("qakka_queue_messages", {**call, "file": data_url})
            by_path = await client.call_tool(
                "qakka_queue_messages", {**call, "file": str(tmp_path / "blob.bin")}
            )
            bad = await client.call_tool("qakka_queue_messages", {**call, "file": "data:image/png;base64,@@"})
        requests = list(upstream.requests)
    assert not sent.is_error, result_text(sent)
    assert len(requests) == 1 and requests[0].body == PNG
    assert requests[0].headers["content-type"] == "application/octet-stream"
    assert by_path.is_error and "reads no files from disk" in result_text(by_path)
    assert bad.is_error and "valid base64" in result_text(bad)


@pytest.mark.prism_expects(
    "Request body must be array",
    why="Qakka's octet-stream body is typed an array of byte strings (a conversion of a binary body): the "
    "bytes on the wire are the file, which Prism reads as one value, never an array",
)
async def test_init_drafts_a_files_directory_and_the_drafted_upload_sends_a_file_from_it(
    tmp_path: Path,
) -> None:
    """`init` on Qakka, whose sendMessageBinary takes an octet-stream body: the draft names a directory of
    its own (relative, from the server's working directory) and says what it allows, and the drafted
    mapping generates a server whose upload sends a file from there and nothing from outside it."""
    drafted = run_mcpgen("init", QAKKA, "-o", tmp_path / "mapping.yaml")
    assert drafted.returncode == 0, drafted.stderr
    text = (tmp_path / "mapping.yaml").read_text(encoding="utf-8")
    assert "  files:\n    read: uploads\n" in text and "The server reads no other path" in text
    completed = run_mcpgen("generate", QAKKA, "-m", tmp_path / "mapping.yaml", "-o", tmp_path / "out")
    assert completed.returncode == 0, completed.stderr
    (tmp_path / "uploads").mkdir()
    (tmp_path / "uploads" / "blob.bin").write_bytes(PNG)
    (tmp_path / "secret.txt").write_text("not the agent's", encoding="utf-8")
    call = {"action": "send_binary", "queue_name": "jobs", "content_type": "image/png"}
    with QakkaQueues() as upstream:
        env = {"PYTHONPATH": str(tmp_path / "out"), "QAKKA_BASE_URL": upstream.base_url}
        async with stdio_client([sys.executable, "-m", "qakka_mcp"], env, cwd=tmp_path) as client:
            sent = await client.call_tool("qakka_messages", {**call, "file": "blob.bin"})
            outside = await client.call_tool("qakka_messages", {**call, "file": "../secret.txt"})
        requests = list(upstream.requests)
    assert not sent.is_error, result_text(sent)
    assert len(requests) == 1 and requests[0].body == PNG
    assert outside.is_error and str((tmp_path / "uploads").resolve()) in result_text(outside)
