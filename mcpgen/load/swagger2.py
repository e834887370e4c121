"""Swagger 2.0 read as OpenAPI 3.0: the document converted in memory, each moved part remembered.

Many APIs still publish Swagger 2.0. Loading converts such a document the way the reference converter
(swagger2openapi) does, value for value where a tool could tell (tests/unit/test_swagger2_oracle.py
compares them operation by operation): `definitions`, `parameters` and `responses` become components
(every `$ref` rewritten), a `body` parameter becomes the request body in each media type `consumes`
names (application/json when none), `formData` parameters one object schema of
application/x-www-form-urlencoded (multipart/form-data when `consumes` lists it), a response's
`schema` its content in each type `produces` names (`*/*` when none), `collectionFormat` the
parameter's style and explode, `type: file` a binary string, `x-nullable` nullable, security
definitions security schemes (oauth2's implicit, password, application and accessCode flows become
implicit, password, clientCredentials and authorizationCode), `host`, `basePath` and `schemes` the
servers. `x-` extensions are kept where they stand.

Everything the build reports stays located in the 2.0 file: `Conversion.origins` maps each pointer
of the converted document that moved to the 2.0 pointer it came from, and `original` turns any
converted pointer into the 2.0 one (the longest moved prefix, then the same tokens below it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mcpgen.load.sources import join_pointer, split_pointer

OPENAPI_VERSION = "3.0.3"
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"
DEFAULT_CONSUMES = ("application/json",)
DEFAULT_PRODUCES = ("*/*",)
# A 2.0 parameter's (or header's, or items') keywords that are a schema's in 3.0.
SCHEMA_KEYS = frozenset(
    (
        "type", "format", "items", "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
        "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf",
    )
)  # fmt: skip
# Subschemas a schema holds, by keyword: one schema, a list of them, or a mapping of them.
_ONE = ("items", "additionalProperties", "not")
_LIST = ("allOf", "anyOf", "oneOf")
_MAP = ("properties", "patternProperties")
_FLOWS = {"implicit": "implicit", "password": "password", "application": "clientCredentials",
          "accessCode": "authorizationCode"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Problem:
    """Something the 2.0 document says that OpenAPI 3.0 cannot: at a 2.0 pointer."""

    pointer: str
    message: str
    hint: str
    fatal: bool  # an error (the operation cannot be read); else a warning (converted with a loss)


@dataclass(slots=True)
class Conversion:
    data: dict[str, Any]
    origins: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def original(self, pointer: str) -> str:
        """The 2.0 pointer a converted pointer stands for."""
        tokens = split_pointer(pointer)
        for cut in range(len(tokens), 0, -1):
            prefix = join_pointer("", *tokens[:cut])
            found = self.origins.get(prefix)
            if found is not None:
                return join_pointer(found, *tokens[cut:])
        return pointer


def is_swagger2(data: Any) -> bool:
    return isinstance(data, dict) and "swagger" in data and "openapi" not in data


def convert(swagger: dict[str, Any]) -> Conversion:
    """The OpenAPI 3.0 document a Swagger 2.0 one says, with where each moved part came from."""
    out = Conversion({})
    data = out.data
    data["openapi"] = OPENAPI_VERSION
    out.origins["/openapi"] = "/swagger"
    if "info" in swagger:
        data["info"] = swagger["info"]
    servers = _servers(swagger, out)
    if servers:
        data["servers"] = servers
    converter = _Converter(swagger, out)
    for key, value in swagger.items():
        if key in ("swagger", "info", "host", "basePath", "schemes", "consumes", "produces"):
            continue
        if key == "paths" and isinstance(value, dict):
            data["paths"] = converter.paths(value)
        elif key in ("definitions", "parameters", "responses", "securityDefinitions"):
            continue  # components, below
        else:
            data[key] = value  # security, tags, externalDocs, x- extensions
    components = converter.components()
    if components:
        data["components"] = components
    return out


def _servers(swagger: dict[str, Any], out: Conversion) -> list[dict[str, Any]]:
    host, base = swagger.get("host"), swagger.get("basePath")
    base_path = base.rstrip("/") if isinstance(base, str) else ""
    if isinstance(host, str) and host:
        schemes = swagger.get("schemes")
        prefixes = [f"{s}:" for s in schemes if isinstance(s, str)] if isinstance(schemes, list) else [""]
        urls = [f"{prefix}//{host}{base_path}" for prefix in prefixes or [""]]
        where = "/host"
    elif isinstance(base, str) and base:
        urls, where = [base], "/basePath"
    else:
        return []
    for index in range(len(urls)):
        out.origins[f"/servers/{index}"] = where
    return [{"url": url} for url in urls]


class _Converter:
    def __init__(self, swagger: dict[str, Any], out: Conversion):
        self.swagger = swagger
        self.out = out
        self.consumes = _media_list(swagger.get("consumes"), DEFAULT_CONSUMES)
        self.produces = _media_list(swagger.get("produces"), DEFAULT_PRODUCES)
        shared = swagger.get("parameters")
        self.shared_parameters: dict[str, Any] = shared if isinstance(shared, dict) else {}

    # ---- components --------------------------------------------------------------------------------

    def components(self) -> dict[str, Any]:
        components: dict[str, Any] = {}
        definitions = self.swagger.get("definitions")
        if isinstance(definitions, dict) and definitions:
            schemas = components["schemas"] = {}
            for name, schema in definitions.items():
                schemas[name] = self.schema(
                    schema, f"/components/schemas/{_esc(name)}", f"/definitions/{_esc(name)}"
                )
        parameters = {
            name: parameter
            for name, parameter in self.shared_parameters.items()
            if not (isinstance(parameter, dict) and parameter.get("in") in ("body", "formData"))
        }
        if parameters:
            components["parameters"] = {
                name: self.parameter(p, f"/components/parameters/{_esc(name)}", f"/parameters/{_esc(name)}")
                for name, p in parameters.items()
            }
        responses = self.swagger.get("responses")
        if isinstance(responses, dict) and responses:
            components["responses"] = {
                name: self.response(
                    r, self.produces, f"/components/responses/{_esc(name)}", f"/responses/{_esc(name)}"
                )
                for name, r in responses.items()
            }
        schemes = self.swagger.get("securityDefinitions")
        if isinstance(schemes, dict) and schemes:
            components["securitySchemes"] = {
                name: self.security_scheme(s, f"/components/securitySchemes/{_esc(name)}", f"/securityDefinitions/{_esc(name)}")
                for name, s in schemes.items()
            }  # fmt: skip
        return components

    def security_scheme(self, scheme: Any, at: str, source: str) -> Any:
        self.out.origins[at] = source
        if not isinstance(scheme, dict):
            return scheme
        kind = scheme.get("type")
        if kind == "basic":
            return {"type": "http", "scheme": "basic", **_kept(scheme, ("description",))}
        if kind != "oauth2":
            return dict(scheme)  # apiKey: the same fields in 3.0
        flow_name = _FLOWS.get(str(scheme.get("flow")), str(scheme.get("flow")))
        flow: dict[str, Any] = {}
        for key in ("authorizationUrl", "tokenUrl"):
            if isinstance(scheme.get(key), str):
                flow[key] = scheme[key].split("?")[0].strip() or "/"
        flow["scopes"] = scheme.get("scopes") or {}
        self.out.origins[f"{at}/flows/{_esc(flow_name)}"] = source
        return {"type": "oauth2", **_kept(scheme, ("description",)), "flows": {flow_name: flow}}

    # ---- paths and operations ----------------------------------------------------------------------

    def paths(self, paths: dict[str, Any]) -> dict[str, Any]:
        converted: dict[str, Any] = {}
        for path, item in paths.items():
            at = join_pointer("/paths", path)
            if not isinstance(item, dict) or "$ref" in item:
                converted[path] = item
                continue
            shared = _list(item.get("parameters"))
            new_item: dict[str, Any] = {}
            for key, value in item.items():
                if key == "parameters":
                    kept = self.parameter_list(shared, at, at)
                    if kept:
                        new_item["parameters"] = kept
                elif key in HTTP_METHODS and isinstance(value, dict):
                    new_item[key] = self.operation(value, shared, f"{at}/{key}", at)
                else:
                    new_item[key] = value
            converted[path] = new_item
        return converted

    def parameter_list(self, listed: list[Any], at: str, source: str) -> list[Any]:
        """The parameters that stay parameters (not body or formData), each remembered at its 2.0 index."""
        kept: list[Any] = []
        for index, parameter in enumerate(listed):
            if self._body_part(parameter) is not None:
                continue
            here, there = f"{at}/parameters/{len(kept)}", f"{source}/parameters/{index}"
            if isinstance(parameter, dict) and isinstance(parameter.get("$ref"), str):
                self.out.origins[here] = there
                kept.append({**parameter, "$ref": _ref(parameter["$ref"])})
            else:
                kept.append(self.parameter(parameter, here, there))
        return kept

    def operation(
        self, operation: dict[str, Any], shared: list[Any], at: str, path_at: str
    ) -> dict[str, Any]:
        consumes = _media_list(operation.get("consumes"), self.consumes)
        produces = _media_list(operation.get("produces"), self.produces)
        own = _list(operation.get("parameters"))
        parts = self._body_parts(own, shared, at, path_at)
        new: dict[str, Any] = {}
        for key, value in operation.items():
            if key in ("consumes", "produces", "schemes"):
                continue
            if key == "parameters":
                kept = self.parameter_list(own, at, at)
                if kept:
                    new["parameters"] = kept
            elif key == "responses" and isinstance(value, dict):
                new["responses"] = {
                    str(code): self.response(r, produces, join_pointer(at, "responses", str(code)),
                                             join_pointer(at, "responses", str(code)))
                    for code, r in value.items()
                }  # fmt: skip
            else:
                new[key] = value
            if key in ("parameters", "responses") and parts and "requestBody" not in new:
                new["requestBody"] = self.request_body(parts, consumes, f"{at}/requestBody")
        if parts and "requestBody" not in new:
            new["requestBody"] = self.request_body(parts, consumes, f"{at}/requestBody")
        if "responses" not in new:
            new["responses"] = {"default": {"description": "Default response"}}
        return new

    def _body_part(self, parameter: Any) -> tuple[dict[str, Any], str] | None:
        """(the parameter, its 2.0 pointer when shared) for a body or formData parameter, else None."""
        target, source = parameter, ""
        if isinstance(parameter, dict) and isinstance(parameter.get("$ref"), str):
            name = parameter["$ref"].removeprefix("#/parameters/")
            if name == parameter["$ref"]:
                return None
            name = name.replace("~1", "/").replace("~0", "~")
            target, source = self.shared_parameters.get(name), f"/parameters/{_esc(name)}"
        if isinstance(target, dict) and target.get("in") in ("body", "formData"):
            return target, source
        return None

    def _body_parts(
        self, own: list[Any], shared: list[Any], at: str, path_at: str
    ) -> list[tuple[dict[str, Any], str]]:
        """Body and formData parameters of an operation (the path's too, unless the operation names
        the same one), each with the 2.0 pointer it is written at."""
        parts: list[tuple[dict[str, Any], str]] = []
        names: set[tuple[Any, Any]] = set()
        for index, parameter in enumerate(own):
            found = self._body_part(parameter)
            resolved = found[0] if found else self._resolved(parameter)
            if isinstance(resolved, dict):
                names.add((resolved.get("name"), resolved.get("in")))
            if found:
                parts.append((found[0], found[1] or f"{at}/parameters/{index}"))
        for index, parameter in enumerate(shared):
            found = self._body_part(parameter)
            if found and (found[0].get("name"), found[0].get("in")) not in names:
                parts.append((found[0], found[1] or f"{path_at}/parameters/{index}"))
        bodies = [source for p, source in parts if p.get("in") == "body"]
        if len(bodies) > 1 or (bodies and len(parts) > len(bodies)):
            self.out.problems.append(
                Problem(
                    bodies[-1] if len(bodies) > 1 else bodies[0],
                    "an operation takes at most one body parameter, and not both a body and formData "
                    "parameters",
                    "keep one body parameter (an object schema can hold several fields), or only formData",
                    fatal=True,
                )
            )
            return [(p, s) for p, s in parts if p.get("in") == "body"][:1]
        return parts

    def _resolved(self, parameter: Any) -> Any:
        if isinstance(parameter, dict) and isinstance(parameter.get("$ref"), str):
            name = parameter["$ref"].removeprefix("#/parameters/")
            return self.shared_parameters.get(name.replace("~1", "/").replace("~0", "~"))
        return parameter

    # ---- parameters and bodies ---------------------------------------------------------------------

    def parameter(self, parameter: Any, at: str, source: str) -> Any:
        self.out.origins[at] = source
        if not isinstance(parameter, dict):
            return parameter
        new: dict[str, Any] = {}
        schema: dict[str, Any] = {}
        for key, value in parameter.items():
            if key in SCHEMA_KEYS:
                schema[key] = value
            elif key == "x-example":
                new["example"] = value
            elif key != "collectionFormat":
                new[key] = value
        style = self._style(parameter, source)
        new.update(style)
        if new.get("in") == "path":
            new["required"] = True
        if "schema" not in new:
            schema.setdefault("type", "string")
            new["schema"] = self.schema(_without_formats(schema), f"{at}/schema", source)
        return new

    def _style(self, parameter: dict[str, Any], source: str) -> dict[str, Any]:
        """OpenAPI 3.0's style and explode for a 2.0 array's collectionFormat (csv by default)."""
        if parameter.get("type") != "array":
            return {}
        fmt = parameter.get("collectionFormat", "csv")
        where = parameter.get("in")
        if fmt == "multi":
            return {"explode": True}
        if fmt == "csv":
            form = where in ("query", "cookie", "formData")
            return {"style": "form", "explode": False} if form else {"style": "simple"}
        if fmt in ("ssv", "pipes") and where in ("query", "formData"):
            return {"style": "spaceDelimited" if fmt == "ssv" else "pipeDelimited"}
        self.out.problems.append(
            Problem(
                f"{source}/collectionFormat",
                f"collectionFormat {fmt} has "
                + (
                    "an OpenAPI 3.0 equivalent only in a query or form"
                    if fmt in ("ssv", "pipes")
                    else "no OpenAPI 3.0 equivalent"
                )
                + "; the values are sent as OpenAPI 3.0's default for this parameter instead",
                "check how the API reads this list; csv or multi convert exactly",
                fatal=False,
            )
        )
        return {"x-collectionFormat": fmt} if fmt == "tsv" else {}

    def request_body(
        self, parts: list[tuple[dict[str, Any], str]], consumes: list[str], at: str
    ) -> dict[str, Any]:
        body = next((p for p in parts if p[0].get("in") == "body"), None)
        if body is not None:
            return self._body(body[0], body[1], consumes, at)
        return self._form(parts, consumes, at)

    def _body(self, parameter: dict[str, Any], source: str, consumes: list[str], at: str) -> dict[str, Any]:
        self.out.origins[at] = source
        new: dict[str, Any] = {}
        if parameter.get("description"):
            new["description"] = parameter["description"]
        new["content"] = {}
        for media in consumes or list(DEFAULT_CONSUMES):
            schema_at = join_pointer(at, "content", media, "schema")
            new["content"][media] = {
                "schema": self.schema(parameter.get("schema") or {}, schema_at, f"{source}/schema")
            }
        if parameter.get("required"):
            new["required"] = True
        new.update(_extensions(parameter))
        return new

    def _form(self, parts: list[tuple[dict[str, Any], str]], consumes: list[str], at: str) -> dict[str, Any]:
        media = MULTIPART if MULTIPART in consumes else FORM
        self.out.origins[at] = parts[0][1]
        schema_at = join_pointer(at, "content", media, "schema")
        properties: dict[str, Any] = {}
        required: list[str] = []
        encoding: dict[str, Any] = {}
        for parameter, source in parts:
            name = str(parameter.get("name"))
            properties[name] = self._form_field(
                parameter, join_pointer(schema_at, "properties", name), source
            )
            if parameter.get("required") is True:
                required.append(name)
            style = self._style(parameter, source)
            if style:
                encoding[name] = style
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        self.out.origins[schema_at] = parts[0][1]
        content: dict[str, Any] = {"schema": schema}
        if encoding:
            content["encoding"] = encoding
        new: dict[str, Any] = {"content": {media: content}}
        if required:
            new["required"] = True
        return new

    def _form_field(self, parameter: dict[str, Any], at: str, source: str) -> Any:
        field_schema: dict[str, Any] = {}
        if parameter.get("description"):
            field_schema["description"] = parameter["description"]
        example = parameter.get("x-example", parameter.get("example"))
        if example is not None:
            field_schema["example"] = example
        field_schema.update({k: v for k, v in parameter.items() if k in SCHEMA_KEYS})
        field_schema.update({k: v for k, v in _extensions(parameter).items() if k != "x-example"})
        return self.schema(_without_formats(field_schema), at, source)

    # ---- responses ---------------------------------------------------------------------------------

    def response(self, response: Any, produces: list[str], at: str, source: str) -> Any:
        self.out.origins[at] = source
        if not isinstance(response, dict):
            return response
        if isinstance(response.get("$ref"), str):
            return {**response, "$ref": _ref(response["$ref"])}
        new: dict[str, Any] = {"description": response.get("description") or ""}
        examples = response["examples"] if isinstance(response.get("examples"), dict) else {}
        for key, value in response.items():
            if key == "schema":
                new["content"] = self._response_content(value, examples, produces, at, source)
            elif key == "headers" and isinstance(value, dict):
                new["headers"] = {
                    name: self.header(
                        h, join_pointer(at, "headers", name), join_pointer(source, "headers", name)
                    )
                    for name, h in value.items()
                    if str(name).lower() != "status code"
                }
            elif key not in ("description", "examples"):
                new[key] = value
        for media, example in examples.items():
            if media not in new.get("content", {}):
                new.setdefault("content", {})[media] = {"examples": {"response": {"value": example}}}
        return new

    def _response_content(
        self, schema: Any, examples: dict[str, Any], produces: list[str], at: str, source: str
    ) -> dict[str, Any]:
        content: dict[str, Any] = {}
        for media in produces or list(DEFAULT_PRODUCES):
            entry: dict[str, Any] = {
                "schema": self.schema(
                    schema, join_pointer(at, "content", media, "schema"), f"{source}/schema"
                )
            }
            if media in examples:
                entry["examples"] = {"response": {"value": examples[media]}}
            content[media] = entry
        return content

    def header(self, header: Any, at: str, source: str) -> Any:
        self.out.origins[at] = source
        if not isinstance(header, dict):
            return header
        new = {k: v for k, v in header.items() if k not in SCHEMA_KEYS and k != "collectionFormat"}
        if header.get("type") == "array" and header.get("collectionFormat", "csv") == "csv":
            new["style"] = "simple"
        elif header.get("collectionFormat") == "multi":
            new["explode"] = True
        schema = {k: v for k, v in header.items() if k in SCHEMA_KEYS}
        new["schema"] = self.schema(_without_formats(schema), f"{at}/schema", source)
        return new

    # ---- schemas -----------------------------------------------------------------------------------

    def schema(self, schema: Any, at: str, source: str) -> Any:
        """A 2.0 schema as a 3.0 one: the same shape, so pointers under it stay as they were."""
        self.out.origins[at] = source
        return _schema(schema)


def _schema(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    new: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str):
            new[key] = _ref(value)
        elif key in _ONE and isinstance(value, dict):
            new[key] = _schema(value)
        elif key == "items" and isinstance(value, list):  # 2.0 allows no tuple, but some specs write one
            new[key] = (
                _schema(value[0])
                if len(value) == 1
                else {"anyOf": [_schema(v) for v in value]}
                if value
                else {}
            )
        elif key in _LIST and isinstance(value, list):
            new[key] = [_schema(v) for v in value]
        elif key in _MAP and isinstance(value, dict):
            new[key] = {name: _schema(v) for name, v in value.items()}
        elif key == "x-nullable" and isinstance(value, bool):
            new["nullable"] = value
        elif key == "discriminator" and isinstance(value, str):
            new[key] = {"propertyName": value}
        else:
            new[key] = value
    if new.get("type") == "file":
        new["type"], new["format"] = "string", "binary"
    if new.get("type") == "array" and "items" not in new:
        new["items"] = {}
    return new


def _without_formats(schema: dict[str, Any]) -> dict[str, Any]:
    """A parameter's `items` without 2.0's nested collectionFormat, which 3.0 has no place for."""
    items = schema.get("items")
    if isinstance(items, dict) and "collectionFormat" in items:
        schema = {
            **schema,
            "items": _without_formats({k: v for k, v in items.items() if k != "collectionFormat"}),
        }
    return schema


def _ref(ref: str) -> str:
    for old, new in (("#/definitions/", "#/components/schemas/"), ("#/parameters/", "#/components/parameters/"),
                     ("#/responses/", "#/components/responses/")):  # fmt: skip
        if ref.startswith(old):
            return new + ref[len(old) :]
    return ref


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _media_list(value: Any, default: Iterable[str]) -> list[str]:
    if isinstance(value, list):
        return list(dict.fromkeys(v for v in value if isinstance(v, str)))
    return list(default)


def _extensions(value: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if isinstance(k, str) and k.startswith("x-")}


def _kept(value: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {**{k: value[k] for k in keys if k in value}, **_extensions(value)}


def _esc(token: str) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")
