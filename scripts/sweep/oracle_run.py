"""One spec through the oracle (runs in a child process of its own, see oracle.py).

Generate the package with the `mcpgen init` mapping (the corpus sweep's steps), serve the spec with
Prism behind the recording proxy, start the generated server over stdio with its base URL pointed at
the proxy and its credential variable set, and call through the official client: every read action
(required arguments only, then every argument with response_format=detailed, then the next page when
the result offers one), every write action (every argument; the confirm value or the preview/apply
pair where the tool asks for it), and one error probe per action whose operation documents a 4xx
JSON answer (the proxy asks Prism for it with `Prefer: code=...`). Each call is judged (oracle_judge).
"""

from __future__ import annotations

import collections
import importlib
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import jsonschema

from scripts.sweep import sweep
from scripts.sweep.oracle_classes import EXACT_VALUE
from scripts.sweep.oracle_derive import generate_derived, read_facts
from scripts.sweep.oracle_judge import Call, Finding, judge, message_strings, static_findings
from scripts.sweep.oracle_spec import (
    SpecDoc,
    Value,
    allowed,
    answer_kind,
    merge_schemas,
    param_value,
    schema_value,
    valid_for,
)
from scripts.sweep.oracle_upstream import PrismRefused, Recorder, prism
from scripts.sweep.oracle_variants import ERROR_KINDS, FAILURE_KINDS, PAGING_KINDS, WRAP_KEYS, pick

CREDENTIAL = "oracle-credential-7c1e"
BASIC_CREDENTIAL = "oracle:credential-7c1e"
CALL_TIMEOUT_S = 45.0  # the generated server gives up on the API after 30 s (its timeout_s)
PLAIN_JSON_SCHEMA = SpecDoc({})


@dataclass
class Plan:
    tool: Any  # routing.Tool
    action: Any  # routing.Action
    step: str
    args: dict[str, Any]
    unsure: set[str]
    notes: list[Finding] = field(default_factory=list)
    props: dict[str, Any] = field(default_factory=dict)
    variant: dict[str, Any] | None = None  # the shape the upstream layer gives the answer (oracle_variants)
    extra: dict[str, Any] = field(default_factory=dict)


def _value_envs(doc: SpecDoc, tools: Any) -> dict[str, str]:
    """A value for each variable the package sends in a body field (`env:`): the field's own example
    when the spec gives one (UniCourt's clientId is exactly 32 characters), as a user's real one fits."""
    values: dict[str, str] = {}
    for tool in tools:
        for action in tool.actions:
            op = doc.operation(action.method, action.path)
            for fixed in (f for f in getattr(action, "fixed", ()) if getattr(f, "env", None)):
                field: Any = {}
                if op is not None and fixed.at == "body":
                    body = doc.resolve(op.body_schema(action.body)[1])
                    fields = body.get("properties") if isinstance(body, dict) else None
                    field = doc.resolve((fields or {}).get(fixed.wire)) or {}
                example = field.get("example") if isinstance(field, dict) else None
                values.setdefault(fixed.env, example if isinstance(example, str) else CREDENTIAL)
    return values


