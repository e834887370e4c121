"""An operation's parameters as the spec declares them, which of them are the agent's, and each one's
argument as the mapping shapes it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, cast

from mcpgen import codes
from mcpgen.build.body_credentials import body_credentials
from mcpgen.build.descriptions import param_description
from mcpgen.build.nested import NestedField, is_nested_key, without_fields
from mcpgen.build.request_parts import constant, is_credential, is_global
from mcpgen.build.schemas import BODY_DEPTH, body_variants, input_schema, lean_text
from mcpgen.build.times import with_date_time_format, with_local_times
from mcpgen.build.units import in_agent_units, renamed_unit_mismatch, to_agent_units, unit_spec
from mcpgen.diagnostics import Diagnostic, Level, SourceRef, error, rule_name, warning
from mcpgen.ir import BodyEncoding, FixedValue, JsonSchema, ParamLocation, ParamSpec, VariantSpec
from mcpgen.load.mapping import UNSET, ActionRule, ParamRule, did_you_mean
from mcpgen.load.mapping_auth import AuthRule
from mcpgen.load.openapi import Operation, Spec
from mcpgen.load.refs import Located
from mcpgen.names import RESERVED_ARGS, snake_case

# Headers OpenAPI says are described elsewhere; never offered as parameters.
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})


_JSON_TYPES = ("application/json",)


_FORM_TYPES = ("application/x-www-form-urlencoded",)
# Bodies that carry files: the agent names a file the server reads, or passes its content (files.py).
_FILE_BODIES: dict[str, BodyEncoding] = {
    "multipart/form-data": "multipart",
    "application/octet-stream": "binary",
}
_FILE_TEXT = (
    "A file: its path inside the directory this server reads files from (the mapping's server.files.read), "
    "or its content as data:<media type>;base64,<data>."
)


@dataclass(frozen=True, slots=True)
class OperationParam:
    """A parameter of an operation before the mapping's rules apply."""

    wire_name: str
    location: ParamLocation
    required: bool
    schema: JsonSchema
    description: str
    example: Any
    source: SourceRef
    path: tuple[str, ...] = ()  # a field inside a body object the mapping addressed (nested.py)
    # An optional body's field its schema requires: needed once any body field is given.
    required_with_body: bool = False
    style: str | None = None
    explode: bool | None = None
    credential: bool = False  # a body field carrying the API's own credential (body_credentials.py)


def operation_params(
    spec: Spec, operation: Operation
) -> tuple[list[OperationParam], BodyEncoding | None, list[Diagnostic]]:
    """An operation's parameters before any mapping rule applies, exactly as the build sees them.

    `mcpgen init` uses this to name parameters the way the build will, and to foresee its errors
    (errors only: a warning, such as a nested part cut at the depth budget, still builds).
    Credentials, the spec's global options and its one-value parameters are not among them.
    """
    params, encoding, found = spec_params(spec, operation)
    errors = [d for d in found if d.level >= Level.ERROR]
    return agent_params(spec, operation, params), encoding, errors


def agent_params(spec: Spec, operation: Operation, params: list[OperationParam]) -> list[OperationParam]:
    """The parameters an agent passes when the mapping says nothing about them (what init drafts for)."""
    return [p for p in params if kept_from_agent(spec, None, p, None, operation)[0] is True]


def spec_params(
    spec: Spec, operation: Operation
) -> tuple[list[OperationParam], BodyEncoding | None, list[Diagnostic]]:
    params: list[OperationParam] = []
    notes: list[Diagnostic] = []
    for located in operation.parameters:
        raw = located.value
        location = cast(ParamLocation, str(raw.get("in")))  # openapi-pydantic allows OpenAPI's four only
        if location == "header" and str(raw.get("name", "")).lower() in _IGNORED_HEADERS:
            continue
        schema_located = _parameter_schema(located)
        schema = input_schema(schema_located, spec.resolver, notes=notes)
        style, explode = _wire_style(raw)
        if style is None and location == "query" and _has_object_type(schema.get("items") or {}):
            # OpenAPI defines no form serialization for a list of objects; APIs that take one in a
            # query (Box's `mdfilters`) read JSON text.
            style = "json"
        params.append(
            OperationParam(
                wire_name=str(raw["name"]),
                location=location,
                required=bool(raw.get("required")) or location == "path",
                schema=schema,
                description=str(raw.get("description") or schema.get("description") or ""),
                example=_example(raw, schema_located),
                source=located.source,
                style=style,
                explode=explode,
            )
        )
    body_params, encoding, diagnostics = _body_params(spec, operation)
    return params + body_params, encoding, notes + diagnostics


