"""A tool's actions: a verb, then what it acts on (T2), from the operationId, the summary or the path;
look-alikes told apart, and the confirmation an action that cannot be undone asks for."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from mcpgen.authoring.grouping import Group, Side
from mcpgen.authoring.model import DraftAction
from mcpgen.authoring.operations import OpInfo, is_param, path_segments
from mcpgen.authoring.params import draft_params
from mcpgen.authoring.service import first_sentence, one_line
from mcpgen.authoring.words import (
    CHANGE_VERBS,
    DESTRUCTIVE_WORDS,
    HTTP_ONLY,
    HTTP_VERBS,
    IRREVERSIBLE_WORDS,
    READ_VERBS,
    TRAILING_VERBS,
    VERB_SYNONYMS,
    is_verb,
    name_words,
    singular,
    summary_name,
)
from mcpgen.build.answers import file_answer, response_schema
from mcpgen.build.paging import body_paging, counted_list
from mcpgen.build.parameters import body_schema
from mcpgen.build.results import derived_list, undecided_lists
from mcpgen.build.schemas import short_text
from mcpgen.load.openapi import Operation, Spec
from mcpgen.names import READ_METHODS, snake_case

NAME_MAX = 40  # mapping.schema.json: tool and action names


def draft_actions(side: Side, path_naming: bool, spec: Spec, api_words: set[str]) -> list[DraftAction]:
    tool_words = name_words(side.group.key) | name_words(snake_case(side.group.tag_label))
    known = tool_words | api_words  # words a summary's object need not repeat: the tool's, the API's
    proposals = [
        (info, *_action_name(info, side.group, tool_words, path_naming, known)) for info in side.members
    ]
    counts = Counter(name for _, name, _ in proposals)
    used: set[str] = set()
    named: list[tuple[OpInfo, str, str]] = []
    for info, name, why in proposals:
        if counts[name] > 1:
            name, why = (
                _disambiguated(info, name, tool_words, path_naming, known),
                why + "; qualified to tell it from a look-alike",
            )
        if not name[:1].isalpha():  # mapping.schema.json: names start with a letter
            name = f"do_{name}"
        named.append((info, unique_name(fit_name(name, NAME_MAX, keep_last=False), used, NAME_MAX), why))
    confirm = _confirm_value([name for info, name, _ in named if _irreversible(info, name)])
    types: dict[str, str] = {}  # arg name -> json type, across the tool (M207)
    actions = []
    for info, name, why in named:
        # The tool's 'confirm' argument is the confirmation's (M233): no parameter may take that name.
        params = draft_params(info, types, extra_taken={"confirm"} if confirm else set())
        actions.append(
            DraftAction(
                name=name,
                operation=info.reference,
                method=info.op.method,
                path=info.op.path,
                summary=one_line(info.op.summary or first_sentence(short_text(info.op.description, 120))),
                params=tuple(params),
                destructive=info.op.method == "DELETE" or bool(set(name.split("_")) & DESTRUCTIVE_WORDS),
                deprecated=bool(info.op.located.value.get("deprecated")),
                why=why,
                single_record=info.op.method in READ_METHODS and undecided_lists(spec, info.op),
                confirm=confirm if _irreversible(info, name) else None,
                reads_by_post=info.reads_by_post,
                file_answer=file_answer(spec, info.op),
                **_search(spec, info.op, name),
            )
        )
    return actions


def _search(spec: Spec, op: Operation, name: str) -> dict[str, Any]:
    """A POST named for reading (search, list, get, sync) whose body pages it: drafted read-only, so
    it pages like any list (Square's SearchCustomers, Plaid's /transactions/get with its
    options.count and options.offset). Nothing for any other operation."""
    words = set(name.split("_")) | name_words(op.path.rsplit("/", 1)[-1])
    if op.method != "POST" or not words & (READ_VERBS | {"sync"}) or words & CHANGE_VERBS:
        return {}
    paging = body_paging(spec, body_schema(spec, op))
    if not paging:
        return {}
    items = None if derived_list(spec, op) is not None else counted_list(spec, response_schema(spec, op))
    if items is None and derived_list(spec, op) is None:
        return {}  # no list to page: left as it is
    nested = tuple((role, path) for role, path in paging.items() if "." in path)
    return {"search": True, "items": items, "body_paging": nested}


def _irreversible(info: OpInfo, name: str) -> bool:
    """A DELETE, or an action named for what cannot be undone (destroy, purge, remove...)."""
    return info.op.method == "DELETE" or name.split("_", 1)[0] in IRREVERSIBLE_WORDS


def _confirm_value(names: list[str]) -> str | None:
    """The one value a tool's confirm argument takes (M134): CONFIRM_<VERB> when its irreversible
    actions share a verb, else CONFIRM_DELETE."""
    if not names:
        return None
    verbs = {n.split("_", 1)[0] for n in names}
    return f"CONFIRM_{verbs.pop().upper()}" if len(verbs) == 1 else "CONFIRM_DELETE"


def _action_name(
    info: OpInfo, group: Group, tool_words: set[str], path_naming: bool, known: set[str]
) -> tuple[str, str]:
    """A verb, then what it acts on (T2): from the operationId when it is a name that starts with a
    verb, else from the summary's verb and object, else from an operationId that is a name of some other
    shape; from the method and path only when neither says anything more (T7)."""
    op = info.op
    id_words = _id_name(op, tool_words) if op.operation_id and not path_naming and not _raw_id(op) else []
    # 'post' names an action only where the API says it in the path (Slack's /chat.postMessage), not
    # where it is the HTTP method (DigitalOcean's dropletActions_post, "Initiate a Droplet Action").
    said = set(snake_case(re.sub(r"\{[^}]*\}", "/", op.path)).split("_"))
    if id_words and is_verb(id_words[0]) and (id_words[0] not in HTTP_ONLY or id_words[0] in said):
        return "_".join(id_words), f"from operationId '{op.operation_id}'"
    from_summary = _summary_action(info, known)
    if from_summary:
        return from_summary, f"from the summary '{_summary_text(op)}'"
    verb_at = next((i for i, w in enumerate(id_words) if w in TRAILING_VERBS), None)
    # 'balance_get', 'volumes_delete_by_name': the verb after its object goes first; in
    # 'fully_update_project_role' it is not after its object.
    if verb_at and id_words[verb_at + 1 : verb_at + 2] in ([], ["by"], ["for"], ["all"]):
        words = [id_words[verb_at], *id_words[:verb_at], *id_words[verb_at + 1 :]]
        return "_".join(words), f"from operationId '{op.operation_id}', its verb first"
    if id_words and (id_words[0] not in HTTP_ONLY or id_words[0] in said):  # a name the author chose
        return "_".join(id_words), f"from operationId '{op.operation_id}'"
    return _path_name(info, group), f"from {op.method} and the path: neither operationId nor summary names it"


def _summary_text(op: Operation) -> str:
    """The summary a person wrote as a title ("Update folder"); a description is prose ("Returns a
    list of charges you've previously created.") and names nothing well."""
    return one_line(op.summary or "")


def _summary_action(info: OpInfo, known: set[str]) -> str | None:
    """'Add shared link to file' in a files tool -> add_shared_link; 'Get files under retention' (a
    GET of a collection) -> list_files. None when the summary does not start with a verb."""
    op = info.op
    parsed = summary_name(_summary_text(op), known)
    if parsed is None:
        return None
    verb, objects = parsed
    # 'Get files under retention' at /files_under_retention reads a collection: a list. 'Get default
    # attributes for a codespace' at /codespaces/new is one record.
    last = next((snake_case(s).split("_") for s in reversed(info.segments) if not is_param(s)), [])
    plural_object = bool(objects) and singular(objects[-1]) != objects[-1]
    if verb == "get" and op.method == "GET" and plural_object and not is_param((info.segments or ["{}"])[-1]):
        if objects[-1] in last:
            verb = "list"
    return snake_case("_".join([verb, *objects]))


def _raw_id(op: Operation) -> bool:
    """An operationId that is no name: the method and the path, with a method that is no verb or the
    path parameter's 'id' in it ('put_folders_id', 'get_files_id'); 'getInventory' for GET
    /store/inventory is a name."""
    words = snake_case(str(op.operation_id)).split("_")
    return _spells_path(op) and (words[0] in HTTP_ONLY or "id" in words[1:])


def _spells_path(op: Operation) -> bool:
    """Is the operationId the method and the path ('put_folders_id', 'GetCustomersCustomerSources')?"""
    words = snake_case(str(op.operation_id)).split("_")
    path_words = set(snake_case(op.path).split("_"))
    return len(words) >= 2 and words[0] in HTTP_VERBS and all(w in path_words for w in words[1:])


def _id_name(op: Operation, tool_words: set[str]) -> list[str]:
    """'issues/list-comments-for-repo' in tool 'issues_comments' -> ['list', 'for', 'repo']."""
    words = snake_case(str(op.operation_id).rsplit("/", 1)[-1]).split("_")
    # Namespaces in front of the verb ('admin_conversations_list') repeat the tool's name.
    while len(words) > 1 and words[0] in tool_words:
        words.pop(0)
    verb, rest = VERB_SYNONYMS.get(words[0], words[0]), words[1:]
    dropped: list[str] = []
    while rest and (rest[0] in tool_words or rest[0] == "all"):
        dropped.append(rest.pop(0))
    if rest[-2:] == ["by", "id"]:
        rest = rest[:-2]
    # 'getTasksForProject', 'getAllDashboards': a read of a collection is a list.
    segments = path_segments(op.path)
    on_item = bool(segments) and is_param(segments[-1])
    if (
        verb == "get"
        and op.method == "GET"
        and not on_item
        and any(w == "all" or singular(w) != w for w in dropped)
    ):
        verb = "list"
    return [verb, *rest]


def _path_name(info: OpInfo, group: Group) -> str:
    """list/get/create/update/delete from the method and the path's shape, plus the sub-resource."""
    segments = info.segments
    literals = [(i, s) for i, s in enumerate(segments) if not is_param(s)]
    anchored = [i for i, s in literals if snake_case(s) in group.anchor_words]
    start = anchored[-1] if anchored else (literals[0][0] if literals else -1)
    after = [snake_case(s) for i, s in literals if i > start]
    on_item = bool(segments) and is_param(segments[-1])
    method = info.op.method
    if method in READ_METHODS:
        if after and after[-1] in ("search", "find", "query"):
            return "_".join(["search", *after[:-1]])
        if on_item:
            return "_".join(["get", *map(singular, after)])
        return "_".join(["list", *after])
    if method == "DELETE":
        return "_".join(["delete", *map(singular, after)])
    if method in ("PUT", "PATCH") or (method == "POST" and on_item):
        return "_".join(["update", *map(singular, after)])
    if not after:
        return "create"
    last = after[-1]
    if last.endswith("s") and not last.endswith("ss"):
        return "_".join(["create", *after[:-1], singular(last)])
    return "_".join([last, *after[:-1]])  # a verb segment: '/charges/{charge}/capture' -> 'capture'


def _disambiguated(info: OpInfo, name: str, tool_words: set[str], path_naming: bool, known: set[str]) -> str:
    """A longer name for one of several look-alikes: the operationId in full when it is a name, the
    summary's object in full, or the path's scope."""
    op = info.op
    if op.operation_id and not path_naming and not _raw_id(op):
        full = snake_case(op.operation_id.rsplit("/", 1)[-1])
        if full != name:
            return full
    else:
        parsed = summary_name(_summary_text(op), known, whole=True)
        longer = snake_case("_".join([parsed[0], *parsed[1]])) if parsed else name
        if longer != name and longer.startswith(name.split("_", 1)[0]):
            return longer
    literals = [snake_case(s) for s in info.segments if not is_param(s)]
    scope = next((w for w in literals if w not in tool_words), None)
    return f"{name}_for_{singular(scope)}" if scope else name


def ids_spell_paths(operations: Sequence[Operation]) -> bool:
    """Are operationIds just method + path ('GetCustomersCustomerSources')? Then names come from paths."""
    spelled = sum(1 for op in operations if op.operation_id and _spells_path(op))
    with_ids = sum(1 for op in operations if op.operation_id)
    return with_ids > 0 and spelled * 2 > with_ids


def fit_name(stem: str, limit: int, *, keep_last: bool) -> str:
    """Shorten a name to `limit` characters, dropping whole words from the middle first."""
    name = stem.strip("_")
    if not name or not name[0].isalpha():
        name = f"t_{name}"
    words = name.split("_")
    while len("_".join(words)) > limit and len(words) > (2 if keep_last else 1):
        del words[-2 if keep_last else -1]
    name = "_".join(words)
    return name[:limit].rstrip("_")


def unique_name(name: str, used: set[str], limit: int) -> str:
    candidate, counter = name, 2
    while candidate in used:
        tail = f"_{counter}"
        candidate = name[: limit - len(tail)].rstrip("_") + tail
        counter += 1
    used.add(candidate)
    return candidate
