"""Pure: ServerSpec -> files. Python decides every string here; templates only place them."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import jinja2

from mcpgen.ir import (
    ActionSpec,
    PagingSpec,
    ParamSpec,
    PreviewSpec,
    RenderedFile,
    ResultShape,
    ServerSpec,
    ToolSpec,
)
from mcpgen.names import hook_names
from mcpgen.render.lockfile import LOCK_FILE, lock_json
from mcpgen.render.pyemit import Call, Code, assignment, literal

RUNTIME_DIR = "_runtime"


def templates_root() -> Traversable:
    """Templates ship inside the wheel as mcpgen/templates; in a source checkout they sit at the top."""
    packaged = resources.files("mcpgen").joinpath("templates")
    if packaged.is_dir():
        return packaged
    return resources.files("mcpgen").joinpath("..", "templates")  # type: ignore[return-value]


@cache
def _environment() -> jinja2.Environment:
    root = Path(str(templates_root()))
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["py"] = lambda value: literal(value)
    env.filters["tomlstr"] = json.dumps  # a JSON string is a valid TOML basic string
    return env


def render_server(
    server: ServerSpec, served: list[dict[str, Any]], api_title: str, *, profiled: bool = False
) -> tuple[RenderedFile, ...]:
    """Every file of the generated package, in a stable order.

    `served` is the tools/list the build decided (`mcpgen.build.contract`). When it carries a provider
    profile's schemas (`profiled`), input_schemas.json keeps the untransformed ones, which the server
    validates with (it re-checks what the profile dropped).
    """
    env = _environment()
    pkg = server.package_name
    common = {"server": server, "api_title": api_title or server.title}

    def page(template: str, **extra: Any) -> str:
        return env.get_template(template).render(**common, **extra)

    files = [
        RenderedFile(
            "pyproject.toml",
            page("package/pyproject.toml.jinja", description=_summary(server), extras=_extras(server)),
        ),
        RenderedFile(
            "README.md",
            page("package/README.md.jinja", env_rows=_env_rows(server), unit_rows=_unit_rows(server)),
        ),
        RenderedFile(LOCK_FILE, lock_json(server, served)),
        RenderedFile(f"{pkg}/__init__.py", page("package/__init__.py.jinja")),
        RenderedFile(f"{pkg}/__main__.py", page("package/__main__.py.jinja")),
        RenderedFile(f"{pkg}/server.py", page("package/server.py.jinja", **_server_module(server))),
        RenderedFile(f"{pkg}/tools.json", _json(served)),
        RenderedFile(
            f"{pkg}/tools/__init__.py", page("package/tools_init.py.jinja", tools_tuple=_tools_tuple(server))
        ),
    ]
    for tool in server.tools:
        files.append(
            RenderedFile(
                f"{pkg}/tools/{tool.module_name}.py", page("package/tool.py.jinja", **_tool_module(tool))
            )
        )
    # User-owned: written once, then merged by write.py (preserve.py) so the user's code always wins.
    files.append(
        RenderedFile(f"{pkg}/hooks.py", page("package/hooks.py.jinja", hooks=_hooks(server)), "user")
    )
    if profiled:
        files.append(
            RenderedFile(f"{pkg}/input_schemas.json", _json({t.name: t.input_schema for t in server.tools}))
        )
    files.extend(_runtime_files(pkg))
    return tuple(files)


def _hooks(server: ServerSpec) -> list[dict[str, str]]:
    hooks = []
    for tool in server.tools:
        for action in tool.actions:
            before, after = hook_names(server.name, tool.name, action.name)
            subject = f"{tool.name}, action `{action.name}` ({action.method} {action.path})"
            hooks.append({"before": before, "after": after, "subject": subject})
    return hooks


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _tool_module(tool: ToolSpec) -> dict[str, Any]:
    actions = [*tool.actions, *(a.preview.read for a in tool.actions if a.preview)]
    uses_fixed = any(a.fixed for a in actions)
    uses_params = any(a.params for a in actions)
    uses_units = any(p.unit for a in actions for p in a.params)
    preview = tool.preview
    names = [
        "Action",
        *(["Fixed"] if uses_fixed else []),
        *(["Guard"] if preview and preview.guards else []),
        *(["Param"] if uses_params else []),
        *(["Preview"] if preview else []),
        "Tool",
        *(["Unit"] if uses_units else []),
    ]
    kwargs: list[tuple[str, Any]] = [
        ("name", tool.name),
        ("actions", tuple(_action_call(a) for a in tool.actions)),
    ]
    if tool.scopes:
        kwargs.append(("scopes", tool.scopes))
    table = Call("Tool", tuple(kwargs))
    imports = [f"from .._runtime.routing import {', '.join(names)}"]
    if any(a.paging for a in actions):
        imports.insert(0, "from .._runtime.pagination import Paging")
    if any(a.shape for a in actions):
        imports.append("from .._runtime.shaping import Shape")
    return {"tool": tool, "imports": "\n".join(imports), "tool_table": assignment("TOOL", table)}


def _preview_call(preview: PreviewSpec) -> Call:
    kwargs: list[tuple[str, Any]] = [
        ("read", _action_call(preview.read)),
        ("ttl_minutes", preview.ttl_minutes),
        ("approval", preview.approval),
    ]
    if preview.compared:
        kwargs.append(("compared", dict(preview.compared)))
    if preview.guards:
        kwargs.append(
            (
                "guards",
                tuple(
                    Call(
                        "Guard",
                        (
                            ("arg", g.arg_name),
                            ("current", g.current_field),
                            ("max_increase_pct", g.max_increase_pct),
                        ),
                    )
                    for g in preview.guards
                ),
            )
        )
    return Call("Preview", tuple(kwargs))


def _action_call(action: ActionSpec) -> Call:
    kwargs: list[tuple[str, Any]] = [("name", action.name), ("method", action.method), ("path", action.path)]
    if action.operation_id:
        kwargs.append(("operation_id", action.operation_id))
    if action.params:
        kwargs.append(
            (
                "params",
                tuple(_param_call(p) for p in action.params),
            )
        )
    if action.required_args:
        kwargs.append(("required", action.required_args))
    if action.defaults:
        kwargs.append(("defaults", dict(action.defaults)))
    if action.fixed:
        kwargs.append(
            (
                "fixed",
                tuple(
                    Call("Fixed", (("wire", f.wire_name), ("at", f.location), ("value", f.value)))
                    for f in action.fixed
                ),
            )
        )
    if action.body_encoding:
        kwargs.append(("body", action.body_encoding))
    if action.find_with:
        kwargs += [("find_with", action.find_with), ("finds", action.finds)]
    if action.check_with:
        kwargs.append(("check_with", action.check_with))
    if action.shape is not None:
        kwargs.append(("shape", _shape_call(action.shape)))
    if action.paging is not None:
        kwargs.append(("paging", _paging_call(action.paging)))
    if action.preview:
        kwargs.append(("preview", _preview_call(action.preview)))
    if action.confirm_value:
        kwargs.append(("confirm", action.confirm_value))
    if action.idempotency_header:
        kwargs.append(("idempotency_header", action.idempotency_header))
    return Call("Action", tuple(kwargs))


def _param_call(param: ParamSpec) -> Call:
    kwargs: list[tuple[str, Any]] = [
        ("arg", param.arg_name),
        ("wire", param.wire_name),
        ("at", param.location),
    ]
    if param.unit is not None:
        unit = param.unit
        kwargs.append(
            (
                "unit",
                Call(
                    "Unit",
                    (
                        ("agent", unit.agent),
                        ("upstream", unit.upstream),
                        ("factor", unit.factor),
                        ("integer", unit.integer),
                    ),
                ),
            )
        )
    return Call("Param", tuple(kwargs))


def _shape_call(shape: ResultShape) -> Call:
    kwargs: list[tuple[str, Any]] = []
    if shape.items is not None:
        kwargs.append(("items", shape.items))
    if shape.concise:
        kwargs.append(("concise", shape.concise))
    if shape.drop:
        kwargs.append(("drop", shape.drop))
    return Call("Shape", tuple(kwargs))


def _paging_call(paging: PagingSpec) -> Call:
    kwargs: list[tuple[str, Any]] = [("style", paging.style)]
    for key, value in (
        ("limit", paging.limit_arg),
        ("offset", paging.offset_wire),
        ("next_cursor", paging.next_cursor),
        ("has_more", paging.has_more),
        ("total", paging.total),
    ):
        if value is not None:
            kwargs.append((key, value))
    if paging.echoed:
        kwargs.append(("echoed", paging.echoed))
    if paging.max_limit is not None:
        kwargs.append(("max_limit", paging.max_limit))
    return Call("Paging", tuple(kwargs))


def _server_module(server: ServerSpec) -> dict[str, Any]:
    auth = server.auth
    auth_call: Any = Code("None")
    if auth is not None:
        auth_kwargs: list[tuple[str, Any]] = [("kind", auth.kind), ("env", auth.env)]
        if auth.location:
            auth_kwargs += [("at", auth.location), ("name", auth.param_name)]
        auth_call = Call("Auth", tuple(auth_kwargs))
    upstream = Call(
        "Upstream",
        (
            ("base_url_env", server.base_url_env),
            ("default_base_url", server.default_base_url),
            ("auth", auth_call),
            ("timeout_s", server.timeout_s),
            *((("idempotency_header", server.idempotency_header),) if server.idempotency_header else ()),
        ),
    )
    access = server.access
    access_kwargs: tuple[tuple[str, Any], ...] = ()
    if access is not None:
        fields: list[tuple[str, Any]] = [("issuer", access.issuer), ("audience", access.audience)]
        if access.scopes:
            fields.append(("scopes", access.scopes))
        access_kwargs = (("access", Call("Access", tuple(fields))),)
    config = Call(
        "ServerConfig",
        (
            ("name", server.name),
            ("package", Code("__package__")),
            ("title", server.title),
            ("version", server.version),
            ("instructions", server.description),
            ("upstream", upstream),
            *([("server_info", True)] if server.server_info else []),
            ("max_result_tokens", server.max_result_tokens),
            *access_kwargs,
        ),
    )
    return {
        "config": assignment("CONFIG", config),
        "upstream_imports": "Auth, Upstream" if auth is not None else "Upstream",
        "uses_access": access is not None,
    }


def _tools_tuple(server: ServerSpec) -> str:
    return literal(tuple(Code(t.module_name.upper()) for t in server.tools), 0, tail=len("TOOLS = "))


def _env_rows(server: ServerSpec) -> list[tuple[str, str]]:
    default = f" (default: `{server.default_base_url}`)" if server.default_base_url else " (required)"
    rows = [(server.base_url_env, f"base URL of the API{default}")]
    if server.auth is not None:
        rows.append(
            (server.auth.env, f"{server.auth.kind} credential sent to the API; never logged or returned")
        )
    if server.access is not None:
        rows.append(
            (
                "MCP_AUTH_JWT_SECRET",
                f"HTTP only: HS256 key of the bearer tokens callers present (issuer `{server.access.issuer}`, "
                f"audience `{server.access.audience}`); or set `MCP_AUTH_JWKS_URL`",
            )
        )
        rows.append(("MCP_AUTH_JWKS_URL", "HTTP only: the token issuer's JWKS (https:// or file://)"))
    if any(t.preview for t in server.tools):
        rows.append(
            (
                "MCP_STORE_URL",
                "where previews live: unset for a SQLite file in `$XDG_STATE_HOME`, `sqlite:///path`, or "
                "`redis://host:port/db` to share previews between replicas (install the `redis` extra)",
            )
        )
    return rows


def _unit_rows(server: ServerSpec) -> list[tuple[str, str, str, str]]:
    """(tool, action, '`weight_kg` in kg', '`weight` in g (x 1000)') for every converted parameter (T5)."""
    return [
        (
            tool.name,
            action.name,
            f"`{param.arg_name}` in {param.unit.agent}",
            f"`{param.wire_name}` in {param.unit.upstream} (x {param.unit.factor:g})",
        )
        for tool in server.tools
        for action in tool.actions
        for param in action.params
        if param.unit is not None
    ]


def _extras(server: ServerSpec) -> list[tuple[str, str]]:
    """Optional dependencies: the Redis client, for previews shared between replicas."""
    return [("redis", "redis>=5,<9")] if any(t.preview for t in server.tools) else []


def _summary(server: ServerSpec) -> str:
    return f"MCP server for {server.title} ({len(server.tools)} task tools), generated by mcpgen."


def _runtime_files(package: str) -> list[RenderedFile]:
    root = templates_root().joinpath("runtime")
    names = sorted(entry.name for entry in root.iterdir() if entry.name.endswith(".py"))
    return [
        RenderedFile(f"{package}/{RUNTIME_DIR}/{name}", root.joinpath(name).read_text(encoding="utf-8"))
        for name in names
    ]
