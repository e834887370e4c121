"""The oracle's derived mapping: `mcpgen init`'s draft, plus what a careful user adds and the draft never
configures, so the sample exercises it: a unit on a numeric parameter (money in cents where the spec has
an amount), concise fields on reads, and paging by a body field or a next-page token where the spec
pages so. Deterministic: the same spec gives the same mapping.

A derived addition that the build refuses is dropped (the actions its diagnostics name lose their
additions; after three rounds, all of them), so the spec is still measured with init's draft, and the
row says what was added (`derived`).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from scripts.sweep import sweep
from scripts.sweep.oracle_spec import SpecDoc, answer_kind

METHODS = ("get", "put", "post", "delete", "patch")
# Numbers that are no quantity with a unit: paging, positions, ids, versions, coordinates.
_PAGING = re.compile(
    r"^(limit|page|page_?size|per_?page|offset|skip|top|count|max_?results|size|start)$|"
    r"(index|sequence|version|id|ids|number|num|page|year|month|day|port|level|priority|order|"
    r"rank|position|zoom|lat|lng|latitude|longitude)$",
    re.I,
)
MONEY = re.compile(r"(amount|price|cost|fee|balance|budget|salary|payment|charge|total)", re.I)
TIME = re.compile(r"(timeout|duration|delay|interval|ttl|_ms$|millis|seconds|wait)", re.I)
SIZE = re.compile(r"(bytes|filesize|file_size|size_in_bytes|memory|disk)", re.I)
# (agent, upstream, factor, unit mapping): money is cents for the agent's dollars (mcpgen knows usd's decimals)
UNIT_KINDS = {
    "money": ("usd", "cents", 100.0, {"agent": "usd", "upstream": "cents"}),
    "time": ("s", "ms", 1000.0, {"agent": "s", "upstream": "ms"}),
    "size": ("kib", "bytes", 1024.0, {"agent": "kib", "upstream": "bytes"}),
    "other": ("k", "one", 1000.0, {"agent": "k", "upstream": "one", "factor": 1000}),
}
TOKEN_PARAM = re.compile(r"^(page_?token|next_?token|next_?page_?token|cursor|continuation_?token|after|"
                         r"starting_?after|marker|page_?cursor)$", re.I)  # fmt: skip
NEXT_FIELD = re.compile(r"^(next_?page_?token|next_?token|next_?cursor|next_?marker|continuation_?token|cursor|"
                        r"next)$", re.I)  # fmt: skip
TOTAL_FIELD = re.compile(r"^(total|total_?count|total_?records|total_?results|total_?items|count)$", re.I)
IDS = ("id", "uuid", "key", "name")


@dataclass
class Unit:
    """A unit the derived mapping put on one action's parameter: the judge's own record of it."""

    tool: str
    action: str
    field: str  # the parameter's name in the spec (a query parameter or a top-level body field)
    kind: str  # money, time, size, other
    agent: str
    factor: float
    operation: str = ""  # the action's 'METHOD /path' or operationId: where the parameter's slot is


@dataclass
class Derived:
    units: list[Unit] = field(default_factory=list)
    concise: dict[str, list[str]] = field(default_factory=dict)  # "tool.action" -> fields
    paging: dict[str, dict[str, str]] = field(default_factory=dict)  # "tool.action" -> pagination
    dropped: list[str] = field(default_factory=list)  # additions the build refused
    drafted: dict[str, dict[str, Any]] = field(default_factory=dict)  # a unit's parameter as the draft had it

    def summary(self) -> dict[str, Any]:
        return {"units": [f"{u.tool}.{u.action}:{u.field}:{u.kind}" for u in self.units],
                "concise": len(self.concise), "paging": sorted(self.paging), "dropped": self.dropped}  # fmt: skip

    def declared(self, tool: str, action: str) -> set[str]:
        return {u.field for u in self.units if u.tool == tool and u.action == action}


# ---- reading the spec -----------------------------------------------------------------------------


def _operations(doc: SpecDoc) -> dict[str, tuple[str, str]]:
    """operationId and 'METHOD /path' -> (method, path)."""
    out: dict[str, tuple[str, str]] = {}
    for path, item in (doc.raw.get("paths") or {}).items():
        item = doc.resolve(item)
        for method in METHODS if isinstance(item, dict) else ():
            op = doc.resolve(item.get(method))
            if isinstance(op, dict):
                out[f"{method.upper()} {path}"] = (method, path)
                if isinstance(op.get("operationId"), str):
                    out[op["operationId"]] = (method, path)
    return out


def _props(doc: SpecDoc, schema: Any, depth: int = 0) -> dict[str, Any]:
    schema = doc.resolve(schema)
    if not isinstance(schema, dict) or depth > 4:
        return {}
    out = {k: doc.resolve(v) for k, v in (schema.get("properties") or {}).items()} if isinstance(
        schema.get("properties"), dict) else {}  # fmt: skip
    for part in schema.get("allOf") or []:
        out.update(_props(doc, part, depth + 1))
    return out


def _numeric(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") in ("integer", "number")


def _success_schema(doc: SpecDoc, method: str, path: str) -> Any:
    op = doc.operation(method, path)
    if op is None:
        return None
    for code in sorted(op.responses()):
        if code.startswith("2"):
            return op.response_schema(int(code)) if code.isdigit() else None
    return None


def record_schema(doc: SpecDoc, method: str, path: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """('list'|'record', the record's fields, the answer's own fields) for a read's success answer."""
    op = doc.operation(method, path)
    schema = doc.resolve(_success_schema(doc, method, path))
    if op is None or not isinstance(schema, dict):
        return "other", {}, {}
    kind, where = answer_kind(doc, op, schema)
    own = _props(doc, schema)
    if kind == "list":
        array = schema if where == "" else own.get(where or "")
        return "list", _props(doc, (doc.resolve(array) or {}).get("items")), own
    if kind == "record":
        full = [k for k, v in own.items() if isinstance(v, dict) and _props(doc, v)]
        if len(own) == 1 and full:  # a one-key envelope: {"data": {...}}
            return "record", _props(doc, own[full[0]]), own
        return "record", own, own
    return "other", {}, own


