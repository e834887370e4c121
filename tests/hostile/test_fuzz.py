"""Property-based fuzzing of tool arguments (issue 11): whatever an agent sends, a generated server
answers with a tool result, shows no internals, and sends the API only values its schema allows.

For each of the ads, deploy and petstore examples, one server process is started and driven over
stdio through one session of the official client, against a recording upstream on 127.0.0.1.
Hypothesis draws each call from the tool's own inputSchema and routing table: valid calls (the
action's required arguments and some optional ones), and hostile variants of them (wrong types,
huge integers, NaN and Infinity, long strings, control characters, unknown keys, an argument of
another action, a missing one). Deterministic (derandomized, no example database) and bounded.

Checked after every call:
- no JSON-RPC error (E1) and no client-side failure (a result must fit its outputSchema, R5);
- no traceback and no credential in the result (E5);
- every request the upstream recorded carries, for each parameter, a value the tool's inputSchema
  accepts (decoded from the path, query, headers or body, and checked by `refusal` below, which is
  written independently of the server's validator: patterns as whole-value matches, finite numbers,
  int32/int64 ranges).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp.shared.exceptions import MCPError

from tests.e2e.packages import imported
from tests.hostile.runtime_servers import (
    CREDENTIAL_ENV,
    SECRET,
    SpecUpstream,
    command,
    example_env,
    generate,
    has_traceback,
)
from tests.support.mcp_client import stdio_client
from tests.support.paths import SPECS
from tests.upstreams.ads import AdsUpstream
from tests.upstreams.deploy import DeployUpstream
from tests.upstreams.recording import LoopbackUpstream, RecordedRequest

pytestmark = [pytest.mark.e2e]

# Calls per example server: 2,100 in all, each one tools/call through the official client.
CALLS = {"ads": 700, "deploy": 700, "petstore": 700}
FLOAT_MAX = 1.7976931348623157e308
INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


# --- the oracle: does the schema allow this value? ----------------------------------------------


def refusal(value: Any, schema: dict[str, Any], where: str = "") -> str | None:
    """Why `schema` refuses `value` (a string naming the rule), or None when it allows it."""
    if found := _unbounded(value, where):
        return found
    if "enum" in schema and value not in schema["enum"]:
        return f"{where}: not in the enum"
    kind = schema.get("type")
    checks = {
        "string": _string_refusal,
        "integer": _number_refusal,
        "number": _number_refusal,
        "boolean": _boolean_refusal,
        "array": _array_refusal,
        "object": _object_refusal,
    }
    return checks[kind](value, schema, where) if kind in checks else _nested_refusal(value, where)


def _string_refusal(value: Any, schema: dict[str, Any], where: str) -> str | None:
    if not isinstance(value, str):
        return f"{where}: not a string"
    if "pattern" in schema and re.fullmatch(schema["pattern"], value, re.ASCII) is None:
        return f"{where}: {value!r} is not entirely {schema['pattern']}"
    if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", math.inf):
        return f"{where}: length {len(value)} out of bounds"
    fmt = schema.get("format")
    if fmt == "date" and not _is_date(value):
        return f"{where}: not a date"
    if fmt == "date-time" and not _is_date_time(value):
        return f"{where}: not a date-time with offset"
    return None


def _number_refusal(value: Any, schema: dict[str, Any], where: str) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{where}: not a number"
    if schema["type"] == "integer" and not float(value).is_integer():
        return f"{where}: not a whole number"
    if value < schema.get("minimum", -math.inf) or value > schema.get("maximum", math.inf):
        return f"{where}: {value} out of bounds"
    if value <= schema.get("exclusiveMinimum", -math.inf) or value >= schema.get(
        "exclusiveMaximum", math.inf
    ):
        return f"{where}: {value} out of bounds"
    low, high = INT_RANGES.get(schema.get("format", ""), (-math.inf, math.inf))
    if not low <= value <= high:
        return f"{where}: {value} is not {schema['format']}"
    return None


def _boolean_refusal(value: Any, schema: dict[str, Any], where: str) -> str | None:
    return None if isinstance(value, bool) else f"{where}: not a boolean"


def _array_refusal(value: Any, schema: dict[str, Any], where: str) -> str | None:
    if not isinstance(value, list):
        return f"{where}: not an array"
    if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", math.inf):
        return f"{where}: {len(value)} items out of bounds"
    items = schema.get("items", {})
    return next((r for i, v in enumerate(value) if (r := refusal(v, items, f"{where}[{i}]"))), None)


def _object_refusal(value: Any, schema: dict[str, Any], where: str) -> str | None:
    if not isinstance(value, dict):
        return f"{where}: not an object"
    properties = schema.get("properties", {})
    if schema.get("additionalProperties") is False and set(value) - set(properties):
        return f"{where}: unknown keys"
    for key, item in value.items():
        found = refusal(item, properties[key], f"{where}.{key}") if key in properties else None
        if found or (found := _nested_refusal(item, f"{where}.{key}")):
            return found
    return None


def _unbounded(value: Any, where: str) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return f"{where}: not a finite number"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > FLOAT_MAX:
        return f"{where}: beyond any float"
    return None


def _nested_refusal(value: Any, where: str) -> str | None:
    """What any JSON value must be to be sent: finite numbers all the way down."""
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return _unbounded(value, where) or next((r for c in children if (r := _nested_refusal(c, where))), None)


def _is_date(value: str) -> bool:
    try:
        return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", value, re.ASCII)) and bool(date.fromisoformat(value))
    except ValueError:
        return False


def _is_date_time(value: str) -> bool:
    shape = r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})"
    if not re.fullmatch(shape, value, re.ASCII):
        return False
    try:
        datetime.fromisoformat(
            value[:19] + re.sub(r"^(\.\d+)?", "", value[19:]).upper().replace("Z", "+00:00")
        )
    except ValueError:
        return False
    return True


# --- what the upstream received, decoded back into agent arguments -------------------------------


@dataclass(frozen=True)
class Route:
    method: str
    path: re.Pattern[str]
    action: Any  # the generated package's routing.Action
    properties: dict[str, Any]  # the served tool's inputSchema properties


class Undecodable(str):
    """A wire value that no value of the parameter's type could have produced."""