def _wire_style(raw: dict[str, Any]) -> tuple[str | None, bool | None]:
    """OpenAPI's serialization of a parameter or a form field: `style`/`explode` as the spec states
    them, or 'json' for a parameter whose `content` is JSON (Box's `mdfilters`)."""
    style = raw.get("style") if isinstance(raw.get("style"), str) else None
    explode = raw.get("explode") if isinstance(raw.get("explode"), bool) else None
    content = raw.get("content")
    if style is None and isinstance(content, dict) and any("json" in str(m) for m in content):
        style = "json"
    return style, explode


def _parameter_schema(located: Located) -> Located | None:
    raw = located.value
    if isinstance(raw.get("schema"), dict):
        return located.child("schema")
    content = raw.get("content")
    if isinstance(content, dict) and content:
        media = next(iter(content))
        if isinstance(content[media], dict) and isinstance(content[media].get("schema"), dict):
            return located.child("content", media, "schema")
    return None


def _example(raw: dict[str, Any], schema_located: Located | None) -> Any:
    if "example" in raw:
        return raw["example"]
    examples = raw.get("examples")
    if isinstance(examples, dict):
        for value in examples.values():
            if isinstance(value, dict) and "value" in value:
                return value["value"]
    if schema_located is not None and isinstance(schema_located.value, dict):
        schema = schema_located.value
        if "example" in schema:
            return schema["example"]
        if isinstance(schema.get("examples"), list) and schema["examples"]:
            return schema["examples"][0]
    return None


def _body_params(
    spec: Spec, operation: Operation
) -> tuple[list[OperationParam], BodyEncoding | None, list[Diagnostic]]:
    body = operation.request_body
    if body is None:
        return [], None, []
    content = body.value.get("content") or {}
    media = _pick_media_type(content)
    if media is None or _FILE_BODIES.get(media.split(";")[0].strip().lower()) == "binary":
        return _unsent_or_binary(operation, body, content, media)
    base = media.split(";")[0].strip().lower()
    encoding: BodyEncoding = _FILE_BODIES.get(base) or ("form" if base in _FORM_TYPES else "json")
    media_located = body.child("content", media)
    if not isinstance(media_located.value, dict) or not isinstance(media_located.value.get("schema"), dict):
        return [], encoding, []
    schema_located = spec.resolver.deref(media_located.child("schema"))
    notes: list[Diagnostic] = _required_read_only(operation, schema_located, spec)
    schema = input_schema(schema_located, spec.resolver, depth=BODY_DEPTH, notes=notes)
    # OpenAPI: `requestBody.required` defaults to false, so the body may be left out; a body that is
    # sent still has the fields its schema requires (the server checks them then: body_requires).
    body_required = bool(body.value.get("required"))
    properties = schema.get("properties")
    field_encoding = media_located.value.get("encoding")
    if _has_object_type(schema) and isinstance(properties, dict) and properties:
        required = set(schema.get("required") or ())
        secrets = body_credentials(spec, operation, properties)
        return (
            [
                OperationParam(
                    wire_name=name,
                    location="body",
                    required=name in required and body_required,
                    schema=prop,
                    description=lean_text(str(prop.get("description") or ""), 120),
                    example=_property_example(spec, schema_located, name),
                    source=schema_located.source,
                    required_with_body=name in required and not body_required,
                    **_form_style(encoding, field_encoding, name),
                    credential=name in secrets,
                )
                if not (encoding == "multipart" and _is_file(prop))
                else _file_param(name, "body", name in required and body_required, schema_located.source)
                for name, prop in properties.items()
            ],
            encoding,
            notes,
        )
    if encoding == "multipart":
        return [], None, [_unnamed_parts(operation, body.source)]
    if _untyped(schema) and _offers_fields(schema_located, spec):
        notes.append(
            warning(
                codes.M242,
                f"the request body of {operation.key} has no fields or type the tool's schema can show "
                f"({rule_name('T6')}); the agent is told only that it is an object",
                schema_located.source,
                hint="the agent can still pass the body as one object: name its fields in the action's "
                "description so the model knows what to send",
            )
        )
    whole = OperationParam(
        wire_name="body",
        location="body_whole",
        required=body_required,
        schema=schema,
        description=str(body.value.get("description") or schema.get("description") or "The request body."),
        example=None,
        source=body.source,
    )
    return [whole], encoding, notes


