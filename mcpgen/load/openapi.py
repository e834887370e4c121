"""Load an OpenAPI 3.0/3.1 document, validate it with openapi-pydantic, and index its operations.

openapi-pydantic checks the document's structure (and picks the 3.0 or 3.1 model by version).
The build then reads the raw document through `Located` values, so every parameter and schema it
uses keeps its JSON pointer and line for diagnostics.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pydantic
from openapi_pydantic.v3.v3_0 import OpenAPI as OpenAPI30
from openapi_pydantic.v3.v3_1 import OpenAPI as OpenAPI31

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, DiagnosticError, SourceRef, error, warning
from mcpgen.load.refs import Located, RefResolver, check_network_refs
from mcpgen.load.remote import Fetched, RemoteOptions, fetch, is_url
from mcpgen.load.sources import MAX_SPEC_BYTES, Document, join_pointer, load_document
from mcpgen.load.swagger2 import convert, is_swagger2

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@dataclass(frozen=True, slots=True, kw_only=True)
class Operation:
    method: str  # upper case: GET, POST, ...
    path: str
    operation_id: str | None
    located: Located  # the operation object itself
    parameters: tuple[Located, ...]  # path-level and operation-level, resolved, operation wins
    request_body: Located | None

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def summary(self) -> str:
        return str(self.located.value.get("summary") or "").strip()

    @property
    def description(self) -> str:
        return str(self.located.value.get("description") or "").strip()

    @property
    def source(self) -> SourceRef:
        return self.located.source


@dataclass(frozen=True, slots=True, kw_only=True)
class Spec:
    document: Document
    resolver: RefResolver
    version: str
    title: str
    api_version: str
    description: str
    servers: tuple[str, ...]
    operations: tuple[Operation, ...]  # in document order
    # Parts of the document that are not valid OpenAPI but sit inside a component or an operation:
    # they matter only if a mapped operation uses them (`problems_for`), so loading goes on.
    invalid: tuple[Diagnostic, ...] = ()
    converted_from: str | None = None  # "Swagger 2.0": the document was converted on load (swagger2.py)
    fetched: Fetched | None = None  # given by URL: where from, the kept copy, its sha256 (remote.py)
    # find_operation's lookups: 'METHOD /path' and operationId (the first operation holding it).
    _by_reference: dict[str, Operation] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for operation in reversed(self.operations):  # reversed: the first one with an id wins
            self._by_reference[operation.key] = operation
        for operation in reversed(self.operations):
            if isinstance(operation.operation_id, str):
                self._by_reference[f"#{operation.operation_id}"] = operation

    def security_schemes(self) -> dict[str, Any]:
        components = self.document.data.get("components") or {}
        return components.get("securitySchemes") or {}


def load_spec(
    path: Path | str,
    display_path: str | None = None,
    *,
    ref_roots: Sequence[Path] = (),
    remote: RemoteOptions | None = None,
) -> Spec:
    """Load and validate; raise DiagnosticError (with locations) when the spec cannot be used.

    `path` may be an https URL (a str): the spec is fetched (remote.py) and kept in the cache.
    `$ref`s may read files under the spec's own directory and under `ref_roots` only, and fetch from
    the hosts `remote.ref_hosts` names (refs.py).
    """
    remote = remote or RemoteOptions()
    fetched = None
    if isinstance(path, str) and is_url(path):
        fetched = fetch(path, remote)
        document = load_document(fetched.path, display_path or path, max_bytes=MAX_SPEC_BYTES)
        document.base_url = fetched.final_url
    else:
        document = load_document(Path(path), display_path, max_bytes=MAX_SPEC_BYTES)
    data = document.data
    if not isinstance(data, dict):
        raise DiagnosticError(
            [error(codes.S001, "an OpenAPI document must be a mapping", document.locate(""))]
        )
    converted: list[Diagnostic] = []
    if is_swagger2(data):
        document, converted = _converted(document)
        data = document.data
    version = str(data.get("openapi", ""))
    model = _model_for(version, document)
    problems = check_network_refs(document, remote.ref_hosts)
    if problems:
        raise DiagnosticError(problems)
    invalid: list[Diagnostic] = []
    errors = _validation_errors(model, data)
    if errors:
        found = _validation_diagnostics(errors, document)
        if not all(_is_local(_pointer_of(d)) for d in found):
            raise DiagnosticError(found[:5])
        invalid = found
    invalid += converted
    resolver = RefResolver(document, roots=ref_roots, remote=remote)
    info = data.get("info") or {}
    return Spec(
        document=document,
        resolver=resolver,
        version=version,
        title=str(info.get("title") or ""),
        api_version=str(info.get("version") or ""),
        description=str(info.get("description") or ""),
        servers=tuple(
            str(s.get("url")) for s in data.get("servers") or () if isinstance(s, dict) and s.get("url")
        ),
        operations=tuple(_operations(document, resolver)),
        invalid=tuple(invalid),
        converted_from="Swagger 2.0" if document.origin is not None else None,
        fetched=fetched,
    )


def _converted(document: Document) -> tuple[Document, list[Diagnostic]]:
    """A Swagger 2.0 document read as OpenAPI 3.0, located in the 2.0 file; what cannot be converted
    exactly, as problems of the operation or component it is in (`problems_for`)."""
    version = document.data.get("swagger")
    if str(version) != "2.0":
        raise DiagnosticError(
            [
                error(
                    codes.S002,
                    f"only Swagger 2.0, OpenAPI 3.0 and 3.1 are supported; found swagger '{version}'",
                    document.locate("/swagger"),
                    "write swagger: '2.0', or convert the document to OpenAPI 3",
                )
            ]
        )
    conversion = convert(document.data)
    converted = replace(document, data=conversion.data, origin=conversion.original)
    problems = [
        (error if problem.fatal else warning)(
            codes.S004 if problem.fatal else codes.S005,
            problem.message,
            document.locate(problem.pointer),
            hint=problem.hint,
        )
        for problem in conversion.problems
    ]
    return converted, problems


def _is_local(pointer: str | None) -> bool:
    """Inside one component (`/components/schemas/X/...`, in Swagger 2.0 `/definitions/X/...`) or one
    operation (`/paths/P/get/...`): a problem there breaks only what uses it."""
    tokens = (pointer or "").split("/")[1:]
    return (
        (tokens[:1] == ["components"] and len(tokens) >= 3)
        or (tokens[:1] == ["paths"] and len(tokens) >= 3)
        or (tokens[:1] in (["definitions"], ["parameters"], ["responses"]) and len(tokens) >= 2)
    )


def problems_for(spec: Spec, operations: Sequence[Operation]) -> list[Diagnostic]:
    """The spec's invalid parts (S010): an error where a mapped operation uses one (itself or
    through `$ref`s), a warning that it is ignored where none does."""
    if not spec.invalid:
        return []
    reached = _reached_pointers(spec, operations)
    out = []
    for problem in spec.invalid:
        pointer = _pointer_of(problem)
        user = next((key for key, prefix in reached if _within(pointer, prefix)), None)
        if problem.code in (codes.S004, codes.S005):  # a Swagger 2.0 part not converted exactly
            if user is not None:
                out.append(replace(problem, message=f"{problem.message} ({user} is mapped)"))
            continue
        message = problem.message.removeprefix("not a valid OpenAPI document here: ")
        if user is not None:
            out.append(
                error(
                    codes.S010,
                    f"not valid OpenAPI here ({message}), and {user} uses it",
                    problem.source,
                    hint="fix this part of the spec, or leave that operation unmapped",
                )
            )
        else:
            out.append(
                warning(
                    codes.S010,
                    f"not valid OpenAPI here ({message}); no mapped operation uses it, so it is ignored",
                    problem.source,
                    hint="fix the spec when you can; nothing generated depends on it",
                )
            )
    return out


def _pointer_of(diagnostic: Diagnostic) -> str:
    return diagnostic.source.pointer if diagnostic.source is not None else ""


def _within(pointer: str, prefix: str) -> bool:
    return pointer == prefix or pointer.startswith(prefix + "/")


def _reached_pointers(spec: Spec, operations: Sequence[Operation]) -> list[tuple[str, str]]:
    """(operation key, pointer) for each operation, its path item's parameters and every local
    `$ref` target they reach (bounded by the document: each target is visited once). Pointers are
    the file's: a Swagger 2.0 file's own, where its problems are located."""
    reached: list[tuple[str, str]] = []
    data = spec.document.data
    in_file = spec.document.origin or (lambda pointer: pointer)
    for operation in operations:
        path_item = join_pointer("/paths", operation.path)
        roots = [operation.located.pointer, path_item + "/parameters"]
        seen: set[str] = set()
        stack = [(p, _at(data, p)) for p in roots]
        while stack:
            pointer, node = stack.pop()
            if pointer in seen:
                continue
            seen.add(pointer)
            reached.append((operation.key, in_file(pointer)))
            for ref in _local_refs(node):
                stack.append((ref, _at(data, ref)))
    return reached


def _local_refs(node: Any) -> list[str]:
    found: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/"):
                found.append(ref[1:])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _at(data: Any, pointer: str) -> Any:
    node = data
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _model_for(version: str, document: Document) -> type[pydantic.BaseModel]:
    if version.startswith("3.0"):
        return OpenAPI30
    if version.startswith("3.1"):
        return OpenAPI31
    source = document.locate("/openapi" if "openapi" in document.data else "")
    found = f"'{version}'" if version else "no 'openapi' field (nor 'swagger')"
    hint = "write openapi: 3.0.3 (or swagger: '2.0' for a Swagger 2.0 document)"
    raise DiagnosticError(
        [
            error(
                codes.S002,
                f"only Swagger 2.0, OpenAPI 3.0 and 3.1 are supported; found {found}",
                source,
                hint,
            )
        ]
    )


_ErrorList = list[tuple[tuple[int | str, ...], str]]  # pydantic's (loc, msg) of each error


def _validation_errors(model: type[pydantic.BaseModel], data: dict[str, Any]) -> _ErrorList:
    """What `model.model_validate(data)` reports, in its order, without the whole model in memory.

    Validated whole, GitHub's spec became 64 MB of model objects, only to be dropped (a third of
    `generate`'s peak memory). The path items and the component schemas, nearly all of it, are
    validated one at a time with the very types the model gives them, and their errors are placed
    where one validation of the whole would report them: the document's fields in the model's order,
    the members of a mapping in the document's order.
    """
    stripped = dict(data)
    paths = data.get("paths")
    split_paths = isinstance(paths, dict) and bool(paths)
    if split_paths:
        stripped["paths"] = {}
    components = data.get("components")
    schemas = components.get("schemas") if isinstance(components, dict) else None
    split_schemas = isinstance(components, dict) and isinstance(schemas, dict) and bool(schemas)
    if split_schemas:
        stripped["components"] = {**components, "schemas": {}}  # type: ignore[dict-item]
    root = _errors_of(model, stripped)
    field_order = list(model.model_fields)
    place = {name: index for index, name in enumerate(field_order)}

    def field_index(loc: tuple[int | str, ...]) -> int:
        return place.get(str(loc[0]), len(field_order)) if loc else -1

    out: _ErrorList = []
    paths_at = place.get("paths", len(field_order))
    out += [e for e in root if field_index(e[0]) < paths_at]
    if split_paths:
        assert isinstance(paths, dict)
        item = _PARTS[model]["path"]
        for key, value in paths.items():
            out += [(("paths", key, *loc), msg) for loc, msg in _errors_of(item, value)]
    out += [e for e in root if field_index(e[0]) == paths_at]
    components_at = place.get("components", len(field_order))
    out += [e for e in root if paths_at < field_index(e[0]) < components_at]
    if split_schemas:
        assert isinstance(schemas, dict)
        schema = _PARTS[model]["schema"]
        for key, value in schemas.items():
            out += [(("components", "schemas", key, *loc), msg) for loc, msg in _errors_of(schema, value)]
    out += [e for e in root if field_index(e[0]) >= components_at]
    return out


def _errors_of(validator: Any, value: Any) -> _ErrorList:
    try:
        if isinstance(validator, pydantic.TypeAdapter):
            validator.validate_python(value)
        else:
            validator.model_validate(value)
    except pydantic.ValidationError as exc:
        return [(tuple(e["loc"]), str(e["msg"])) for e in exc.errors()]
    return []


def _member_type(annotation: Any) -> Any:
    """The value type of a `dict[str, X]` annotation, through Optional."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) is dict:
        return args[1]
    return _member_type(args[0])


