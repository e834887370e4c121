"""Write a `Draft` as a commented mapping file. Pure: a draft in, YAML text out.

PyYAML cannot write comments, and the comments are the point of a draft (every choice says why), so
the text is assembled here line by line. Every scalar is either plain-safe by construction or written
as a JSON string, which YAML reads as a double-quoted scalar.
"""

from __future__ import annotations

import json
import re
import textwrap

from mcpgen.authoring.model import Draft, DraftAction, DraftAuth, DraftTool
from mcpgen.diagnostics import rule_name

WIDTH = 100
# Plain scalars: a letter, digit or '_' first, nothing YAML gives a meaning to, no ': ' or ' #'.
_PLAIN = re.compile(r"^[A-Za-z0-9_](?:[^:#{}\[\],&*!|>'\"%@`\\]|:(?! )|(?<! )#)*(?<=[^ :])$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0, DEL and C1: YAML refuses them raw
_RESERVED_PLAIN = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"})


def render_draft(draft: Draft, *, schema_ref: str | None = None) -> str:
    lines: list[str] = []
    if schema_ref:
        lines.append(f"# yaml-language-server: $schema={schema_ref}")
    lines += _header(draft)
    lines.append("mcpgen: 1")
    lines += _server(draft)
    lines.append("tools:")
    for tool in draft.tools:
        lines += _tool(tool)
    lines += _unmapped(draft)
    return "\n".join(lines) + "\n"


def _header(draft: Draft) -> list[str]:
    source = f" from {draft.spec_label}" if draft.spec_label else ""
    summary = (
        f"Drafted by `mcpgen init`{source}: {draft.operation_count:,} operations -> {len(draft.tools):,} tools, "
        f"{draft.action_count:,} actions"
        + (f"; {len(draft.unmapped)} left unmapped (listed at the end)." if draft.unmapped else ".")
    )
    advice = (
        "Every name and description is a proposal to edit: merge tools a person would use in one sitting "
        f"({rule_name('T1')}), rewrite descriptions in your own words ({rule_name('T7')}), and delete actions "
        "agents should not have. Tools group operations by tag (or by path), split big groups by sub-resource, "
        f"and keep reads apart from changes so read-only tools are marked as such ({rule_name('S4')})."
    )
    return _comment_block(summary, "") + _comment_block(advice, "")


def _server(draft: Draft) -> list[str]:
    env_stem = draft.server_name.upper()
    lines = [
        "server:",
        f"  name: {draft.server_name}  # service prefix of every tool name ({rule_name('T4')}); "
        f"{_c(draft.server_name_why)}",
    ]
    lines.append(f"  title: {_scalar(draft.title)}")
    lines.append("  version: 0.1.0")
    lines += _folded("  ", "description", draft.description)
    lines.append("  base_url:")
    lines.append(
        f"    env: {env_stem}_BASE_URL  # the environment variable wins over the default at run time"
    )
    if draft.base_url:
        lines.append(f"    default: {_scalar(draft.base_url)}  # {_c(draft.base_url_why)}")
    else:
        lines.append("    # default: https://api.example.com  # the spec names no concrete server URL")
    auth = draft.auth
    if draft.schemes:
        lines += _comment_block("The spec's security schemes:", "  ")
        for line in draft.schemes:
            lines += _comment_block(line, "  ", "    ")
    if auth is not None and draft.extra_auth:
        lines.append("  auth:  # credentials the API needs together: the server sends all of them")
        for one in (auth, *draft.extra_auth):
            lines.append(f"    - type: {one.type}  # {_c(one.why)}")
            lines += _auth_keys(one, "      ")
    elif auth is not None:
        lines.append(f"  auth:  # {_c(auth.why)}")
        lines.append(f"    type: {auth.type}")
        lines += _auth_keys(auth, "    ")
    elif draft.auth_note:
        lines.append(f"  # auth: {_c(draft.auth_note)}, e.g.")
        lines.append(f"  #   auth: {{type: bearer, env: {env_stem}_TOKEN}}")
    lines.append("  timeout_s: 30")
    if draft.files_read:
        lines += _files(draft.files_read)
    if draft.discovery:
        lines.append(
            f"  discovery: search_tools  # {len(draft.tools)} tools is past ~10: agents look tools up by query "
            f"instead of reading every definition ({rule_name('T3')})"
        )
    return lines


def _files(directory: str) -> list[str]:
    return [
        *_comment_block(
            "Uploads: the agent passes a file as its path inside this directory, or as its content "
            "(data:<media type>;base64,<data>). The server reads no other path: symlinks are followed and "
            "anything that ends outside is refused. Put here only files the agent may send (each at most "
            "max_body_bytes). A relative "
            "directory is taken from the server's working directory, which the MCP client chooses: an "
            "absolute one is surer. Remove `files` to take content only.",
            "  ",
        ),
        "  files:",
        f"    read: {_scalar(directory)}",
    ]


def _auth_keys(auth: DraftAuth, indent: str) -> list[str]:
    lines = [f"{indent}env: {auth.env}"] if auth.env else []
    if auth.location:
        lines.append(f"{indent}in: {auth.location}")
        lines.append(f"{indent}name: {_scalar(str(auth.name))}")
    if auth.prefix:
        lines.append(f"{indent}prefix: {_scalar(auth.prefix)}")
    if auth.authorization_url:
        lines.append(f"{indent}authorization_url: {_scalar(auth.authorization_url)}")
    if auth.token_url:
        lines.append(f"{indent}token_url: {_scalar(auth.token_url)}")
    if auth.token_url:
        scopes = ", ".join(_scalar(s) for s in auth.scopes)
        lines.append(f"{indent}scopes: [{scopes}]  # the scopes the operations' requirements name")
        lines.append(f"{indent}client_id_env: {auth.client_id_env}")
        lines.append(f"{indent}client_secret_env: {auth.client_secret_env}")
    return lines


def _tool(tool: DraftTool) -> list[str]:
    lines = ["", f"  # {_c(tool.why)}", f"  - name: {tool.name}", f"    title: {_scalar(tool.title)}"]
    lines += _folded("    ", "description", tool.description)
    lines.append("    actions:")
    for action in tool.actions:
        lines += _action(action)
    return lines


def _action(action: DraftAction) -> list[str]:
    where = f"{action.method} {action.path}" + (f": {action.summary}" if action.summary else "")
    lines = [f"      - name: {action.name}  # {_c(action.why)}"]
    if action.confirm:
        lines += _comment_block(
            f"Cannot be undone: the server asks the user first (a client that cannot ask passes "
            f"confirm={action.confirm} once the user said yes); for a before/after view, move it to a tool "
            f"of its own with  confirm: preview  ({rule_name('S1')}).",
            "        ",
        )
    elif action.destructive:
        lines.append(
            f"        # Hard to undo: propose a preview step for it ({rule_name('S1')}), so the agent sees the effect "
            "before it runs."
        )
    if action.deprecated:
        lines.append("        # Deprecated in the spec; consider leaving it out.")
    lines.append(f"        operation: {_scalar(action.operation)}  # {_c(where)}")
    if action.confirm:
        lines.append("        confirm: user")
        lines.append(f"        confirm_param: {action.confirm}")
    if action.single_record:
        lines.append(
            "        response: {single: true}  # its answer has several lists and the spec does not say which "
            "holds records; if it is a list, write  response: {items: <that field>}"
        )
    if action.search:
        lines.append(
            "        hints: {read_only: true}  # a search sent by POST: it reads, and pages by its body"
        )
    elif action.reads_by_post:
        lines.append("        hints: {read_only: true}  # it reads, although the API sends it by POST")
    if action.items:
        lines.append(
            f"        response: {{items: {_scalar(action.items)}}}  # the list the answer's total counts"
        )
    if action.body_paging:
        fields = ", ".join(f"{role}: {_scalar(path)}" for role, path in action.body_paging)
        lines.append(f"        pagination: {{{fields}}}  # paging fields inside a body object")
    if action.params:
        lines.append("        params:")
        for param in action.params:
            setting = f"env: {param.env}" if param.env else f"name: {param.name}"
            lines.append(f"          {_key(param.key)}: {{{setting}}}  # {_c(param.why)}")
    return lines


def _unmapped(draft: Draft) -> list[str]:
    lines: list[str] = []
    left_out = [u for u in draft.unmapped if u.deliberate]
    cannot = [u for u in draft.unmapped if not u.deliberate]
    if left_out:
        lines.append("")
        lines += _comment_block(
            "Left out on purpose: these are how a client gets or gives up the credentials, no task for an "
            "agent. The generated server sends the credentials set in its environment (server.auth above); "
            "get a token outside the agent, once.",
            "",
        )
        for item in left_out:
            lines += _comment_block(f"- {item.operation}: {item.reason}", "", indent="  ")
    if cannot:
        lines += [
            "",
            "# Not mapped: the generated server cannot call these operations as the spec describes them.",
        ]
        for item in cannot:
            lines += _comment_block(f"- {item.operation}: {item.reason}", "", indent="  ")
    return lines


def _folded(indent: str, key: str, text: str) -> list[str]:
    clean = _c(text)
    if not clean:
        return [f'{indent}{key}: ""']
    body = textwrap.wrap(clean, WIDTH - len(indent) - 2, break_long_words=False, break_on_hyphens=False)
    return [f"{indent}{key}: >-", *(f"{indent}  {line}" for line in body)]


def _comment_block(text: str, prefix: str, indent: str = "") -> list[str]:
    wrapped = textwrap.wrap(_c(text), WIDTH - len(prefix) - 2, break_long_words=False, break_on_hyphens=False)
    return (
        [f"{prefix}# {wrapped[0]}", *(f"{prefix}# {indent}{line}" for line in wrapped[1:])] if wrapped else []
    )


def _c(text: str) -> str:
    """One clean line: no control characters, single spaces."""
    return " ".join(_CONTROL.sub(" ", text).split())


def _scalar(value: str) -> str:
    """A name from the spec (an operationId, a property name) written so that it loads back exactly:
    plain when YAML reads it as this string, else double-quoted with every character that does not
    print escaped (a newline, U+2028), since the mapping must name the spec's own spelling."""
    if (
        value.isprintable()
        and _PLAIN.match(value)
        and value.lower() not in _RESERVED_PLAIN
        and not _resolves_to_non_string(value)
    ):
        return value
    quoted = json.dumps(value, ensure_ascii=False)
    return "".join(ch if ch.isprintable() else _escaped(ch) for ch in quoted)


def _escaped(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _key(value: str) -> str:
    return _scalar(value)


def _resolves_to_non_string(value: str) -> bool:
    """Numbers and dates ('2010-04-01') would load as something other than a string."""
    return bool(
        re.fullmatch(r"[-+]?(\d[\d_]*)?\.?\d*([eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+", value)
        or re.match(r"\d{4}-\d{1,2}-\d{1,2}", value)
    )