# ---- the additions --------------------------------------------------------------------------------


def _unit_kind(name: str) -> str | None:
    if MONEY.search(name):
        return "money"
    if TIME.search(name):
        return "time"
    if SIZE.search(name):
        return "size"
    return None


def _candidates(doc: SpecDoc, method: str, path: str) -> list[tuple[str, str]]:
    """(wire name, unit kind) of the numeric query and top-level JSON body parameters an agent passes."""
    op = doc.operation(method, path)
    if op is None:
        return []
    found = []
    for (at, name), p in op.params.items():
        if at == "query" and _numeric(doc.resolve(p.get("schema"))) and not _PAGING.search(name):
            found.append((name, _unit_kind(name) or "other"))
    _, body = op.body_schema("json")
    for name, prop in _props(doc, body).items():
        if _numeric(prop) and not prop.get("readOnly") and not _PAGING.search(name):
            found.append((name, _unit_kind(name) or "other"))
    return found


def _result_fields(doc: SpecDoc, ops: dict[str, tuple[str, str]]) -> set[str]:
    names: set[str] = set()
    for method, path in set(ops.values()):
        _, record, own = record_schema(doc, method, path)
        names |= set(record) | set(own)
    return names


def _pick_units(doc: SpecDoc, mapping: dict[str, Any], ops: dict[str, tuple[str, str]]) -> list[Unit]:
    """At most two: the first money parameter (for exactness), and the first whose name is also a result
    field of the spec (where a unit leaking across tools would show); else the first numeric one."""
    results = _result_fields(doc, ops)
    seen: list[Unit] = []
    for tool, action, method, path in _actions(mapping, ops):
        params = action.get("params") or {}
        for wire, kind in _candidates(doc, method, path):
            if isinstance(params.get(wire), dict) and ("unit" in params[wire] or "fixed" in params[wire]
                                                      or params[wire].get("hidden")):  # fmt: skip
                continue
            agent, _, factor, _ = UNIT_KINDS[kind]
            seen.append(
                Unit(tool["name"], action["name"], wire, kind, agent, factor, f"{method.upper()} {path}")
            )
    money = next((u for u in seen if u.kind == "money"), None)
    shared = next((u for u in seen if u.field in results and u is not money and u.field != (money and money.field)),
                  None)  # fmt: skip
    picked = [u for u in (money, shared) if u is not None]
    return picked or seen[:1]


def _actions(mapping: dict[str, Any], ops: dict[str, tuple[str, str]]) -> list[tuple[dict, dict, str, str]]:
    out = []
    for tool in mapping.get("tools") or []:
        for action in tool.get("actions") or []:
            where = ops.get(str(action.get("operation")))
            if where is not None:
                out.append((tool, action, where[0], where[1]))
    return out


def _concise(record: dict[str, Any]) -> list[str]:
    """The id (when the record has one) and the first two other plain fields, in the schema's order."""
    plain = [k for k, v in record.items() if re.fullmatch(r"[A-Za-z0-9_]+", k)
             and isinstance(v, dict) and v.get("type") in ("string", "integer", "number", "boolean")]  # fmt: skip
    ids = [k for k in plain if k.lower() in IDS[:2]][:1]
    return ids + [k for k in plain if k not in ids][:2]


