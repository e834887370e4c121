"""Which request bodies carry files, and how their arguments look: real corpus operations through the
build's own reading of the spec (petstore.json, apache.org/qakka.json, okta.local.json)."""

from __future__ import annotations

import json
from pathlib import Path

from mcpgen import codes
from mcpgen.build.parameters import OperationParam, spec_params
from mcpgen.diagnostics import Diagnostic
from mcpgen.ir import BodyEncoding
from mcpgen.load.openapi import find_operation, load_spec
from tests.support.paths import ROOT
from tests.support.runtime import runtime_module

CORPUS = ROOT / ".cache" / "corpus" / "package" / "api"


def _params(
    spec_file: Path, reference: str
) -> tuple[list[OperationParam], BodyEncoding | None, list[Diagnostic]]:
    spec = load_spec(spec_file)
    operation = find_operation(spec, reference)
    assert operation is not None, reference
    return spec_params(spec, operation)


def test_a_multipart_upload_offers_its_file_as_a_path_or_data_url_beside_its_text_fields() -> None:
    params, encoding, found = _params(ROOT / ".cache" / "specs" / "petstore.json", "uploadFile")
    assert encoding == "multipart" and not found
    by_name = {p.wire_name: p for p in params if p.location == "body"}
    assert by_name["file"].style == "file" and by_name["file"].schema["type"] == "string"
    assert "files.read" in by_name["file"].schema["description"] and "base64" in by_name["file"].description
    assert by_name["additionalMetadata"].style is None


def test_an_octet_stream_body_is_one_file_argument() -> None:
    params, encoding, _ = _params(CORPUS / "apache.org" / "qakka.json", "sendMessageBinary")
    [file] = [p for p in params if p.location == "body_whole"]
    assert encoding == "binary" and file.wire_name == "file" and file.required and file.style == "file"


def test_an_optional_octet_stream_body_the_spec_says_nothing_of_offers_no_file() -> None:
    # okta.local.json GET /api/v1/users/{userId}: a Postman export's `application/octet-stream: {}`.
    params, encoding, found = _params(CORPUS / "okta.local.json", "getUser")
    assert encoding is None and not found
    assert [p.wire_name for p in params if p.location.startswith("body")] == []


def test_a_multipart_body_whose_parts_are_unnamed_is_still_refused(tmp_path: Path) -> None:
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "Uploads", "version": "1"},
        "paths": {"/uploads": {"post": {
            "operationId": "upload",
            "requestBody": {"content": {"multipart/form-data": {"schema": {"type": "object"}}}},
            "responses": {"201": {"description": "stored"}},
        }}},
    }  # fmt: skip
    (tmp_path / "uploads.json").write_text(json.dumps(spec), encoding="utf-8")
    params, _, found = _params(tmp_path / "uploads.json", "upload")
    assert params == [] and [d.code for d in found] == [codes.M211]


def test_a_form_or_multipart_field_whose_content_type_is_json_goes_as_json_text(tmp_path: Path) -> None:
    # seldon.local/wrapper.json POST /predict: `encoding: {json: {contentType: application/json}}`.
    params, encoding, _ = _params(CORPUS / "seldon.local" / "wrapper.json", "TransformInput3")
    assert encoding == "form" and [(p.wire_name, p.style) for p in params] == [("json", "json")]
    # A list typed JSON goes as one JSON text, not as one field per item.
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "Tags", "version": "1"},
        "paths": {"/tags": {"post": {
            "operationId": "tag",
            "requestBody": {"content": {"application/x-www-form-urlencoded": {
                "schema": {"type": "object", "properties": {
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "labels": {"type": "array", "items": {"type": "string"}},
                }},
                "encoding": {"tags": {"contentType": "application/json; charset=utf-8"}, "labels": {"style": "form"}},
            }}},
            "responses": {"204": {"description": "tagged"}},
        }}, "/pages": {"post": {
            # pdfbroker.io.json's multipart `options` part, beside a file part that keeps its own kind.
            "operationId": "render",
            "requestBody": {"content": {"multipart/form-data": {
                "schema": {"type": "object", "properties": {
                    "options": {"type": "object", "properties": {"pageNumber": {"type": "integer"}}},
                    "pdfdocument": {"type": "string", "format": "binary"},
                }},
                "encoding": {"options": {"contentType": "application/json"},
                             "pdfdocument": {"contentType": "application/octet-stream"}},
            }}},
            "responses": {"200": {"description": "rendered"}},
        }}},
    }  # fmt: skip
    (tmp_path / "tags.json").write_text(json.dumps(spec), encoding="utf-8")
    params, _, _ = _params(tmp_path / "tags.json", "tag")
    assert {p.wire_name: p.style for p in params} == {"tags": "json", "labels": "form"}
    params, encoding, _ = _params(tmp_path / "tags.json", "render")
    assert encoding == "multipart" and {p.wire_name: p.style for p in params} == {
        "options": "json",
        "pdfdocument": "file",
    }


def test_a_multipart_part_the_encoding_types_json_says_so() -> None:
    """templates/runtime/files.py: the `options` part of pdfbroker.io's pdftoimage carries its JSON text
    with `Content-Type: application/json`; a plain text field carries none (text/plain, RFC 7578)."""
    files = runtime_module("files")
    body = files.multipart(
        "b0", [("options", '{"pageNumber":1}'), ("note", "x")], [], frozenset({"options"})
    ).decode()
    assert 'name="options"\r\nContent-Type: application/json\r\n\r\n{"pageNumber":1}\r\n' in body
    assert 'name="note"\r\n\r\nx\r\n' in body


def test_an_object_multipart_part_with_no_encoding_of_its_own_is_typed_json() -> None:
    """templates/runtime/upstream.py: OpenAPI's default content type for an object part is
    application/json, so an object field (and each object item of an array field) with no
    `encoding.contentType` goes as JSON text saying so; a text field and a list of strings carry none."""
    upstream, routing, files = (runtime_module(m) for m in ("upstream", "routing", "files"))
    params = tuple(
        routing.Param(arg=name, wire=name, at="body", style=style)
        for name, style in (("meta", None), ("pages", None), ("tags", None), ("note", None), ("doc", "file"))
    )
    action = routing.Action(name="convert", method="POST", path="/convert", params=params, body="multipart")
    source = upstream.Upstream(
        base_url_env="X_BASE_URL",
        default_base_url="http://127.0.0.1:1",
        auth=None,
        timeout_s=1.0,
        files=files.FileReader(read=None, max_bytes=1024),
    )
    values = {
        "meta": {"title": "A"},
        "pages": [{"from": 1}],
        "tags": ["a", "b"],
        "note": "x",
        "doc": "data:application/pdf;base64,JVBERi0=",
    }
    body = upstream.build_request(source, action, values).content.decode()
    assert 'name="meta"\r\nContent-Type: application/json\r\n\r\n{"title":"A"}\r\n' in body
    assert 'name="pages"\r\nContent-Type: application/json\r\n\r\n{"from":1}\r\n' in body
    assert 'name="tags"\r\n\r\na\r\n' in body and 'name="tags"\r\n\r\nb\r\n' in body
    assert 'name="note"\r\n\r\nx\r\n' in body
    assert 'filename="doc"\r\nContent-Type: application/pdf\r\n\r\n%PDF-\r\n' in body