def _required_read_only(operation: Operation, schema: Located, spec: Spec) -> list[Diagnostic]:
    """Fields the request body's schema both requires and marks readOnly: OpenAPI keeps readOnly fields out
    of requests, so the body is sent without them. payments.service.gov.uk/payments.json
    #/components/schemas/CreateCardPaymentRequest requires amount, description, reference and return_url,
    every one readOnly: POST /v1/payments lost them without a word."""
    raw = schema.value
    properties = raw.get("properties") if isinstance(raw, dict) else None
    if not isinstance(properties, dict):
        return []
    dropped = [
        name
        for name in raw.get("required") or ()
        if name in properties
        and isinstance(properties[name], dict)
        and spec.resolver.deref(schema.child("properties", name)).value.get("readOnly") is True
    ]
    if not dropped:
        return []
    return [
        warning(
            codes.M244,
            f"the request body of {operation.key} requires {', '.join(dropped)}, which its schema marks readOnly; "
            "readOnly fields are never sent in a request, so the tool does not take them and the body goes out "
            "without them",
            spec.resolver.deref(schema.child("properties", dropped[0])).source,
            hint="if the API needs them, the spec's readOnly is wrong: correct it in your copy of the spec; "
            "otherwise leave the action out of the mapping",
        )
    ]


def _has_object_type(schema: JsonSchema) -> bool:
    return schema.get("type") == "object"


def _offers_fields(located: Located, spec: Spec) -> bool:
    """The spec's body schema names fields, itself or in a oneOf/anyOf/allOf branch: an untyped
    body then lost them (an empty `{}` body has nothing to lose)."""
    raw = located.value
    if not isinstance(raw, dict):
        return False
    if raw.get("properties"):
        return True
    for keyword in ("oneOf", "anyOf", "allOf"):
        branches = raw.get(keyword)
        if isinstance(branches, list):
            for index in range(len(branches)):
                branch = spec.resolver.deref(located.child(keyword, index)).value
                if isinstance(branch, dict) and (branch.get("properties") or branch.get("allOf")):
                    return True
    return False


def _untyped(schema: JsonSchema) -> bool:
    """Nothing the agent can read: no type, or an object with no fields and no map of values."""
    if "type" not in schema:
        return True
    return (
        schema.get("type") == "object"
        and not schema.get("properties")
        and not isinstance(schema.get("additionalProperties"), dict)
    )


def _form_style(encoding: BodyEncoding, field_encoding: Any, name: str) -> dict[str, Any]:
    """A form or multipart field's `encoding` entry: a JSON `contentType` sends the field as JSON text
    (seldon.local/wrapper.json's `json`, pdfbroker.io's `options` part); a form field's style/explode
    otherwise (OpenAPI ignores them in multipart). JSON bodies carry structure as it is."""
    if encoding not in ("form", "multipart") or not isinstance(field_encoding, dict):
        return {}
    entry = field_encoding.get(name)
    if not isinstance(entry, dict):
        return {}
    types = entry.get("contentType")
    if isinstance(types, str) and any(_is_json_type(t) for t in types.split(",")):
        return {"style": "json", "explode": None}
    if encoding != "form":
        return {}
    style, explode = _wire_style(entry)
    return {"style": style, "explode": explode}


def _is_json_type(media: str) -> bool:
    base = media.split(";")[0].strip().lower()
    return base == "application/json" or base.endswith("+json")