def tables(
    out: Path, package: str, schemas: dict[str, dict[str, Any]]
) -> tuple[list[Route], dict[str, list[Any]]]:
    """Every (method, path) the server can call, with the inputSchema its values must fit; and for
    each served tool, the routing Actions it runs with the agent's arguments (none for an apply)."""
    with imported(out, package) as server:
        tools = server.TOOLS
    found, actions = [], {}
    for tool in tools:
        served = f"{tool.name}_preview" if tool.preview is not None else tool.name
        properties = schemas[served].get("properties", {})
        actions[served] = list(tool.actions)
        if tool.preview is not None:
            actions[f"{tool.name}_apply"] = []
        for action in tool.actions:
            found.append(Route(action.method, _path_pattern(action.path), action, properties))
            if action.preview is not None:
                read = action.preview.read
                found.append(Route(read.method, _path_pattern(read.path), read, properties))
    found.sort(key=lambda r: r.action.path.count("{"))  # /campaigns/search before /campaigns/{campaign_id}
    return found, actions


def _path_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^{}]+\})", template)
    return re.compile(
        "".join(f"(?P<p{i}>[^/]*)" if p.startswith("{") else re.escape(p) for i, p in enumerate(parts))
    )


def sent_arguments(
    route: Route, request: RecordedRequest, matched: re.Match[str]
) -> Iterator[tuple[str, Any]]:
    """(argument, value) for every agent parameter the request carries."""
    parts = re.split(r"(\{[^{}]+\})", route.action.path)
    in_path = {p[1:-1]: unquote(matched[f"p{i}"]) for i, p in enumerate(parts) if p.startswith("{")}
    cookies = dict(c.split("=", 1) for c in request.headers.get("cookie", "").split("; ") if "=" in c)
    for param in route.action.params:
        schema = route.properties.get(param.arg)
        if schema is None:  # hidden from the agent: the mapping sets it
            continue
        assert param.unit is None, "no example converts units"
        if param.at == "body" and isinstance(request.json, dict) and param.wire in request.json:
            yield param.arg, request.json[param.wire]
            continue
        raw = {
            "path": [in_path.get(param.wire)],
            "query": request.query.get(param.wire, []),
            "header": [request.headers.get(param.wire.lower())],
            "cookie": [cookies.get(param.wire)],
        }
        texts = [t for t in raw.get(param.at, []) if t is not None]
        if texts:
            yield param.arg, _decoded(texts, schema)


def _decoded(texts: list[str], schema: dict[str, Any]) -> Any:
    if schema.get("type") == "array":
        return [_decoded_scalar(t, schema.get("items", {})) for t in texts]
    return _decoded_scalar(texts[0], schema) if len(texts) == 1 else Undecodable(f"sent {len(texts)} times")