def run_spec(
    spec_path: Path, work: Path, *, dynamic: bool, budget_s: float, generate: Any = None
) -> dict[str, Any]:
    """One spec, with the derived mapping (oracle_derive) unless `generate` makes the package another way
    (a hand-written mapping: scripts/sweep/heldout); it then leaves its mapping at work/mapping.yaml."""
    started = time.monotonic()
    deadline = started + budget_s
    raw = json.loads(spec_path.read_text(encoding="utf-8"))
    paths = list(raw.get("paths") or {})
    if paths and all("#" in p for p in paths):
        # AWS JSON-protocol specs name each operation '/#X-Amz-Target=...': Prism routes none of them.
        return {"status": "excluded", "reason": "Prism cannot route the spec: every path has a '#' fragment "
                "(AWS JSON protocol), and a request path never carries one"}  # fmt: skip
    generated, out = (generate or generate_derived)(spec_path, work)
    if out is None:
        return {"status": "excluded", "reason": f"mcpgen {generated.get('outcome')}: "
                f"{str(generated.get('first', '')).splitlines()[0][:300]}", **_counts(generated)}  # fmt: skip
    package = sweep.generated_package(out)
    sys.path.insert(0, str(out))
    server = importlib.import_module(f"{package}.server")
    tools = importlib.import_module(f"{package}.tools").TOOLS
    contract = {t["name"]: t for t in json.loads((out / package / "tools.json").read_text(encoding="utf-8"))}
    doc = SpecDoc(raw)
    package_text = "\n".join(p.read_text(encoding="utf-8") for p in (out / package).rglob("*.py"))
    findings = static_findings(doc, tools, contract, package_text)
    derived = read_facts(work)
    seed = "/".join(spec_path.parts[-2:])
    plans = [plan for tool in tools for plan in _plans(doc, tool, contract)]
    plans += [plan for p in plans for plan in variant_plans(doc, p, derived, seed)]
    findings += [note for plan in plans for note in plan.notes]
    upstream = server.CONFIG.upstream
    row: dict[str, Any] = {"mode": "dynamic" if dynamic else "static", **_counts(generated),
                           "derived": generated.get("derived"),
                           "auth": upstream.auth.kind if upstream.auth else None}  # fmt: skip
    try:
        with (
            prism(spec_path, dynamic=dynamic, log_file=work / "prism.log") as prism_url,
            Recorder(prism_url) as rec,
        ):
            env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(out), upstream.base_url_env: rec.base_url}
            for auth in (upstream.auth, *getattr(upstream, "extra_auth", ())) if upstream.auth else ():
                env[auth.env] = BASIC_CREDENTIAL if auth.kind == "basic" else CREDENTIAL
            token_env = getattr(getattr(upstream, "tokens", None), "token_env", None)
            if token_env:  # oauth2_user: a call with no user (stdio) takes the token in this variable
                env[token_env] = CREDENTIAL
            env.update(_value_envs(doc, tools))  # params: {x: {env: NAME}}, set as a user sets them
            stderr = work / "server.log"
            command = [sys.executable, "-m", package, "--log-level", "INFO", "--contract-poll-s", "0"]
            calls, unreached = anyio.run(_drive, command, env, stderr, plans, rec, doc, contract, deadline)
            row["exchanges"] = len(rec.exchanges)
            _keep_exchanges(work / "exchanges.jsonl", rec.exchanges)
            _keep_calls(work / "calls.jsonl", calls)
    except PrismRefused as exc:
        return {"status": "excluded", "reason": f"Prism cannot serve the spec: {exc}", **_counts(generated)}
    for call in calls:
        call.derived = derived
        findings += judge(call)
    log = stderr.read_text(encoding="utf-8", errors="replace") if stderr.is_file() else ""
    if "Traceback (most recent call last)" in log:
        tail = log[log.index("Traceback (most recent call last)") :].strip().splitlines()[-1]
        findings.append(Finding("d", "server-traceback", "-", "-", "-", "-", tail[:300],
                                "the server process printed a traceback"))  # fmt: skip
    row.update(
        status="partial" if unreached else "measured",
        calls=len(calls),
        results={
            "ok": sum(1 for c in calls if not c.is_error and c.raised is None),
            "error": sum(1 for c in calls if c.is_error),
            "raised": sum(1 for c in calls if c.raised),
        },
        statuses=dict(collections.Counter(str(e.status) for c in calls for e in c.exchanges)),
        steps=dict(collections.Counter(c.step for c in calls)),
        probes_with_message=sum(
            1
            for c in calls
            if c.step == "probe" and c.exchanges and message_strings(c.exchanges[-1].response)
        ),  # fmt: skip
        unreached=unreached,
        seconds=round(time.monotonic() - started, 1),
        findings=[f.row() for f in findings],
    )
    return row