def _unsent_or_binary(
    operation: Operation, body: Located, content: dict[str, Any], media: str | None
) -> tuple[list[OperationParam], BodyEncoding | None, list[Diagnostic]]:
    """A body of no media type the server sends (M211), or an octet-stream body: the file itself."""
    if media is None:
        kinds = ", ".join(sorted(content)) or "no content"
        return (
            [],
            None,
            [
                error(
                    codes.M211,
                    f"{operation.key} takes a request body of {kinds}; generated servers send JSON, form, "
                    "multipart or binary bodies only",
                    body.source,
                    hint="map another operation, or leave this one unmapped",
                )
            ],
        )
    required = bool(body.value.get("required"))
    if not required and "schema" not in (content[media] or {}):
        # An optional octet-stream body the spec says nothing of (a Postman export's GET): no file to send.
        return [], None, []
    return [_file_param("file", "body_whole", required, body.source)], "binary", []


def _unnamed_parts(operation: Operation, source: SourceRef) -> Diagnostic:
    return error(
        codes.M211,
        f"{operation.key} takes a multipart body whose parts its schema does not name; generated servers "
        "send the parts an object schema's properties name",
        source,
        hint="map another operation, or leave this one unmapped",
    )


def _is_file(schema: JsonSchema) -> bool:
    """A multipart field that carries a file: a binary string (OpenAPI 3.0), or content of its own (3.1)."""
    return schema.get("format") == "binary" or "contentMediaType" in schema or schema.get("type") == "file"


def _file_param(name: str, location: ParamLocation, required: bool, source: SourceRef) -> OperationParam:
    return OperationParam(
        wire_name=name,
        location=location,
        required=required,
        schema={"type": "string", "description": _FILE_TEXT},
        description=_FILE_TEXT,
        example=None,
        source=source,
        style="file",
    )


def _pick_media_type(content: dict[str, Any]) -> str | None:
    for media in content:
        base = media.split(";")[0].strip().lower()
        if base in _JSON_TYPES or base.endswith("+json"):
            return media
    for media in content:
        if media.split(";")[0].strip().lower() in (*_FORM_TYPES, *_FILE_BODIES):
            return media
    return None


def _property_example(spec: Spec, schema_located: Located, name: str) -> Any:
    properties = schema_located.value.get("properties") if isinstance(schema_located.value, dict) else None
    if not isinstance(properties, dict) or name not in properties:
        return None
    prop = spec.resolver.deref(schema_located.child("properties", name))
    return _example({}, prop)


def body_schema(spec: Spec, operation: Operation) -> Located | None:
    """The request body's schema in the media type the server sends, for nested fields (nested.py)."""
    body = operation.request_body
    if body is None:
        return None
    media = _pick_media_type(body.value.get("content") or {})
    if media is None:
        return None
    located = body.child("content", media)
    if not isinstance(located.value, dict) or not isinstance(located.value.get("schema"), dict):
        return None
    return spec.resolver.deref(located.child("schema"))


def with_lifted(params: list[OperationParam], lifted: list[NestedField]) -> list[OperationParam]:
    """The operation's parameters with each nested field the mapping names as one of its own, and the
    object it sits in without it (an object left with no field goes)."""
    if not lifted:
        return params
    out: list[OperationParam] = []
    for param in params:
        paths = [f.path[1:] for f in lifted if param.location == "body" and f.path[0] == param.wire_name]
        if not paths:
            out.append(param)
            continue
        schema = without_fields(param.schema, paths)
        if schema is not None:
            out.append(
                replace(param, schema=schema, required=param.required and schema.get("type") == "object")
            )
        for field in (f for f in lifted if f.path[0] == param.wire_name):
            out.append(
                OperationParam(
                    wire_name=".".join(field.path),
                    location="body",
                    required=param.required and field.required,
                    schema=field.schema,
                    description=field.description,
                    example=field.example,
                    source=field.source,
                    path=field.path,
                )
            )
    return out