def _decoded_scalar(text: str, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "integer":
        return int(text) if re.fullmatch(r"-?[0-9]+", text) else Undecodable(text)
    if kind == "number":
        return float(text) if re.fullmatch(r"-?[0-9.]+([eE][-+]?[0-9]+)?", text) else Undecodable(text)
    if kind == "boolean":
        return {"true": True, "false": False}.get(text, Undecodable(text))
    return text


def unsent_refusals(found: list[Route], requests: list[RecordedRequest]) -> list[str]:
    """What the upstream should never have received: each a request and the rule its value breaks."""
    problems = []
    for request in requests:
        route, matched = next(
            ((r, m) for r in found if r.method == request.method and (m := r.path.fullmatch(request.path))),
            (None, None),
        )
        if route is None or matched is None:
            problems.append(f"{request.method} {request.path}: no action calls this")
            continue
        for argument, value in sent_arguments(route, request, matched):
            reason = (
                f"{argument}: undecodable {value!r}"
                if isinstance(value, Undecodable)
                else refusal(value, route.properties[argument], argument)
            )
            if reason:
                problems.append(f"{request.method} {request.path}: {reason[:300]}")
    return problems


# --- what the agent sends ----------------------------------------------------------------------

HUGE_NUMBERS = [2**53 + 1, 2**63, -(2**63) - 1, 10**30, 10**309, -(10**400), 10**1000, 1e308, 5e-324, -0.0]
NESTED = st.recursive(
    st.integers(-3, 3) | st.sampled_from([10**400, 1e300]),
    lambda inner: st.lists(inner, max_size=2),
    max_leaves=40,
)
HOSTILE = st.one_of(
    st.sampled_from(HUGE_NUMBERS),
    st.floats(),  # NaN and Infinity too (the official client sends them as null)
    st.text(max_size=40),  # any characters: control characters, NUL, right-to-left marks
    st.integers(1_000, 300_000).map(lambda n: "x" * n),
    st.lists(st.integers() | st.text(max_size=4), max_size=4),
    st.dictionaries(st.text(max_size=6), st.integers() | st.text(max_size=4), max_size=3),
    st.booleans(),
    NESTED,
)


def valid_value(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(re.compile(schema["pattern"], re.ASCII), fullmatch=True)
        if schema.get("format") == "date":
            return st.dates(date(2000, 1, 1), date(2099, 12, 31)).map(date.isoformat)
        if schema.get("format") == "date-time":
            moments = st.datetimes(datetime(2000, 1, 1), datetime(2099, 12, 31), timezones=st.just(UTC))
            return moments.map(lambda moment: moment.isoformat())
        letters = st.characters(codec="ascii", categories=("L", "N", "Zs", "P"))
        low = schema.get("minLength", 0)
        return st.text(letters, min_size=low, max_size=max(low, min(schema.get("maxLength", 30), 30)))
    if kind in ("integer", "number"):
        low, high = INT_RANGES.get(schema.get("format", ""), (-(10**12), 10**12))
        low, high = schema.get("minimum", max(low, -(10**12))), schema.get("maximum", min(high, 10**12))
        if kind == "integer":
            return st.integers(low, high)
        return st.floats(low, high, allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(valid_value(schema.get("items", {})), max_size=3)
    if kind == "object" and schema.get("properties"):
        return st.fixed_dictionaries(
            {}, optional={k: valid_value(v) for k, v in schema["properties"].items()}
        )
    return st.dictionaries(st.text(max_size=6), st.integers(-5, 5) | st.text(max_size=6), max_size=3)


def hostile_value(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    near_misses = []
    if "pattern" in schema:
        valid = valid_value(schema)
        near_misses = [
            valid.map(lambda s: s + "\n"),
            valid.map(lambda s: " " + s),
            valid.map(lambda s: s + "\x00"),
        ]
    return st.one_of(HOSTILE, *near_misses)


@dataclass
class Catalog:
    """The server's tools, as the fuzzer needs them; `issued` collects preview ids as they come."""

    schemas: dict[str, dict[str, Any]]
    actions: dict[str, list[Any]]  # served name -> the routing Actions it runs (none for an apply)
    issued: list[str] = field(default_factory=list)


def draw_call(data: st.DataObject, catalog: Catalog) -> tuple[str, dict[str, Any]]:
    name = data.draw(st.sampled_from(sorted(catalog.schemas)), label="tool")
    properties = catalog.schemas[name].get("properties", {})
    hostile = data.draw(st.booleans(), label="hostile")
    if not catalog.actions[name]:  # <tool>_apply: a preview_id this session got, or anything
        issued = st.sampled_from(catalog.issued) if catalog.issued else st.text(max_size=20)
        arguments = {"preview_id": data.draw(issued, label="preview_id")}
    else:
        action = data.draw(st.sampled_from(catalog.actions[name]), label="action")
        arguments = {"action": action.name} if "action" in properties else {}
        for arg in action.arg_names:
            if arg in action.required or data.draw(st.booleans(), label=f"give {arg}"):
                arguments[arg] = data.draw(valid_value(properties[arg]), label=arg)
    if hostile:
        arguments = _spoiled(data, arguments, properties)
    return name, arguments


def _spoiled(data: st.DataObject, arguments: dict[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
    """One to three changes that make a valid call hostile."""
    spoiled = dict(arguments)
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        change = data.draw(
            st.sampled_from(["value", "unknown key", "other argument", "drop"]), label="change"
        )
        if change == "value" and properties:
            arg = data.draw(st.sampled_from(sorted(properties)), label="spoiled argument")
            spoiled[arg] = data.draw(hostile_value(properties[arg]), label=f"hostile {arg}")
        elif change == "unknown key":
            key = data.draw(st.text(min_size=1, max_size=30) | st.integers(1_000, 100_000).map("k".__mul__))
            spoiled[key] = data.draw(HOSTILE, label="unknown value")
        elif change == "other argument" and properties:
            arg = data.draw(st.sampled_from(sorted(properties)), label="other argument")
            spoiled[arg] = data.draw(valid_value(properties[arg]) | HOSTILE, label=f"other {arg}")
        elif spoiled:
            spoiled.pop(data.draw(st.sampled_from(sorted(spoiled)), label="dropped"))
    return spoiled


# --- the test ----------------------------------------------------------------------------------


def _upstream(example: str) -> LoopbackUpstream:
    if example == "ads":
        return AdsUpstream(token=SECRET)
    if example == "deploy":
        return DeployUpstream(key=SECRET)
    return SpecUpstream(SPECS / "petstore" / "petstore.openapi.json", token_header="api_key")


@pytest.mark.parametrize("example", sorted(CALLS))
def test_fuzzed_arguments_get_results_and_never_reach_the_api_refused(example: str, tmp_path: Path) -> None:
    out = generate(example, tmp_path)
    package = f"{example}_mcp"
    stderr = tmp_path / "stderr.log"
    with ExitStack() as stack:
        upstream = stack.enter_context(_upstream(example))
        portal = stack.enter_context(start_blocking_portal())
        env = example_env(example, out, upstream, tmp_path / "previews.db")
        assert env[CREDENTIAL_ENV[example]] == SECRET
        client = stack.enter_context(
            portal.wrap_async_context_manager(stdio_client(command(package), env, stderr_file=stderr))
        )
        listing = portal.call(client.list_tools)
        schemas = {t.name: t.input_schema for t in listing.tools}
        found, actions = tables(out, package, schemas)
        assert set(actions) == set(schemas)
        catalog = Catalog(schemas, actions)
        calls: list[str] = []
        errors: list[str] = []

        @settings(
            max_examples=CALLS[example],
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.generate, Phase.shrink],
            suppress_health_check=list(HealthCheck),
        )
        @given(data=st.data())
        def one_call(data: st.DataObject) -> None:
            name, arguments = draw_call(data, catalog)
            before = len(upstream.requests)
            calls.append(name)
            try:
                result = portal.call(client.call_tool, name, arguments)
            except MCPError as exc:
                raise AssertionError(
                    f"JSON-RPC error {exc.error.code} {exc.error.message!r} for {name}"
                ) from None
            text = "\n".join(getattr(block, "text", "") for block in result.content)
            shown = text + json.dumps(result.structured_content)
            assert not has_traceback(shown), text[:2000]
            assert SECRET not in shown
            assert unsent_refusals(found, upstream.requests[before:]) == [], (name, arguments)
            if result.is_error:
                errors.append(name)
            elif name.endswith("_preview"):
                catalog.issued.append(result.structured_content["preview_id"])

        one_call()
    print(
        f"{example}: {len(calls)} calls, {len(errors)} error results, {len(upstream.requests)} upstream requests"
    )
    assert len(calls) >= CALLS[example]
    assert len(upstream.requests) >= CALLS[example] // 10  # the upstream check is not vacuous
    assert not has_traceback(stderr.read_text())  # nor in the server's log (E5)
