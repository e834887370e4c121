"""The draft's tools: one per side of a group, named within the length agents show well (T4), each
with a description that says what it does, when to use it and when not (T7)."""

from __future__ import annotations

from mcpgen.authoring.actions import draft_actions, fit_name, unique_name
from mcpgen.authoring.grouping import Group, Side, tool_sides
from mcpgen.authoring.model import DraftAction, DraftTool
from mcpgen.authoring.operations import first_tag
from mcpgen.authoring.service import api_name
from mcpgen.authoring.words import IRREVERSIBLE_WORDS, name_words, plural
from mcpgen.load.openapi import Spec
from mcpgen.names import snake_case


def draft_tools(
    groups: list[Group],
    spec: Spec,
    server: str,
    limit: int,
    path_naming: bool,
    tag_descriptions: dict[str, str],
) -> list[DraftTool]:
    sides = tool_sides(groups)
    used: set[str] = set()
    for side in sides:
        stem = side.group.key if side.kind == "all" else f"{side.group.key}_{side.kind}"
        side.name = unique_name(fit_name(stem, limit, keep_last=side.kind != "all"), used, limit)
    siblings = {(id(s.group), s.kind): s.name for s in sides}
    api = api_name(spec, server)
    api_words = name_words(snake_case(api)) | {server}
    tools = []
    for side in sides:
        other = siblings.get((id(side.group), "change" if side.kind == "find" else "find"))
        actions = draft_actions(side, path_naming, spec, api_words)
        description = _tool_description(
            side,
            api,
            f"{server}_{other}" if other and side.kind != "all" else None,
            tag_descriptions.get(first_tag(side.members[0].op) or ""),
            actions,
        )
        why = side.group.why
        if side.kind != "all" and len(side.members) < len(side.group.members):
            why += f"; the {'reads' if side.kind == 'find' else 'changes'} ({len(side.members)})"
        tools.append(
            DraftTool(
                name=side.name,
                title=_title(side),
                description=description,
                actions=tuple(actions),
                why=why,
            )
        )
    return tools


def _title(side: Side) -> str:
    label = side.group.label
    if side.kind == "find":
        return f"Find {plural(label)}"
    if side.kind == "change":
        return f"Change {plural(label)}"
    return label[:1].upper() + label[1:]


def _tool_description(
    side: Side, api: str, sibling: str | None, tag_description: str | None, actions: list[DraftAction]
) -> str:
    """What it does, when to use it, when not to, what it returns (T7), in few words: big specs have
    hundreds of these, and every word is paid for in each definition an agent reads (T3)."""
    things = plural(side.group.label)
    has_delete = any(a.destructive for a in actions)
    sentences: list[str] = []
    if side.kind == "find":
        sentences.append(f"Look up {things} in {api}.")
        if tag_description:
            sentences.append(tag_description)
        sentences.append(f"Use it to list or read {things} and get the ids other actions need.")
        sentences.append(
            f"It changes nothing; do not use it to change {things}, use {sibling}."
            if sibling
            else f"It changes nothing; do not use it to change {things}."
        )
        sentences.append(_returns(actions, "Returns the API's JSON; long lists come a page at a time."))
    else:
        verbs = _change_verbs(actions)
        if side.kind == "change":
            sentences.append(f"{verbs} {things} in {api}.")
        else:
            sentences.append(f"Look up and change {things} in {api}.")
        if tag_description:
            sentences.append(tag_description)
        if side.kind == "change":
            sentences.append(
                "Use it only for a change the user asked for"
                + (f"; look the record up first with {sibling}." if sibling else ".")
            )
            sentences.append(f"Do not use it to read {things}" + (f"; use {sibling}." if sibling else "."))
        else:
            sentences.append("Use it for the actions below; read a record before changing it.")
            sentences.append(f"Do not use it for other parts of {api}.")
        if has_delete:
            sentences.append("Deleting cannot be undone.")
        sentences.append(_returns(actions, "Returns the API's JSON response, usually the record changed."))
    return " ".join(sentences)


def _returns(actions: list[DraftAction], json_answer: str) -> str:
    """What the tool returns (T7): the API's JSON, or the file its actions answer."""
    files = {a.file_answer for a in actions}
    if None in files:
        return json_answer + (" Some actions return a file instead, as content." if len(files) > 1 else "")
    kinds = ", ".join(sorted(f for f in files if f and f != "application/octet-stream")) or "a file"
    return f"Returns the file the API answers ({kinds}) as content, with its name, type and size."


def _change_verbs(actions: list[DraftAction]) -> str:
    kinds = {a.name.split("_", 1)[0] for a in actions}
    if kinds & IRREVERSIBLE_WORDS:  # Box's "Remove webhook", DigitalOcean's "Destroy a Droplet"
        kinds.add("delete")
    verbs: list[str] = [v for v in ("create", "update", "delete") if v in kinds]
    if not verbs:
        return "Change"
    if len(verbs) == 1 and len(kinds) > 1:
        verbs.append("change")
    text = ", ".join(verbs[:-1]) + (" or " if len(verbs) > 1 else "") + verbs[-1]
    return text[:1].upper() + text[1:]
