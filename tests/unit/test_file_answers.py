"""Files in answers, the decisions on their own: which operations answer a file and which stay refused (an
event stream, M218), and how templates/runtime/file_answers.py names a file, types it and cuts a long text
(R4 truncation is announced). Through the official client: tests/e2e/test_file_answers.py."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from mcpgen.authoring.draft import init_mapping
from mcpgen.build.results import output_schema
from mcpgen.load.openapi import load_spec
from mcpgen.pipeline import generate
from tests.support.runtime import runtime_module


@pytest.fixture(scope="module")
def files() -> ModuleType:
    return runtime_module("file_answers")


def _answer(path: str, headers: dict[str, str], content: bytes = b"%PDF-1.4") -> httpx.Response:
    request = httpx.Request("GET", f"https://api.example.com{path}?api_key=s3cret")
    return httpx.Response(200, headers=headers, content=content, request=request)


@pytest.mark.parametrize(
    ("path", "disposition", "media", "name"),
    [
        ("/v1/report", 'attachment; filename="Q3 report.pdf"', "application/pdf", "Q3 report.pdf"),
        # RFC 6266: filename* (RFC 8187) wins over the plain name, whichever comes first.
        (
            "/x",
            "attachment; filename*=UTF-8''%E2%82%AC%20rates.pdf; filename=\"rates.pdf\"",
            "application/pdf",
            "€ rates.pdf",
        ),
        # Never a directory: only the last part of a name that tries to climb out.
        ("/x", 'attachment; filename="../../etc/passwd"', "text/plain", "passwd.txt"),
        ("/x", 'attachment; filename="..\\\\..\\\\boot.ini"', "text/plain", "boot.ini"),
        # No control characters, no leading dot (a hidden file).
        ("/x", 'attachment; filename=".env\tX"', "text/plain", "envX.txt"),
        # No Content-Disposition: the path's last segment, with the type's extension when it has none.
        ("/certificates/42/download", "", "application/pdf", "download.pdf"),
        ("/logos/acme.png", "", "image/png", "acme.png"),
        ("/", "", "application/octet-stream", "file.bin"),
        ("/files/%E2%82%AC", "", "text/csv", "€.csv"),
    ],
)
def test_a_file_is_named_as_the_api_names_it_and_made_safe(
    files: ModuleType, path: str, disposition: str, media: str, name: str
) -> None:
    headers = {"content-disposition": disposition} if disposition else {}
    assert files.file_name(_answer(path, headers), media) == name


def test_a_very_long_name_keeps_its_start_and_its_extension(files: ModuleType) -> None:
    answer = _answer("/x", {"content-disposition": f'attachment; filename="{"a" * 300}.pdf"'})
    named = files.file_name(answer, "application/pdf")
    assert len(named) == 120 and named.endswith("a.pdf")


def test_the_answers_own_type_wins_unless_it_says_only_octet_stream(files: ModuleType) -> None:
    action = runtime_module("routing").Action
    pdf = action(name="get", method="GET", path="/x", file="application/pdf")
    anything = action(name="get", method="GET", path="/x", file="application/octet-stream")
    assert files.media_type(_answer("/x", {"content-type": "image/PNG; q=1"}), anything) == "image/png"
    assert (
        files.media_type(_answer("/x", {"content-type": "application/octet-stream"}), pdf)
        == "application/pdf"
    )
    assert files.media_type(_answer("/x", {}), pdf) == "application/pdf"


def _result(files: ModuleType, content: bytes, media: str, max_tokens: int = 20_000) -> Any:
    answer = _answer("/export", {"content-type": media}, content)
    shown = {"file": {"name": "export", "media_type": media.split(";")[0], "size_bytes": len(content)}}
    return files.file_result(shown, answer, max_tokens, ("s3cret",))


def test_each_kind_of_file_has_its_content_block_and_the_address_drops_the_query(files: ModuleType) -> None:
    image = _result(files, b"\x89PNG\r\n", "image/png").content[1]
    svg = _result(files, b"<svg/>", "image/svg+xml").content[1]
    blob = _result(files, b"PK\x03\x04", "application/zip").content[1]
    sound = _result(files, b"ID3", "audio/mpeg").content[1]
    latin = _result(files, "caf\xe9".encode("latin-1"), "text/plain; charset=iso-8859-1").content[1]
    assert (image.type, sound.type) == ("image", "audio")
    assert svg.resource.text == "<svg/>"  # an SVG is text, not an image every client shows
    assert blob.resource.blob == "UEsDBA==" and blob.resource.uri == "https://api.example.com/export"
    assert latin.resource.text == "café"
    # An API that answers JSON where its spec says a file: the file is that text, never parsed into the result.
    assert _result(files, b'{"a": 1}', "application/json").content[1].resource.text == '{"a": 1}'


def test_a_text_file_holds_no_credential_and_a_long_one_is_cut_and_says_so(files: ModuleType) -> None:
    text = "\n".join(f"row {n};the key is s3cret;{'x' * 40}" for n in range(3000))
    result = _result(files, text.encode(), "text/csv", max_tokens=1000)
    shown = result.content[1].resource.text
    cut = result.structured_content["truncated"]
    assert "s3cret" not in shown and "[redacted]" in shown
    assert (
        len(shown) < len(text)
        and cut["shown"] == f"characters 1-{len(shown)} of {len(text.replace('s3cret', '[redacted]'))}"
    )
    assert json.loads(result.content[0].text) == result.structured_content


STREAMS = {
    "openapi": "3.0.0",
    "info": {"title": "Events", "version": "1"},
    "servers": [{"url": "https://api.example.com"}],
    "paths": {
        "/events": {
            "get": {
                "operationId": "follow",
                "responses": {"200": {"description": "events", "content": {"text/event-stream": {}}}},
            }
        },
        "/report": {
            "get": {
                "operationId": "report",
                "responses": {"200": {"description": "a PDF", "content": {"application/pdf": {}}}},
            }
        },
    },
}


def test_only_an_event_stream_stays_unread_and_init_leaves_it_out(tmp_path: Path) -> None:
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(STREAMS), encoding="utf-8")
    _, draft = init_mapping(load_spec(spec_file))
    assert [u.operation.split(" (")[0] for u in draft.unmapped] == ["GET /events"]
    assert "M218" in draft.unmapped[0].reason and "stream" in draft.unmapped[0].reason
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "mcpgen: 1\nserver: {name: events}\ntools:\n  - name: feed\n    description: Follow events.\n"
        "    actions:\n      - {name: follow, operation: follow}\n      - {name: report, operation: report}\n",
        encoding="utf-8",
    )
    result = generate(spec_file, mapping)
    [warned] = [d for d in result.diagnostics if d.code == "M218"]
    assert "text/event-stream only, a stream that does not end" in warned.message
    assert result.server is not None
    actions = {a.name: a for t in result.server.tools for a in t.actions}
    assert (actions["report"].file_answer, actions["follow"].file_answer) == ("application/pdf", None)


def test_a_tool_with_a_file_action_declares_the_file_and_leaves_a_changes_own_file_field_open(
    tmp_path: Path,
) -> None:
    """R5: every result of the tool validates: the file action's `{"file": {...}}`, and a change whose
    JSON answer has a `file` field of its own (a string here), which then stays open."""
    spec = {
        **STREAMS,
        "paths": {
            "/report": STREAMS["paths"]["/report"],
            "/uploads": {
                "post": {
                    "operationId": "upload",
                    "responses": {"201": {"description": "stored", "content": {"application/json": {"schema": {
                        "type": "object", "properties": {"file": {"type": "string"}, "id": {"type": "string"}},
                    }}}}},
                }
            },
        },
    }  # fmt: skip
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    mapping = tmp_path / "mapping.yaml"
    tools = "      - {name: report, operation: report}\n"
    mapping.write_text(
        f"mcpgen: 1\nserver: {{name: docs}}\ntools:\n  - name: docs\n    description: Reports.\n    actions:\n{tools}",
        encoding="utf-8",
    )
    alone = generate(spec_file, mapping).server
    mapping.write_text(mapping.read_text() + "      - {name: upload, operation: upload}\n", encoding="utf-8")
    mixed = generate(spec_file, mapping).server
    assert alone is not None and mixed is not None
    [only_file], [both] = alone.tools, mixed.tools
    declared = output_schema(only_file.actions)
    assert declared is not None and declared["properties"]["file"]["required"] == [
        "name",
        "media_type",
        "size_bytes",
    ]
    assert "Returns a file (application/pdf)" in both.description
    assert output_schema(both.actions)["properties"]["file"] == {}
