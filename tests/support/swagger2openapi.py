"""The reference Swagger 2.0 converter, swagger2openapi (pinned in scripts/swagger2openapi/), as an oracle:
it converts a 2.0 file, and `tool_facts` reads from either conversion what a generated tool is made of,
operation by operation, so that mcpgen's own conversion (mcpgen/load/swagger2.py) can be compared with it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT

PIN = ROOT / "scripts" / "swagger2openapi"
HOME = ROOT / ".cache" / "swagger2openapi"
MODULE = HOME / "node_modules" / "swagger2openapi"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# Converts one file with the options the command line `swagger2openapi --patch` uses.
_SCRIPT = """
const s2o = require(process.argv[1]);
s2o.convertFile(process.argv[2], {patch: true, warnOnly: true})
  .then(o => process.stdout.write(JSON.stringify(o.openapi)))
  .catch(e => { console.error(String(e)); process.exit(1); });
"""


def install() -> Path | None:
    """`npm ci` the pinned swagger2openapi into .cache/swagger2openapi once (scripts/test does it before
    the run); None when npm is missing."""
    if (
        MODULE.is_dir()
        and (HOME / "package-lock.json").read_bytes() == (PIN / "package-lock.json").read_bytes()
    ):
        return MODULE
    if shutil.which("npm") is None:
        return None
    HOME.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        (HOME / name).write_bytes((PIN / name).read_bytes())
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=HOME,
                   check=True, capture_output=True, timeout=600)  # fmt: skip
    return MODULE


def convert(path: Path) -> dict[str, Any]:
    completed = subprocess.run(
        ["node", "-e", _SCRIPT, str(MODULE), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def _at(document: dict[str, Any], ref: str) -> Any:
    node: Any = document
    for token in ref.removeprefix("#/").split("/"):
        node = node[token.replace("~1", "/").replace("~0", "~")]
    return node


def _deref(document: dict[str, Any], value: Any) -> Any:
    for _ in range(16):
        if not (
            isinstance(value, dict) and isinstance(value.get("$ref"), str) and value["$ref"].startswith("#/")
        ):
            return value
        value = _at(document, value["$ref"])
    return value


def schema_facts(schema: Any) -> Any:
    """A schema with each `$ref` to a component schema written as its name (the named schemas are
    compared one by one), and without the keywords written beside a `$ref`: Swagger 2.0 and OpenAPI 3.0
    both ignore them, and so does mcpgen's build (it reads the target), so they make no tool.
    swagger2openapi removes them; mcpgen keeps the document as written."""
    if isinstance(schema, dict):
        if isinstance(schema.get("$ref"), str):
            schema = {"$ref": schema["$ref"]}
        out = {}
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/components/schemas/"):
                out[key] = "schema:" + value.removeprefix("#/components/schemas/")
            else:
                out[key] = schema_facts(value)
        return out
    if isinstance(schema, list):
        return [schema_facts(v) for v in schema]
    return schema


def _parameter_facts(document: dict[str, Any], parameter: Any) -> tuple[tuple[str, str], dict[str, Any]]:
    p = _deref(document, parameter)
    facts = {
        "required": bool(p.get("required")),
        "description": p.get("description"),
        "schema": schema_facts(_deref(document, p.get("schema"))),
        "style": p.get("style"),
        "explode": p.get("explode"),
    }
    return (str(p.get("name")), str(p.get("in"))), facts


def _content_facts(document: dict[str, Any], content: Any) -> dict[str, Any]:
    return {
        media: schema_facts(_deref(document, (entry or {}).get("schema")))
        for media, entry in (content or {}).items()
        if isinstance(entry, dict) and "schema" in entry
    }


def tool_facts(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """'METHOD /path' -> what a tool is made of: parameters (required, description, schema, style,
    explode), the request body (required, description, schema of each media type), each response's
    schema by media type, and the security requirements."""
    out: dict[str, dict[str, Any]] = {}
    for path, item in (document.get("paths") or {}).items():
        item = _deref(document, item)
        shared = dict(_parameter_facts(document, p) for p in item.get("parameters") or [])
        for method in METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            parameters = {
                **shared,
                **dict(_parameter_facts(document, p) for p in operation.get("parameters") or []),
            }
            body = _deref(document, operation.get("requestBody"))
            out[f"{method.upper()} {path}"] = {
                "operationId": operation.get("operationId"),
                "parameters": {f"{name} in {where}": facts for (name, where), facts in parameters.items()},
                "requestBody": None
                if body is None
                else {
                    "required": bool(body.get("required")),
                    "description": body.get("description"),
                    "content": _content_facts(document, body.get("content")),
                },
                "responses": {
                    str(code): _content_facts(document, _deref(document, response).get("content"))
                    for code, response in (operation.get("responses") or {}).items()
                },
                "security": operation.get("security", document.get("security")),
            }
    return out


def component_schemas(document: dict[str, Any]) -> dict[str, Any]:
    return {
        name: schema_facts(schema)
        for name, schema in ((document.get("components") or {}).get("schemas") or {}).items()
    }


def security_schemes(document: dict[str, Any]) -> dict[str, Any]:
    return (document.get("components") or {}).get("securitySchemes") or {}