def _parts_of(model: type[pydantic.BaseModel]) -> dict[str, pydantic.TypeAdapter[Any]]:
    # `components: Optional[Components]`
    components = next(
        a for a in typing.get_args(model.model_fields["components"].annotation) if a is not type(None)
    )
    return {
        "path": pydantic.TypeAdapter(_member_type(model.model_fields["paths"].annotation)),
        "schema": pydantic.TypeAdapter(_member_type(components.model_fields["schemas"].annotation)),
    }


_PARTS = {OpenAPI30: _parts_of(OpenAPI30), OpenAPI31: _parts_of(OpenAPI31)}


def _validation_diagnostics(errors: _ErrorList, document: Document) -> list[Diagnostic]:
    """Turn pydantic's error locations into JSON pointers, keeping the most specific few."""
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    for loc, msg in errors:
        pointer = join_pointer("", *_document_tokens(loc, document.data))
        if pointer not in seen:
            seen.add(pointer)
            found.append((pointer, msg))
    # A schema that fails is also tried as a Reference, whose "$ref: Field required" only misleads
    # when the schema's own keyword is named beside it.
    kept = [
        (pointer, msg)
        for pointer, msg in found
        if not (
            pointer.endswith("/$ref")
            and any(other != pointer and _within(other, pointer[: -len("/$ref")]) for other, _ in found)
        )
    ]
    return [
        error(codes.S003, f"not a valid OpenAPI document here: {msg}", document.locate(pointer))
        for pointer, msg in kept
    ]