def _keep_exchanges(path: Path, exchanges: list[Any]) -> None:
    """Every exchange as one JSON line, for a person looking into a finding (`--one SPEC DIR` keeps DIR)."""
    with path.open("w", encoding="utf-8") as out:
        for e in exchanges:
            out.write(json.dumps({"method": e.method, "path": e.path, "query": e.query, "body": e.body,
                                  "status": e.status, "violations": e.violations(), "forced": e.forced,
                                  "response": e.response if len(json.dumps(e.response)) < 2000 else "..."},
                                 default=str) + "\n")  # fmt: skip


def _keep_calls(path: Path, calls: list[Call]) -> None:
    """Every call as one JSON line: the step, what the agent passed and got, and the variant its answer was."""
    with path.open("w", encoding="utf-8") as out:
        for c in calls:
            variant = next((e.variant for e in reversed(c.exchanges) if e.variant), None)
            out.write(json.dumps({"step": c.step, "tool": c.tool, "action": c.action.name, "args": c.args,
                                  "is_error": c.is_error, "raised": c.raised, "text": c.text[:2000],
                                  "data": c.data if len(json.dumps(c.data, default=str)) < 4000 else "...",
                                  "variant": variant, "sent": [e.body for e in c.exchanges][:4]},
                                 default=str) + "\n")  # fmt: skip


def _counts(generated: dict[str, Any]) -> dict[str, Any]:
    return {k: generated[k] for k in ("operations", "tools", "actions") if k in generated}


# ---- the calls ----------------------------------------------------------------------------------


def _plans(doc: SpecDoc, tool: Any, contract: dict[str, dict[str, Any]]) -> list[Plan]:
    if tool.preview is not None:
        action = tool.actions[0]
        props = _properties(contract, f"{tool.name}_preview")
        args, unsure, notes = build_args(doc, tool, action, props, full=True)
        _fit_read(doc, tool.preview.read, args, props)
        return [Plan(tool, action, "preview", args, unsure, notes, props)]
    props = _properties(contract, tool.name)
    plans = []
    for action in tool.actions:
        op = doc.operation(action.method, action.path)
        if op is None:
            continue
        steps = ("minimal", "full") if action.shape is not None else ("full",)
        for step in steps:
            args, unsure, notes = build_args(doc, tool, action, props, full=step == "full")
            plans.append(Plan(tool, action, step, {"action": action.name, **args}, unsure, notes, props))
        if op.error_statuses() or op.default_error():
            last = plans[-1]
            plans.append(Plan(tool, action, "probe", dict(last.args), set(last.unsure), props=props,
                              extra={"default_only": not op.error_statuses()}))  # fmt: skip
    return plans


def variant_plans(doc: SpecDoc, plan: Plan, derived: Any, seed: str) -> list[Plan]:
    """The variant steps that follow one of the draft's steps (oracle_variants): a concise read of a wrapped
    record, a list paged the way real APIs page, a vendor error, a failure inside a 200, an exact amount."""
    op = doc.operation(plan.action.method, plan.action.path)
    if op is None or plan.step != "full":
        return []
    args = {k: v for k, v in plan.args.items() if k != "response_format"}
    out = []

    def add(step: str, kinds: tuple[str, ...], given: dict[str, Any], **extra: Any) -> None:
        kind = pick(kinds, seed, op.key, step)
        out.append(Plan(plan.tool, plan.action, step, given, plan.unsure, props=plan.props,
                        variant={"kind": kind}, extra=extra))  # fmt: skip

    if plan.action.shape is not None:
        add("concise", WRAP_KEYS, args)
        kind, _ = answer_kind(doc, op, op.response_schema(200) or op.response_schema(201))
        if kind == "list" or plan.action.paging is not None:
            add("paged", PAGING_KINDS, dict(plan.args))
    add("vendor-error", ERROR_KINDS, dict(plan.args))
    add("fail200", FAILURE_KINDS, dict(plan.args))
    for unit in derived.units:
        param = next((p for p in plan.action.params if p.wire == unit.field and p.unit is not None), None)
        if (
            unit.kind == "money"
            and param is not None
            and plan.tool.name.endswith(unit.tool)
            and unit.action == plan.action.name
        ):
            out.append(Plan(plan.tool, plan.action, "exact", {**plan.args, param.arg: EXACT_VALUE}, plan.unsure,
                            props=plan.props, extra={"wire": unit.field, "at": "query" if param.at == "query" else "body",
                                                     "arg": param.arg, "factor": unit.factor}))  # fmt: skip
    return out