def variant_specs(spec: Spec, operation: Operation, params: list[ParamSpec]) -> tuple[VariantSpec, ...]:
    """The body's oneOf/anyOf branches in the agent's argument names (T2)."""
    body = operation.request_body
    if body is None:
        return ()
    content = body.value.get("content") or {}
    media = _pick_media_type(content)
    if media is None or not isinstance(content.get(media), dict) or "schema" not in content[media]:
        return ()
    variants = body_variants(body.child("content", media, "schema"), spec.resolver)
    by_wire = {p.wire_name: p.arg_name for p in params if p.location == "body"}
    return tuple(
        VariantSpec(
            name=v.name,
            args=tuple(by_wire[f] for f in v.fields if f in by_wire),
            required=tuple(by_wire[f] for f in v.required if f in by_wire),
        )
        for v in variants
    )


def match_rules(
    operation: Operation, params: list[OperationParam], rule: ActionRule
) -> tuple[dict[tuple[str, str], ParamRule], list[Diagnostic]]:
    by_param: dict[tuple[str, str], ParamRule] = {}
    diagnostics: list[Diagnostic] = []
    for param_rule in rule.params:
        matches = [
            p
            for p in params
            if p.wire_name == param_rule.wire_name
            and (param_rule.location is None or _location_matches(p.location, param_rule.location))
        ]
        if not matches and is_nested_key(param_rule):  # nested_fields took it
            continue  # nested.py said what is wrong with it
        if not matches:
            names = [p.wire_name for p in params]
            close = did_you_mean(param_rule.wire_name, names)
            listed = ", ".join(names) or "none"
            diagnostics.append(
                error(
                    codes.M203,
                    f"'{param_rule.key}' is not a parameter of {operation.key}",
                    param_rule.source,
                    hint=(f"did you mean {close}? " if close else "") + f"its parameters are: {listed}",
                )
            )
        elif len(matches) > 1:
            places = ", ".join(f"{m.location}.{m.wire_name}" for m in matches)
            diagnostics.append(
                error(
                    codes.M204,
                    f"'{param_rule.key}' names more than one parameter of {operation.key} ({places})",
                    param_rule.source,
                    hint="qualify the key with its location, e.g. 'query.id' or 'body.id'",
                )
            )
        else:
            by_param[(matches[0].wire_name, matches[0].location)] = param_rule
    return by_param, diagnostics


def _location_matches(actual: str, wanted: str) -> bool:
    return actual == wanted or (wanted == "body" and actual == "body_whole")


def rule_of(param: ParamSpec, rule: ParamRule) -> bool:
    return rule.wire_name == param.wire_path and (rule.location in (None, "body") or not param.path)


def kept_from_agent(
    spec: Spec,
    sent: frozenset[tuple[str, str]] | None,
    param: OperationParam,
    rule: ParamRule | None,
    operation: Operation,
) -> tuple[bool | FixedValue, list[Diagnostic]]:
    """True when the parameter is the agent's to pass; False or the value the server sends when it is
    not (request_parts.py): a credential never is, a spec-global option only when the mapping names it,
    a required value the spec allows one of is sent as it is."""
    # The mapping's auth sends it (ExaVault's 'ev-api-key' header, with no security scheme in the spec):
    # a credential whatever its name, never the agent's (P3 credentials).
    sent_by_auth = sent is not None and (param.wire_name.lower(), param.location) in sent
    if sent_by_auth or is_credential(spec, param.wire_name, param.location, param.description):
        # Quiet when the server's credential covers it, or may (another kind of credential: Slack
        # takes its token as a bearer header too); loud when the mapping tries to keep it.
        quiet = (
            rule.hidden
            if rule is not None
            else sent is None or (param.wire_name.lower(), param.location) in sent
        )
        if quiet or (rule is None and not param.required):
            return False, []
        what = "names it in params" if rule is not None else "sends no credential in it (server.auth)"
        return False, [
            warning(
                codes.M302,
                f"parameter '{param.wire_name}' ({param.location}) of {operation.key} carries a credential, so it is "
                f"never a tool argument; the mapping {what}",
                rule.source if rule is not None else param.source,
                hint=f"let the server send it: auth: {{type: api_key, in: {param.location}, name: "
                f"{param.wire_name}, env: <VARIABLE>}}",
            )
        ]
    if param.credential and not param.path:
        return False, _body_credential_left(param, rule, operation)
    if rule is None and is_global(spec, param.wire_name, param.location):
        return False, []
    value = constant(param.location, param.required, param.schema)
    if rule is None and value is not UNSET:
        return FixedValue(wire_name=param.wire_name, location=param.location, value=value), []
    return True, []