def _find(own: dict[str, Any], doc: SpecDoc, pattern: re.Pattern[str]) -> str | None:
    """A field of the answer (or of an object field of it, dotted) whose name matches."""
    for name in own:
        if pattern.match(name):
            return name
    for name, value in own.items():
        for inner in _props(doc, value):
            if pattern.match(inner):
                return f"{name}.{inner}"
    return None


def _paging(doc: SpecDoc, method: str, path: str, own: dict[str, Any]) -> dict[str, str] | None:
    """Paging by a next-page token the answer carries (query or body cursor), or by a body page field."""
    op = doc.operation(method, path)
    if op is None:
        return None
    _, body = op.body_schema("json")
    body_fields = _props(doc, body) if method in ("post", "put") else {}
    cursor = next((n for (at, n) in op.params if at == "query" and TOKEN_PARAM.match(n)), None)
    cursor = cursor or next((n for n in body_fields if TOKEN_PARAM.match(n)), None)
    nxt = _find(own, doc, NEXT_FIELD)
    total = _find(own, doc, TOTAL_FIELD)
    if cursor and nxt:
        out = {"style": "cursor", "cursor": cursor, "next_cursor": nxt}
        return {**out, "total": total} if total else out
    page = next((n for n in body_fields if n.lower() in ("page", "page_number", "pagenumber")), None)
    if page:
        out = {"style": "page", "page": page}
        size = next(
            (n for n in body_fields if n.lower() in ("limit", "page_size", "pagesize", "per_page")), None
        )
        return {**out, "limit": size} if size else out
    return None


def derive(doc: SpecDoc, mapping: dict[str, Any]) -> Derived:
    """Add units, concise fields and paging to `mapping` (in place); returns what was added."""
    ops = _operations(doc)
    derived = Derived(units=_pick_units(doc, mapping, ops))
    for unit in derived.units:
        for tool, action, _, _ in _actions(mapping, ops):
            if tool["name"] == unit.tool and action["name"] == unit.action:
                params = action.setdefault("params", {})
                entry = params.get(unit.field) if isinstance(params.get(unit.field), dict) else {}
                derived.drafted[f"{unit.tool}.{unit.action}:{unit.field}"] = dict(entry)
                # The draft's own rename ('amount_cents', from "In cents") would contradict the agent's unit.
                params[unit.field] = {
                    **{k: v for k, v in entry.items() if k != "name"},
                    "unit": UNIT_KINDS[unit.kind][3],
                }
    for index, (tool, action, method, path) in enumerate(_actions(mapping, ops)):
        key = f"{tool['name']}.{action['name']}"
        kind, record, own = record_schema(doc, method, path)
        response = action.get("response") if isinstance(action.get("response"), dict) else {}
        # Every other read keeps the default concise fields (their id is judged too).
        if kind in ("list", "record") and method == "get" and index % 2 == 0 and "concise" not in response:
            fields = _concise(record)
            if fields:
                action["response"] = {**response, "concise": fields}
                derived.concise[key] = fields
        if kind == "list" and "pagination" not in action:
            paging = _paging(doc, method, path, own)
            if paging:
                action["pagination"] = paging
                derived.paging[key] = paging
    return derived


def strip(mapping: dict[str, Any], derived: Derived, names: set[str] | None) -> None:
    """Drop the additions of the actions named ('tool.action'; None: every action)."""
    ops_names = {
        f"{t['name']}.{a['name']}": a for t in mapping.get("tools") or [] for a in t.get("actions") or []
    }
    for key, action in ops_names.items():
        if names is not None and key not in names:
            continue
        if key in derived.concise:
            action["response"] = {k: v for k, v in action["response"].items() if k != "concise"}
            if not action["response"]:
                del action["response"]
            derived.concise.pop(key)
            derived.dropped.append(f"{key}:concise")
        if key in derived.paging:
            action.pop("pagination", None)
            derived.paging.pop(key)
            derived.dropped.append(f"{key}:pagination")
        for unit in [u for u in derived.units if f"{u.tool}.{u.action}" == key]:
            entry = derived.drafted.get(f"{key}:{unit.field}") or {}
            if entry:
                action["params"][unit.field] = entry
            else:
                del action["params"][unit.field]
            derived.units.remove(unit)
            derived.dropped.append(f"{key}:unit {unit.field}")


# ---- generating the package -----------------------------------------------------------------------