def _fit_read(doc: SpecDoc, read: Any, args: dict[str, Any], props: dict[str, Any]) -> None:
    """A value the preview's read takes too, where the action's own value would not fit it: an agent passes
    the id a list gave it (hetzner.cloud.json types `id` a string in DELETE /volumes/{id} and an integer in
    GET /volumes/{id}, the read: "1" fits both, "oracle" only the first)."""
    op = doc.operation(read.method, read.path)
    for param in read.params if op is not None else ():
        spec_param = op.param(param.at, param.wire) if param.arg in args else None
        schema = doc.resolve(spec_param.get("schema")) if spec_param else None
        value = args.get(param.arg)
        twin = _wire_twin(param, value)
        if (
            not isinstance(schema, dict)
            or allowed(doc, schema, value)
            or (twin is not None and allowed(doc, schema, twin))
        ):
            continue
        made = schema_value(doc, schema, full=False)
        if made is None:
            continue
        candidate = (
            str(made.value) if isinstance(value, str) and not isinstance(made.value, str) else made.value
        )
        if valid_for(props.get(param.arg) or {}, candidate):
            args[param.arg] = candidate


def _properties(contract: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    return ((contract.get(name) or {}).get("inputSchema") or {}).get("properties") or {}


def build_args(doc: SpecDoc, tool: Any, action: Any, props: dict[str, Any], *, full: bool
               ) -> tuple[dict[str, Any], set[str], list[Finding]]:  # fmt: skip
    """The arguments an agent would pass, from the spec's examples and schemas, as the tool's
    inputSchema names and types them. Returns them, the wire names whose value the oracle could not
    make one the spec allows, and findings where the inputSchema refuses a value the spec allows."""
    op = doc.operation(action.method, action.path)
    args: dict[str, Any] = {}
    unsure: set[str] = set()
    notes: list[Finding] = []
    if op is None:
        return args, unsure, notes
    media, body_schema = _body_schema(op, action.body)
    body_example = op.body_example(action.body)
    # A oneOf/anyOf body: the arguments of one form (the first), as an agent reading which form needs
    # each property would pass them; every argument at once fits no form (nexmo.com/voice.json POST /).
    variants = tuple(getattr(action, "variants", ()) or ())
    in_some_form = {arg for v in variants for arg in v.args}
    form = variants[0] if variants else None
    for param in action.params:
        if form is not None and param.arg in in_some_form and param.arg not in form.args:
            continue
        needed = param.arg in action.required or (form is not None and param.arg in form.required)
        if not needed and not full:
            continue
        if getattr(param, "style", None) == "file":
            # A file in a multipart or binary body: generated servers take a data URL (or a path under a
            # files directory, which the oracle's servers are not given).
            one = "data:application/octet-stream;base64,b3JhY2xl"
            # A field that is an array of files (pdfblocks' merge_documents) takes a list of them.
            args[param.arg] = [one] if (props.get(param.arg) or {}).get("type") == "array" else one
            continue
        spec_schema, value = _spec_value(doc, op, param, body_schema, body_example, full)
        prop = props.get(param.arg) or {}
        if value is None:
            value = schema_value(PLAIN_JSON_SCHEMA, prop, full=full)
            if value is None:
                if param.arg in action.required:
                    unsure.add(param.wire)
                continue
            if spec_schema is not None and not allowed(doc, spec_schema, value.value):
                unsure.add(param.wire)
        spec_ok = spec_schema is None or allowed(doc, spec_schema, value.value)
        agent = _to_agent_units(param, value.value)
        twin = _wire_twin(param, agent)
        if not valid_for(prop, agent) and twin is not None and valid_for(prop, twin):
            agent = twin  # "15" and 15 are one value in a query string: the inputSchema's type is no stricter
        if not valid_for(prop, agent):
            fallback = schema_value(PLAIN_JSON_SCHEMA, prop, full=full)
            if spec_ok and value.source == "example" and _only_undeclared_fields(prop, agent):
                # dataflowkit.com.json /components/schemas/fetchrequest/example: an action `{"waitFor": ...}`
                # that none of /components/schemas/action's forms declares; the inputSchema's objects are closed.
                notes.append(Finding("x", "spec-example-undeclared-field", tool.name, action.name, op.key,
                                     op.pointer(), f"{param.arg}={json.dumps(agent)[:80]} (the spec's example)",
                                     "the spec's example has a field its schema does not declare"))  # fmt: skip
            elif spec_ok and value.source == "example" and agent == "":
                # ticketmaster.com/discovery.json /paths/~1discovery~1v2~1attractions/get/parameters (page):
                # `example: ''` beside `default: '0'` and `minimum: 0` is a placeholder, not a page number.
                notes.append(Finding("x", "spec-example-empty", tool.name, action.name, op.key, op.pointer(),
                                     f"{param.arg}=\"\" (the spec's example) fails the tool's inputSchema",
                                     "the spec's example is empty text, a placeholder rather than a value"))  # fmt: skip
            elif spec_ok and value.source == "example":
                notes.append(Finding("c", "input-schema-refuses-spec-value", tool.name, action.name, op.key,
                                     op.pointer(), f"{param.arg}={json.dumps(agent)[:80]} (the spec's example) "
                                     "fails the tool's inputSchema", "the inputSchema is stricter than the spec "
                                     "(a type, format or enum the spec does not state)"))  # fmt: skip
            if fallback is None or not valid_for(prop, fallback.value):
                if param.arg in action.required:
                    unsure.add(param.wire)
                continue
            agent = fallback.value
            if spec_schema is not None and not allowed(doc, spec_schema, _to_upstream_units(param, agent)):
                unsure.add(param.wire)
        elif not spec_ok:
            unsure.add(param.wire)
        args[param.arg] = agent
    # An optional body's fields its schema requires: once any body argument is given, one the oracle had
    # no value for leaves the body short (apptigent.com.json's ignoreCase: a string whose enum is booleans).
    with_body = set(getattr(action, "body_requires", ()) or ())
    if with_body & set(args):
        unsure |= {p.wire for p in action.params if p.arg in with_body and p.arg not in args}
    if action.shape is not None and full:
        args["response_format"] = "detailed"
    if action.confirm:
        args["confirm"] = action.confirm
    return args, unsure, notes


def _spec_value(doc: SpecDoc, op: Any, param: Any, body_schema: Any, body_example: Any, full: bool
                ) -> tuple[Any, Value | None]:  # fmt: skip
    if param.at in ("path", "query", "header", "cookie"):
        spec_param = op.param(param.at, param.wire)
        if spec_param is None:
            return None, None
        schema = doc.resolve(spec_param.get("schema"))
        return schema, param_value(doc, spec_param)
    body_schema = doc.resolve(body_schema)
    if param.at == "body_whole":
        if body_example is not None:
            return body_schema, Value(body_example, "example")
        return body_schema, schema_value(doc, body_schema, full=full)
    props = (body_schema or {}).get("properties") if isinstance(body_schema, dict) else None
    if not isinstance(props, dict) and isinstance(body_schema, dict):
        props = _merged_properties(doc, body_schema) or _first_form_properties(doc, body_schema)
    schema = doc.resolve((props or {}).get(param.wire))
    if isinstance(body_example, dict) and body_example.get(param.wire) is not None:
        return schema, Value(body_example[param.wire], "example")
    return schema, schema_value(doc, schema, full=full) if schema is not None else None


def _body_schema(op: Any, encoding: str | None) -> tuple[str | None, Any]:
    """The request body's media type and schema, a multipart one too (i-cue.solutions.json
    /paths/~1forecast~1file-to-forecast/post: `Method`'s enum is in the multipart/form-data schema only)."""
    media, schema = op.body_schema(encoding)
    if media is not None or encoding != "multipart":
        return media, schema
    body = op.doc.resolve(op.raw.get("requestBody"))
    content = body.get("content") if isinstance(body, dict) else None
    for media, entry in content.items() if isinstance(content, dict) else ():
        if str(media).split(";")[0].strip().lower() == "multipart/form-data":
            entry = op.doc.resolve(entry)
            return media, op.doc.resolve(entry.get("schema")) if isinstance(entry, dict) else None
    return None, None


def _first_form_properties(doc: SpecDoc, schema: dict[str, Any]) -> dict[str, Any]:
    """The fields of a oneOf/anyOf body's first form (allOf parts merged): the form build_args passes."""
    for combiner in ("oneOf", "anyOf"):
        forms = schema.get(combiner)
        if isinstance(forms, list) and forms:
            rest = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf")}
            merged = merge_schemas(doc, rest, forms[0])
            return dict(merged.get("properties") or {})
    return {}


def _merged_properties(doc: SpecDoc, schema: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for part in schema.get("allOf") or []:
        part = doc.resolve(part)
        if isinstance(part, dict):
            props.update(part.get("properties") or {})
    return props


def _only_undeclared_fields(schema: dict[str, Any], value: Any) -> bool:
    """True when every reason `schema` refuses `value` is a field no `properties` of it declares."""
    try:
        problems = list(jsonschema.Draft202012Validator(schema).iter_errors(value))
    except (jsonschema.SchemaError, RecursionError, TypeError):
        return False
    return bool(problems) and all(p.validator == "additionalProperties" for p in problems)


def _wire_twin(param: Any, value: Any) -> Any:
    """The number or boolean a path, query, header or cookie string spells ("15" -> 15): the same text on
    the wire, so a tool typing it a number asks for nothing the spec does not allow. None if there is none."""
    if param.at not in ("path", "query", "header", "cookie") or not isinstance(value, str):
        return None
    if value in ("true", "false"):
        return value == "true"
    try:
        number = int(value)
    except ValueError:
        return None
    return number if str(number) == value else None


def _to_agent_units(param: Any, value: Any) -> Any:
    unit = param.unit
    if unit is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    agent = value / unit.factor
    return int(agent) if float(agent).is_integer() else agent


def _to_upstream_units(param: Any, value: Any) -> Any:
    unit = param.unit
    if unit is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    sent = value * unit.factor
    return int(sent) if float(sent).is_integer() else sent


async def _drive(command: list[str], env: dict[str, str], stderr: Path, plans: list[Plan], rec: Recorder,
                 doc: SpecDoc, contract: dict[str, dict[str, Any]], deadline: float) -> tuple[list[Call], int]:  # fmt: skip
    from tests.support.mcp_client import stdio_client

    calls: list[Call] = []
    meta = {t["name"]: t["_meta"]["dev.mcpgen/discovery"] for t in contract.values()
            if "dev.mcpgen/discovery" in (t.get("_meta") or {})}  # fmt: skip
    via = next((name for name, kind in meta.items() if kind == "call"), None)
    done = 0
    # The last call may start just before the deadline and take its own timeout (twice for preview+apply).
    try:
        with anyio.fail_after(max(5.0, deadline - time.monotonic()) + 2 * CALL_TIMEOUT_S + 15):
            async with stdio_client(command, env, stderr) as client:
                await client.list_tools()
                for plan in plans:
                    if time.monotonic() > deadline:
                        break
                    calls += await _run_plan(client, via, plan, rec, doc)
                    done += 1
    except TimeoutError:
        pass  # the spec's row says how many plans were not reached (status partial)
    return calls, len(plans) - done


async def _run_plan(client: Any, via: str | None, plan: Plan, rec: Recorder, doc: SpecDoc) -> list[Call]:
    op = doc.operation(plan.action.method, plan.action.path)
    name = plan.tool.name
    if plan.step == "preview":
        preview = await _call(client, via, f"{name}_preview", plan, op, rec, doc, "preview")
        out = [preview]
        preview_id = preview.data.get("preview_id") if isinstance(preview.data, dict) else None
        if preview_id:
            apply = Plan(
                plan.tool, plan.action, "apply", {"preview_id": preview_id}, plan.unsure, props=plan.props
            )
            out.append(await _call(client, via, f"{name}_apply", apply, op, rec, doc, "apply"))
        return out
    if plan.variant is not None:
        return await _run_variant(client, via, plan, rec, doc, op)
    if plan.step == "probe":
        if op is None:
            return []
        rec.prefer = (
            f"code={(op.error_statuses() or [400])[0]}"  # 400 from `default` when no 4xx is documented
        )
        try:
            return [await _call(client, via, name, plan, op, rec, doc, "probe")]
        finally:
            rec.prefer = None
    first = await _call(client, via, name, plan, op, rec, doc, plan.step)
    out = [first]
    data = first.data if isinstance(first.data, dict) else {}
    if plan.step == "full" and not first.is_error and data.get("has_more"):
        more = {"page": data["next_page"]} if "next_page" in data else {"cursor": data.get("next_cursor")}
        follow = Plan(plan.tool, plan.action, "next", {**plan.args, **more}, plan.unsure, props=plan.props)
        out.append(await _call(client, via, name, follow, op, rec, doc, "next"))
    return out


MAX_PAGES = 4  # a paged variant's pages followed, at most (the layer's last page is its third)


async def _run_variant(
    client: Any, via: str | None, plan: Plan, rec: Recorder, doc: SpecDoc, op: Any
) -> list[Call]:
    rec.variant = plan.variant
    try:
        out = [await _call(client, via, plan.tool.name, plan, op, rec, doc, plan.step)]
        while plan.step == "paged" and len(out) < MAX_PAGES:
            data = out[-1].data if isinstance(out[-1].data, dict) and not out[-1].is_error else {}
            more = {"page": data.get("next_page")} if data.get("next_page") is not None else (
                {"cursor": data["next_cursor"]} if data.get("next_cursor") else None)  # fmt: skip
            if not data.get("has_more") or more is None:
                break
            before = out[-1].exchanges[-1] if out[-1].exchanges else None
            previous = [sorted(before.query), before.body] if before is not None else None
            follow = Plan(plan.tool, plan.action, "paged-next", {**plan.args, **more}, plan.unsure, props=plan.props,
                          variant=plan.variant, extra={"previous": previous})  # fmt: skip
            out.append(await _call(client, via, plan.tool.name, follow, op, rec, doc, "paged-next"))
        return out
    finally:
        rec.variant = None


async def _call(client: Any, via: str | None, name: str, plan: Plan, op: Any, rec: Recorder, doc: SpecDoc,
                step: str) -> Call:  # fmt: skip
    from mcp.shared.exceptions import MCPError

    call = Call(doc=doc, op=op, tool=name, action=plan.action, step=step, args=plan.args, unsure=plan.unsure,
                input_properties=plan.props, extra=plan.extra)  # fmt: skip
    mark = rec.mark()
    try:
        with anyio.fail_after(CALL_TIMEOUT_S):
            if via is not None:
                result = await client.call_tool(via, {"tool": name, "arguments": plan.args})
            else:
                result = await client.call_tool(name, plan.args)
    except MCPError as exc:
        call.raised = f"JSON-RPC error {exc.error.code}: {exc.error.message}"[:300]
    except TimeoutError:
        call.raised = f"no answer within {CALL_TIMEOUT_S:g} s"
    else:
        call.is_error = bool(result.is_error)
        call.text = "\n".join(getattr(b, "text", "") for b in result.content)
        call.data = result.structured_content
        if call.data is None and not call.is_error:
            try:
                call.data = json.loads(call.text)
            except ValueError:
                call.data = call.text
    call.exchanges = rec.since(mark)
    return call