def _document_tokens(loc: tuple[int | str, ...], data: Any) -> list[int | str]:
    """The location's keys that are in the document. Union-branch names are skipped, but only where
    the document has no such key: schema names like 'ExcelStatus' look just like branch names."""
    tokens: list[int | str] = []
    node = data
    for token in loc:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node):
            node = node[token]
        elif _is_model_branch(token):
            continue
        else:
            node = None  # a missing key: the pointer says where it belongs
        tokens.append(token)
    return tokens


def _is_model_branch(token: object) -> bool:
    # pydantic inserts union-branch names (e.g. 'Reference', 'function-after[...]') into locations.
    return isinstance(token, str) and (token[:1].isupper() or "[" in token)


def _operations(document: Document, resolver: RefResolver) -> list[Operation]:
    paths = Located(document, "/paths", document.data.get("paths") or {})
    found: list[Operation] = []
    for path in paths.value:
        path_item = resolver.deref(paths.child(path))
        if not isinstance(path_item.value, dict):
            continue
        shared = _parameters(path_item, resolver)
        for method in HTTP_METHODS:
            if method not in path_item.value:
                continue
            operation = path_item.child(method)
            own = _parameters(operation, resolver)
            body = operation.value.get("requestBody")
            found.append(
                Operation(
                    method=method.upper(),
                    path=path,
                    operation_id=operation.value.get("operationId"),
                    located=operation,
                    parameters=_merge_parameters(shared, own),
                    request_body=resolver.deref(operation.child("requestBody")) if body else None,
                )
            )
    return found


