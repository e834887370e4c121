"""The IR's table types and the runtime's stay in step.

render/package.py writes the generated `tools/*.py` and `server.py` as tables of runtime dataclasses
(`Action(name=..., paging=Paging(...))`), field by field, from the IR. Nothing but this test ties the
three together, so it fails when they drift:
- every keyword the rendered code passes is a field of the runtime class it calls;
- every runtime field is passed by the rendered code of some example or fixture, or has a default and
  is listed below as left to its default on purpose;
- every IR field of a type that becomes a runtime table is either carried to a runtime field (the
  table below names which) or listed as the generator's own.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import json
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from mcpgen import ir
from mcpgen.pipeline import generate
from tests.support.paths import ROOT, SPECS

RUNTIME = ROOT / "templates" / "runtime"
FIXTURES = ROOT / "tests" / "fixtures"

# Runtime fields that no rendered table sets, each with the reason it may keep its default.
# Runtime fields no table example renders, each rendered by the end-to-end test of its feature instead:
# Auth.prefix and allow_insecure (tests/e2e/test_credential_safety.py), Shape.bare (a one-field record,
# tests/e2e/test_honest_records.py), Upstream.tokens (OAuth, tests/e2e/test_oauth_client.py), Upstream.files
# (file uploads, tests/e2e/test_file_bodies.py), Action.file and ServerConfig.file_answers (files in answers,
# tests/e2e/test_file_answers.py).
DEFAULTED_ON_PURPOSE: dict[str, set[str]] = {
    "Auth": {"prefix", "allow_insecure"},
    "Shape": {"bare"},
    "Upstream": {"tokens", "files"},
    "Action": {"file"},
    "ServerConfig": {"file_answers"},
}

# IR type -> (runtime class, {IR field: runtime field}, IR fields that stay in the generator and why).
IR_TO_RUNTIME: dict[type, tuple[str, dict[str, str], dict[str, str]]] = {
    ir.UnitSpec: (
        "Unit",
        {
            "agent": "agent",
            "upstream": "upstream",
            "factor": "factor",
            "integer": "integer",
            "currency_arg": "currency_arg",
            "currency_key": "currency_key",
            "currency_fixed": "currency_fixed",
            "currency_sibling": "currency_sibling",
            "as_is": "as_is",
        },
        {},
    ),
    ir.ParamSpec: (
        "Param",
        {
            "arg_name": "arg",
            "wire_name": "wire",
            "location": "at",
            "unit": "unit",
            "path": "path",
            "style": "style",
            "explode": "explode",
            "check_schema": "schema",
            "ask_user": "ask_user",
        },
        {
            "required": "becomes Action.required",
            "schema": "goes to tools.json",
            "source": "diagnostics",
        },
    ),
    ir.VariantSpec: ("Variant", {"name": "name", "args": "args", "required": "required"}, {}),
    ir.FixedValue: (
        "Fixed",
        {"wire_name": "wire", "location": "at", "value": "value", "path": "path", "env": "env"},
        {},
    ),
    ir.ResultUnitSpec: (
        "ResultUnit",
        {"field": "field", "name": "name", "unit": "unit"},
        {"pointer": "the schema slot the unit was scoped to, for diagnostics"},
    ),
    ir.ResultShape: (
        "Shape",
        {
            "items": "items",
            "concise": "concise",
            "drop": "drop",
            "record": "record",
            "lists": "lists",
            "bare": "bare",
            "named": "named",
        },
        {},
    ),
    ir.PagingSpec: (
        "Paging",
        {
            "style": "style",
            "limit_arg": "limit",
            "offset_wire": "offset",
            "next_cursor": "next_cursor",
            "has_more": "has_more",
            "total": "total",
            "echoed": "echoed",
            "max_limit": "max_limit",
            "next_link": "next_link",
            "offset_in_body": "offset_in_body",
            "total_header": "total_header",
            "next_page": "next_page",
        },
        {},
    ),
    ir.GuardSpec: (
        "Guard",
        {
            "arg_name": "arg",
            "current_field": "current",
            "max_increase_pct": "max_increase_pct",
            "unit": "unit",
        },
        {},
    ),
    ir.PreviewSpec: (
        "Preview",
        {
            "read": "read",
            "ttl_minutes": "ttl_minutes",
            "approval": "approval",
            "compared": "compared",
            "guards": "guards",
        },
        {},
    ),
    ir.ActionSpec: (
        "Action",
        {
            "name": "name",
            "method": "method",
            "path": "path",
            "params": "params",
            "defaults": "defaults",
            "fixed": "fixed",
            "body_encoding": "body",
            "result_units": "result_units",
            "find_with": "find_with",
            "finds": "finds",
            "check_with": "check_with",
            "shape": "shape",
            "paging": "paging",
            "preview": "preview",
            "confirm_value": "confirm",
            "confirm_user": "confirm_user",
            "asked": "params",
            "idempotency_header": "idempotency_header",
            "idempotency_body": "idempotency_body",
            "accept": "accept",
            "base_url_env": "base_url_env",
            "base_url": "default_base_url",
            "body_requires": "body_requires",
            "body_required": "body_required",
            "variants": "variants",
            "task": "task",
            "errors": "errors",
            "failures": "failures",
            "undescribed_failures": "undescribed_failures",
            "file_answer": "file",
        },
        {
            "description": "goes to tools.json",
            "source": "diagnostics",
            "operation_source": "diagnostics",
            "operation_fingerprint": "tools.lock.json",
            "mapping_fingerprint": "tools.lock.json",
            "facts": "tools.lock.json: deprecation, units and per-action schemas the diff compares",
            "server_params": "their schemas go to tools.json; the runtime derives them (Action.arg_names)",
            "operation_id": "README's table of operations",
            "hints": "goes to tools.json (annotations); its idempotent is Action.idempotent",
            "result_fields": "goes to tools.json (the tool's outputSchema)",
        },
    ),
    ir.FailureSpec: (
        "Failure",
        {
            "at": "at",
            "equals": "equals",
            "unless": "unless",
            "non_empty": "non_empty",
            "message": "message",
            "unchanged": "unchanged",
        },
        {},
    ),
    ir.TaskSpec: (
        "TaskPoll",
        {"status": "status", "job_id": "job_id", "state": "state", "poll_interval_s": "poll_interval_s"},
        {},
    ),
    ir.ToolSpec: (
        "Tool",
        {"name": "name", "actions": "actions", "scopes": "scopes"},
        {
            "module_name": "the generated module's file name",
            "title": "goes to tools.json",
            "description": "goes to tools.json",
            "input_schema": "goes to tools.json",
            "hints": "goes to tools.json (annotations)",
            "source": "diagnostics",
            "mapping_fingerprint": "tools.lock.json",
        },
    ),
    ir.AuthSpec: (
        "Auth",
        {
            "kind": "kind",
            "env": "env",
            "location": "at",
            "param_name": "name",
            "prefix": "prefix",
            "allow_insecure": "allow_insecure",
        },
        {
            "token_url": "the OAuth token client the rendered server.py builds (oauth_client.py, oauth_user.py)",
            "authorization_url": "the per-user OAuth flow the rendered server.py builds (oauth_user.py)",
            "revocation_url": "the per-user OAuth flow the rendered server.py builds (oauth_user.py)",
            "scopes": "the OAuth token client the rendered server.py builds",
            "client_id_env": "the OAuth token client the rendered server.py builds",
            "client_secret_env": "the OAuth token client the rendered server.py builds",
        },
    ),
    ir.AccessSpec: ("Access", {"issuer": "issuer", "audience": "audience", "scopes": "scopes"}, {}),
}
# Action.required comes from ParamSpec.required (ActionSpec.required_args), not from a field of its own.
# Action.idempotent comes from ActionSpec.hints (build/hints.py: the method, then the mapping).
DERIVED = {"Action": {"required", "idempotent"}}


def _runtime_package() -> str:
    """templates/runtime imported as a package of its own, as every generated package carries it."""
    name = "mcpgen_runtime_under_test"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, RUNTIME / "__init__.py", submodule_search_locations=[str(RUNTIME)]
        )
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package
        spec.loader.exec_module(package)
    return name


def _runtime_module(module: str) -> ModuleType:
    return importlib.import_module(f"{_runtime_package()}.{module}")


def _examples(scratch: Path) -> Iterator[tuple[Path, Path]]:
    for directory in sorted(p for p in SPECS.iterdir() if (p / "mapping.yaml").is_file()):
        yield next(directory.glob("*.openapi.*")), directory / "mapping.yaml"
    for name in ("units", "pages", "schemas", "shapes", "paging"):
        yield next((FIXTURES / name).glob("*.openapi.*")), FIXTURES / name / "mapping.yaml"
    real = FIXTURES / "realspecs"  # fragments of real specs: money, sizes, special values (T5)
    for spec, mapping in (
        ("square-payments", "square"),
        ("linode-disks", "linode"),
        ("docker-update", "docker"),
    ):
        yield real / f"{spec}.json", real / f"{mapping}.mapping.yaml"
    yield _ads_with_the_rest(scratch)
    yield _failure_kinds(scratch)


def _failure_kinds(scratch: Path) -> tuple[Path, Path]:
    """The vendor answers of tests/e2e/test_api_failure_kinds.py: error codes and failures inside a 2xx."""
    from tests.e2e.test_api_failure_kinds import MAPPING, SPEC

    (scratch / "failures.json").write_text(json.dumps(SPEC), encoding="utf-8")
    (scratch / "failures.mapping.yaml").write_text(MAPPING, encoding="utf-8")
    return scratch / "failures.json", scratch / "failures.mapping.yaml"


def _replaced(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"the ads example changed: {old!r} is no longer there once"
    return text.replace(old, new)


def _ads_with_the_rest(scratch: Path) -> tuple[Path, Path]:
    """specs/ads with what no example has: on-demand discovery, a fixed value, idempotency keys (the server's header, one an
    operation declares, and a body field), access scopes for the whole server, an Accept type, a hint and a
    server of its own, and a second credential."""
    spec = (SPECS / "ads" / "ads.openapi.yaml").read_text(encoding="utf-8")
    spec = _replaced(
        spec,
        "      operationId: createCampaign\n",
        "      operationId: createCampaign\n"
        "      servers:\n        - url: https://upload.ads.example.com/v1\n"  # Action.base_url_env
        "      parameters:\n        - name: Idempotency-Key\n"
        "          in: header\n          schema: {type: string}\n"
        "        - name: Accept\n          in: header\n"  # a vendor type: Action.accept
        "          schema: {type: string, default: application/vnd.ads.v2+json}\n",
    )
    spec = _replaced(
        spec,
        "    CampaignCreate:\n      type: object\n      required: [name, daily_budget, objective]\n      properties:\n",
        "    CampaignCreate:\n      type: object\n      required: [name, daily_budget, objective]\n      properties:\n"
        "        request_key: {type: string, description: The API's idempotency key.}\n",
    )
    mapping = (SPECS / "ads" / "mapping.yaml").read_text(encoding="utf-8")
    mapping = _replaced(  # two credentials sent together: Upstream.extra_auth
        mapping,
        "  auth:\n    type: bearer\n    env: ADS_API_TOKEN\n",
        "  auth:\n    - {type: bearer, env: ADS_API_TOKEN}\n"
        "    - {type: api_key, env: ADS_CLIENT_ID, in: header, name: X-Client-Id}\n",
    )
    mapping = _replaced(
        mapping,
        "  timeout_s: 30\n",
        "  timeout_s: 30\n  discovery: search_tools\n"  # ServerConfig.discovery
        "  idempotency_key: {header: X-Request-Key, body: request_key}\n  access:\n"
        "    issuer: https://auth.example.com\n    audience: https://ads.example.com/mcp\n"
        "    scopes: [ads:use]\n",
    )
    mapping = _replaced(
        mapping,
        "          q: {name: query}\n",
        "          q: {name: query}\n          status: {fixed: active}\n",
    )
    mapping = _replaced(  # a POST the mapping says is safe to repeat: Action.idempotent
        mapping,
        "        operation: createCampaign\n",
        "        operation: createCampaign\n        hints: {idempotent: true}\n",
    )
    (scratch / "ads.openapi.yaml").write_text(spec, encoding="utf-8")
    (scratch / "mapping.yaml").write_text(mapping, encoding="utf-8")
    return scratch / "ads.openapi.yaml", scratch / "mapping.yaml"


@dataclasses.dataclass(frozen=True)
class RenderedTables:
    classes: dict[str, type]  # runtime class name -> the class the generated code imports
    passed: dict[str, set[str]]  # runtime class name -> keywords some rendered call passes it


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> RenderedTables:
    classes: dict[str, type] = {}
    passed: dict[str, set[str]] = defaultdict(set)
    for spec, mapping in _examples(tmp_path_factory.mktemp("variant")):
        result = generate(spec, mapping)
        assert result.ok, [d.message for d in result.diagnostics]
        for file in result.files:
            if file.path.endswith(".py") and "/_runtime/" not in file.path:
                _collect(ast.parse(file.content), classes, passed)
    return RenderedTables(classes, dict(passed))


def _collect(tree: ast.Module, classes: dict[str, type], passed: dict[str, set[str]]) -> None:
    imported = {
        alias.asname or alias.name: (node.module or "").removeprefix("_runtime.")
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("_runtime.")
        for alias in node.names
    }
    for name, module in imported.items():
        found = getattr(_runtime_module(module), name)
        if dataclasses.is_dataclass(found):
            classes[name] = found  # type: ignore[assignment]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in classes:
            assert not node.args, f"{node.func.id}(...) is called with positional arguments"
            passed[node.func.id] |= {k.arg for k in node.keywords if k.arg is not None}


def _fields(cls: type) -> dict[str, dataclasses.Field[object]]:
    return {f.name: f for f in dataclasses.fields(cls)}


def _has_default(field: dataclasses.Field[object]) -> bool:
    return field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING


def test_the_examples_call_every_table_type(rendered: RenderedTables) -> None:
    expected = {"Tool", "Action", "Param", "Unit", "Fixed", "Guard", "Preview", "Paging", "Shape"}
    expected |= {"ServerConfig", "Upstream", "Auth", "Access"}
    assert expected <= set(rendered.passed), "an example or fixture no longer renders one of them"


def test_every_keyword_rendered_is_a_runtime_field(rendered: RenderedTables) -> None:
    unknown = {
        name: sorted(keywords - set(_fields(rendered.classes[name])))
        for name, keywords in rendered.passed.items()
    }
    assert {k: v for k, v in unknown.items() if v} == {}


def test_every_runtime_field_is_rendered_or_defaulted_on_purpose(rendered: RenderedTables) -> None:
    never_passed = {
        name: {f for f in _fields(cls) if f not in rendered.passed.get(name, set())}
        for name, cls in rendered.classes.items()
    }
    required = {
        name: sorted(f for f in fields if not _has_default(_fields(rendered.classes[name])[f]))
        for name, fields in never_passed.items()
    }
    assert {k: v for k, v in required.items() if v} == {}, "render never sets these required fields"
    unlisted = {
        name: sorted(fields - DEFAULTED_ON_PURPOSE.get(name, set())) for name, fields in never_passed.items()
    }
    assert {k: v for k, v in unlisted.items() if v} == {}, (
        "no example renders these runtime fields: render them from the IR, or list them in "
        "DEFAULTED_ON_PURPOSE with the reason"
    )
    stale = {
        name: sorted(fields - never_passed.get(name, set())) for name, fields in DEFAULTED_ON_PURPOSE.items()
    }
    assert {k: v for k, v in stale.items() if v} == {}, "rendered after all: take them off the list"


@pytest.mark.parametrize("ir_type", list(IR_TO_RUNTIME), ids=[t.__name__ for t in IR_TO_RUNTIME])
def test_every_ir_field_reaches_the_runtime_or_is_the_generators_own(
    ir_type: type, rendered: RenderedTables
) -> None:
    runtime_name, carried, own = IR_TO_RUNTIME[ir_type]
    ir_fields = {f.name for f in dataclasses.fields(ir_type)}
    assert ir_fields == set(carried) | set(own), (
        "an IR field is neither carried nor listed as the generator's"
    )
    assert not set(carried) & set(own)
    runtime_fields = set(_fields(rendered.classes[runtime_name]))
    assert set(carried.values()) <= runtime_fields
    uncovered = runtime_fields - set(carried.values()) - DERIVED.get(runtime_name, set())
    assert uncovered == set(), "runtime fields no IR field feeds"