def generate_derived(spec_path: Path, work: Path) -> tuple[dict[str, Any], Path | None]:
    """`sweep.generate_package` with the derived mapping: init's draft, the additions, a build that must
    pass (additions it refuses are dropped), generate. The mapping is kept as work/mapping.yaml."""
    from mcpgen import __version__
    from mcpgen.authoring.draft import init_mapping
    from mcpgen.load.openapi import load_spec_or_diagnostics
    from mcpgen.write.plan import apply_write, plan_write

    started = time.monotonic()
    spec, problems = load_spec_or_diagnostics(spec_path, display_path=str(spec_path))
    if spec is None:
        return sweep._refused("load", problems), None
    text, draft = init_mapping(spec, spec_label=spec_path.name)
    result: dict[str, Any] = {"operations": draft.operation_count, "unmapped": len(draft.unmapped)}
    if not draft.tools:
        return {**result, "outcome": "nothing-to-map", "stage": "init",
                "first": "; ".join(f"{u.operation}: {u.reason}" for u in draft.unmapped[:2]) or "no operations"}, None  # fmt: skip
    mapping_path = work / "mapping.yaml"
    draft_path = work / "draft.yaml"
    draft_path.write_text(text, encoding="utf-8")
    generated, errors = _refusal(spec_path, draft_path)
    if errors:
        return {**result, "outcome": "traceback", "stage": "init-draft", "first": errors[0]}, None
    mapping = yaml.safe_load(text)
    doc = SpecDoc(json.loads(spec_path.read_text(encoding="utf-8")))
    derived = derive(doc, mapping)
    for round_ in range(5):  # the last round checks the draft alone, every addition dropped
        mapping_path.write_text(json.dumps(mapping, indent=1), encoding="utf-8")
        generated, errors = _refusal(spec_path, mapping_path)
        if not errors or round_ == 4:
            break
        if round_ == 0:
            (work / "derived-refused.txt").write_text("\n".join(map(str, errors)), encoding="utf-8")
        # An error may name another action than the one whose addition caused it (a unit on one action's
        # parameter, the same parameter unitless in another action of the tool: M207).
        named = {k for k in _keys(mapping) if any(_names(mapping, k, str(e)) for e in errors)}
        strip(mapping, derived, named if named and round_ < 2 else None)
    if not generated.ok:
        return {**result, **sweep._refused("generate", generated.diagnostics)}, None
    out = work / "pkg"
    apply_write(plan_write(out, generated.files, generator=f"mcpgen {__version__}"), force=True)
    result["generate_s"] = round(time.monotonic() - started, 3)
    result.update(tools=len(draft.tools), actions=draft.action_count, derived=derived.summary())
    (work / "derived.json").write_text(json.dumps(_facts(derived)), encoding="utf-8")
    return result, out


def _keys(mapping: dict[str, Any]) -> list[str]:
    return [f"{t['name']}.{a['name']}" for t in mapping.get("tools") or [] for a in t.get("actions") or []]


def _names(mapping: dict[str, Any], key: str, error: str) -> bool:
    """Does the error name this action: its pointer (/tools/T/actions/A) or its quoted name?"""
    for t, tool in enumerate(mapping.get("tools") or []):
        for a, action in enumerate(tool.get("actions") or []):
            if f"{tool['name']}.{action['name']}" == key:
                return f"/tools/{t}/actions/{a}/" in error or f"/tools/{t}/actions/{a}:" in error or (
                    f"'{tool['name']}_{action['name']}'" in error)  # fmt: skip
    return False


def _refusal(spec_path: Path, mapping_path: Path) -> tuple[Any, list[str]]:
    """What the generator made of this mapping, and its errors (none: it generates)."""
    from mcpgen.diagnostics import Level, format_diagnostic
    from mcpgen.pipeline import generate

    generated = generate(spec_path, mapping_path)
    return generated, [format_diagnostic(d) for d in generated.diagnostics if d.level >= Level.ERROR]


def _facts(derived: Derived) -> dict[str, Any]:
    return {"units": [vars(u) for u in derived.units], "concise": derived.concise, "paging": derived.paging}


def read_facts(work: Path) -> Derived:
    """The derived additions a run made (work/derived.json), or none (a hand-written mapping's units are
    read from the mapping itself: every unit the user wrote on an action is declared there)."""
    path = work / "derived.json"
    if path.is_file():
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Derived([Unit(**u) for u in raw["units"]], raw["concise"], raw["paging"])
    mapping_path = work / "mapping.yaml"
    if not mapping_path.is_file():
        return Derived()
    mapping = yaml.safe_load(mapping_path.read_text(encoding="utf-8")) or {}
    units = []
    for tool in mapping.get("tools") or []:
        for action in tool.get("actions") or []:
            for wire, entry in (action.get("params") or {}).items():
                unit = entry.get("unit") if isinstance(entry, dict) else None
                if isinstance(unit, dict):
                    units.append(Unit(tool["name"], action["name"], wire, "mapping", str(unit.get("agent")),
                                      float(unit.get("factor") or 0), str(action.get("operation") or "")))  # fmt: skip
    return Derived(units)
