"""Parameters named like Python keywords, or like each other once in snake_case, or like the arguments
the server owns (response_format, page, cursor, limit): `mcpgen init` drafts a mapping its own build
accepts, and the generated server imports (issue 11, finding 8)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.venvs import run_mcpgen

KEYWORDS = [
    "class",
    "from",
    "import",
    "def",
    "None",
    "True",
    "lambda",
    "async",
    "await",
    "match",
    "type",
    "_",
]
LOOK_ALIKES = ["fooBar", "foo_bar", "foo-bar", "FooBar", "X-From", "x_from", "1st", "__dunder__"]
SERVER_OWNED = ["response_format", "responseFormat", "Response-Format", "action", "Action"]


def query(names: list[str], type_: str = "string") -> list[dict]:
    return [{"name": n, "in": "query", "schema": {"type": type_}} for n in names]


def listing(params: list[dict]) -> dict:
    body = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"type": "object"}},
            "next_cursor": {"type": "string"},
        },
    }
    return {
        "parameters": params,
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": body}}}},
    }


def hostile_spec() -> dict:
    return {
        "openapi": "3.0.3",
        "info": {"title": "Kw", "version": "1"},
        "paths": {
            "/things": {
                "get": {"operationId": "listThings", **listing(query(KEYWORDS + LOOK_ALIKES + SERVER_OWNED))},
                "post": {
                    "operationId": "createThing",
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "class": {"type": "string"},
                                        "from": {"type": "integer"},
                                        "global": {"type": "boolean"},
                                    },
                                }
                            }
                        }
                    },
                    "responses": {"200": {"description": "ok"}},
                },
            },
            "/things/{from}": {
                "get": {
                    "operationId": "getThing",
                    "parameters": [
                        {"name": "from", "in": "path", "required": True, "schema": {"type": "string"}},
                        {"name": "class", "in": "header", "schema": {"type": "string"}},
                        {"name": "class", "in": "query", "schema": {"type": "integer"}},
                        {"name": "class", "in": "cookie", "schema": {"type": "boolean"}},
                    ],
                    "responses": {"200": {"description": "ok"}},
                },
            },
            # Paging parameters the build renames (page, limit, cursor) beside look-alikes of those names.
            "/pages": {
                "get": {
                    "operationId": "listPages",
                    **listing(query(["per_page", "Limit", "page_number", "Page"], "integer")),
                }
            },
            "/offsets": {
                "get": {
                    "operationId": "listOffsets",
                    **listing(query(["offset", "limit", "Page"], "integer")),
                }
            },
            "/cursors": {"get": {"operationId": "listCursors", **listing(query(["pageToken", "Cursor"]))}},
        },
    }


def test_init_then_generate_then_import(tmp_path: Path) -> None:
    spec = tmp_path / "kw.openapi.json"
    spec.write_text(json.dumps(hostile_spec()), encoding="utf-8")
    mapping = tmp_path / "mapping.yaml"
    out = tmp_path / "out"

    drafted = run_mcpgen("init", spec, "-o", mapping)
    assert drafted.returncode == 0, drafted.stderr
    generated = run_mcpgen("generate", spec, "-m", mapping, "-o", out)
    assert generated.returncode == 0, generated.stderr

    imported = subprocess.run(
        [sys.executable, "-c", "import kw_mcp.server, kw_mcp.hooks; print(len(kw_mcp.server.TOOLS))"],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert imported.returncode == 0, imported.stderr
    tools = json.loads((out / "kw_mcp" / "tools.json").read_text(encoding="utf-8"))
    names = {name for tool in tools for name in tool["inputSchema"]["properties"]}
    assert {"class", "from", "import", "response_format", "page", "limit", "cursor"} <= names


def test_init_writes_body_property_names_with_quotes_and_line_breaks_exactly(tmp_path: Path) -> None:
    """Property names the draft renames (a unit in the description) are keys of the mapping: written so
    that they load back as the spec spells them, quotes, newlines and U+2028 included."""
    names = ['a"b', "c\nd", "e'f#g: h", "i\u2028j", "k\\l"]
    properties = {name: {"type": "integer", "description": "price in EUR"} for name in names}
    body = {"type": "object", "required": names[:2], "properties": properties}
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/things": {
                "post": {
                    "operationId": "createThing",
                    "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    (tmp_path / "api.openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    init = run_mcpgen("init", tmp_path / "api.openapi.json", "-o", tmp_path / "mapping.yaml")
    assert init.returncode == 0, init.stdout + init.stderr
    mapping = yaml.safe_load((tmp_path / "mapping.yaml").read_text(encoding="utf-8"))
    (action,) = mapping["tools"][0]["actions"]
    assert set(action["params"]) == set(names)
    checked = run_mcpgen("validate", tmp_path / "api.openapi.json", "-m", tmp_path / "mapping.yaml")
    assert checked.returncode == 0, checked.stdout + checked.stderr