def _body_credential_left(
    param: OperationParam, rule: ParamRule | None, operation: Operation
) -> list[Diagnostic]:
    """A body field carrying the API's credential that nothing sends: quiet when it may be left out (or
    the mapping hides it), else a warning saying how the server can send it."""
    needed = param.required or param.required_with_body  # an optional body's field, once it is sent
    if (rule is None and not needed) or (rule is not None and rule.hidden):
        return []
    what = "names it in params" if rule is not None else "sends nothing in it"
    env = snake_case(param.wire_name).upper()
    return [
        warning(
            codes.M302,
            f"body field '{param.wire_name}' of {operation.key} carries a credential, so it is never a tool "
            f"argument; the mapping {what}",
            rule.source if rule is not None else param.source,
            hint=f"let the server send it from its environment: params: {{{param.wire_name}: {{env: "
            f"<SERVICE>_{env}}}}}, or for every body: auth: {{type: api_key, in: body, name: "
            f"{param.wire_name}, env: <VARIABLE>}}",
        )
    ]


def credentials_sent(auths: tuple[AuthRule, ...]) -> frozenset[tuple[str, str]] | None:
    """The (lower-case name, location) pairs the server's own api keys go in; None when it also sends
    another kind of credential (a bearer token, a user and password)."""
    if any(auth.type != "api_key" for auth in auths):
        return None
    return frozenset(((auth.name or "").lower(), auth.location or "header") for auth in auths)


def param_spec(
    param: OperationParam, rule: ParamRule | None, operation: Operation
) -> tuple[ParamSpec, Any, list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    unit_rule = rule.unit if rule else None
    arg_name = rule.name if rule and rule.name else snake_case(param.wire_name.replace(".", "_"))
    if unit_rule is not None and not (rule and rule.name) and unit_rule.agent != "major":
        arg_name = f"{arg_name}_{unit_rule.agent}"
    source = rule.source if rule else param.source
    if arg_name in RESERVED_ARGS:
        diagnostics.append(
            error(
                codes.M205,
                f"parameter '{param.wire_name}' of {operation.key} would be called '{arg_name}', a name every tool "
                "already uses for its action",
                source,
                hint=f"rename it in the mapping:  params: {{{param.wire_name}: {{name: {arg_name}_value}}}}",
            )
        )
    default = rule.default if rule else UNSET
    required = param.required if rule is None or rule.required is None else rule.required
    if default is not UNSET:
        required = False
    mismatch = (
        renamed_unit_mismatch(arg_name, param.wire_name, param.description, rule)
        if rule and rule.name
        else None
    )
    diagnostics += [mismatch] if mismatch else []
    # Every date-time is checked, as the spec allows it: with its offset, or local beside a time zone.
    param = replace(param, schema=with_local_times(with_date_time_format(param.schema, param.description)))
    schema = dict(param.schema)
    schema.pop("description", None)
    unit = None
    if unit_rule is not None:
        unit, found = unit_spec(param.schema, param.wire_name, unit_rule, arg_name)
        diagnostics += found
        if unit is not None:
            schema = in_agent_units(schema, unit)
            param = replace(param, example=to_agent_units(param.example, unit) if unit.factor else None)
    if default is not UNSET:
        schema["default"] = default
    schema["description"] = param_description(param, rule, arg_name, schema.get("default", UNSET), unit)
    return (
        ParamSpec(
            arg_name=arg_name,
            wire_name=param.path[0] if param.path else param.wire_name,
            location=param.location,
            required=required,
            schema=schema,
            source=source,
            unit=unit,
            path=param.path[1:],
            style=param.style,
            explode=param.explode,
        ),
        default,
        diagnostics,
    )