def _parameters(owner: Located, resolver: RefResolver) -> list[Located]:
    if not isinstance(owner.value.get("parameters"), list):
        return []
    listed = owner.child("parameters")
    return [resolver.deref(listed.child(i)) for i in range(len(listed.value))]


def _merge_parameters(shared: list[Located], own: list[Located]) -> tuple[Located, ...]:
    # OpenAPI: an operation-level parameter overrides a path-level one with the same name and location.
    def key(p: Located) -> tuple[str, str]:
        return (str(p.value.get("name")), str(p.value.get("in")))

    overridden = {key(p) for p in own}
    return tuple([p for p in shared if key(p) not in overridden] + own)


def find_operation(spec: Spec, reference: str) -> Operation | None:
    """An operation by operationId, or by 'METHOD /path' (method in any case)."""
    method, _, path = reference.strip().partition(" ")
    if path.startswith("/"):
        return spec._by_reference.get(f"{method.upper()} {path.strip()}")
    return spec._by_reference.get(f"#{reference}")


def load_spec_or_diagnostics(
    path: Path | str,
    display_path: str | None = None,
    *,
    ref_roots: Sequence[Path] = (),
    remote: RemoteOptions | None = None,
) -> tuple[Spec | None, list[Diagnostic]]:
    try:
        return load_spec(path, display_path, ref_roots=ref_roots, remote=remote), []
    except DiagnosticError as exc:
        return None, list(exc.diagnostics)
