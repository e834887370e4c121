"""`mcpgen init`: draft a mapping file that covers every operation of a spec (T1-T7).

Pure: a loaded `Spec` in, a `Draft` (and its YAML text, see `mapping_yaml.py`) out. The draft groups
operations into task tools by tag, or by resource path when the spec has no tags; splits a big group
by sub-resource; separates reads from changes so read-only tools can say so (S4); names actions after
what they do (list/get/create/update/delete, or the verb of the operationId); renames parameters whose
unit the spec states (T5); and settles the clashes the build would reject (M205-M207). Operations the
generated server cannot call (multipart bodies, M211) stay unmapped, each with its reason.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from mcpgen.authoring.auth_plumbing import plumbing_reason
from mcpgen.authoring.credential_params import inferred_auth, uncovered_credential
from mcpgen.authoring.mapping_yaml import render_draft
from mcpgen.authoring.model import Draft, DraftAction, DraftAuth, DraftParam, DraftTool, Unmapped
from mcpgen.authoring.words import (
    CHANGE_VERBS,
    DESTRUCTIVE_WORDS,
    HTTP_ONLY,
    HTTP_VERBS,
    IRREVERSIBLE_WORDS,
    TRAILING_VERBS,
    VERB_SYNONYMS,
    is_verb,
    looks_random,
    plural,
    singular,
    summary_name,
)
from mcpgen.build.parameters import operation_params
from mcpgen.build.request_parts import non_json_answers

# The build's paging vocabulary: a draft must name parameters the way the build will (M206, M217).
from mcpgen.build.results import (
    _CURSOR_PARAMS,
    _LIMIT_PARAMS,
    _OFFSET_PARAMS,
    _PAGE_PARAMS,
    CURSOR_ARG,
    FORMAT_ARG,
    LIMIT_ARG,
    PAGE_ARG,
    _declares_link_header,
    undecided_lists,
)
from mcpgen.build.schemas import json_type_of, short_text
from mcpgen.build.units import carries, stated_unit, with_unit
from mcpgen.diagnostics import DiagnosticError, Level, rule_name
from mcpgen.load.openapi import Operation, Spec, problems_for
from mcpgen.names import READ_METHODS, RESERVED_ARGS, TOOL_NAME_COMFORT_LENGTH, snake_case

# Group sizes: a group past MAX_GROUP operations is split by sub-resource; a sub-resource with fewer
# than MIN_SUB operations stays in its parent's tool rather than becoming a tool of its own.
MAX_GROUP = 30
MIN_SUB = 5
# Reads and changes become separate tools (readOnlyHint on the read side, S4) when each side has this many.
MIN_SPLIT_SIDE = 4
# Tags group operations when they are coarse (GitHub's 'issues', 'repos'); vendors that tag every
# resource on its own (Twilio: 66 tags for 195 operations) are grouped by path instead.
MIN_MEAN_TAG_SIZE = 8
# Past this many tools the draft turns on on-demand discovery (T3).
DISCOVERY_THRESHOLD = 10
NAME_MAX = 40  # mapping.schema.json: tool and action names
ARG_MAX = 64  # mapping.schema.json: parameter names

_TITLE_STOP_WORDS = frozenset(
    {"the", "a", "an", "api", "apis", "rest", "openapi", "swagger", "official", "v1", "v2", "v3"}
)


Progress = Callable[[int, int], None]


def init_mapping(
    spec: Spec,
    *,
    spec_label: str = "",
    name: str | None = None,
    schema_ref: str | None = None,
    progress: Progress | None = None,
) -> tuple[str, Draft]:
    """The mapping file's text, and the draft it was written from (for a summary)."""
    draft = draft_mapping(spec, spec_label=spec_label, name=name, progress=progress)
    return render_draft(draft, schema_ref=schema_ref), draft


def draft_mapping(
    spec: Spec, *, spec_label: str = "", name: str | None = None, progress: Progress | None = None
) -> Draft:
    """Propose tools for every operation of `spec`. `progress(done, total)` is told about each operation."""
    server_name, name_why = (name, "given with --name") if name else _service_name(spec)
    grouping = _choose_grouping(spec)
    tag_names = _tag_display_names(spec)
    path_naming = _ids_spell_paths(spec.operations)
    id_counts = Counter(op.operation_id for op in spec.operations if op.operation_id)

    infos: list[_OpInfo] = []
    unmapped: list[Unmapped] = []
    total = len(spec.operations)
    for done, op in enumerate(spec.operations, 1):
        # Sign-in plumbing first: a token endpoint that also answers HTML is left out for what it is.
        plumbing = plumbing_reason(spec, op)
        info: _OpInfo | None = None
        problem: Unmapped | None = None
        if plumbing is not None:
            problem = Unmapped(operation=_shown(op), reason=plumbing, deliberate=True)
        else:
            info, problem = _analyse(spec, op, grouping, tag_names, id_counts)
        if info is not None:
            infos.append(info)
        elif problem is not None:
            unmapped.append(problem)
        if progress is not None:
            progress(done, total)

    auths, auth_note, chosen = _auth(spec, server_name)
    if not auths:
        auths, auth_note, infos, unmapped = _auth_from_params(spec, server_name, infos, unmapped, auth_note)
    elif chosen:
        infos, unmapped = _served_by(spec, chosen, infos, unmapped)
    limit = min(NAME_MAX, TOOL_NAME_COMFORT_LENGTH - len(server_name) - 1)
    groups = _split_groups(_group(infos))
    tools = _tools(groups, spec, server_name, limit, path_naming, tag_descriptions=_tag_descriptions(spec))
    return Draft(
        spec_label=spec_label,
        operation_count=total,
        server_name=server_name,
        server_name_why=name_why,
        grouping_why=grouping.why,
        title=spec.title or server_name,
        description=_server_description(spec),
        base_url=_base_url(spec),
        auth=auths[0] if auths else None,
        extra_auth=auths[1:],
        auth_note=auth_note,
        discovery=len(tools) > DISCOVERY_THRESHOLD,
        tools=tuple(tools),
        unmapped=tuple(unmapped),
    )


# --- one operation ---------------------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class _OpInfo:
    op: Operation
    reference: str
    segments: list[str]  # path words, see _segments
    group: str  # snake_case key
    group_label: str  # as the spec writes it, for descriptions
    group_why: str
    params: list[Any]  # build's operation parameters
    units: dict[tuple[str, str], str] = field(default_factory=dict)  # (wire, location) -> x-unit
    link_paged: bool = False  # a read whose answer has a Link header: the build may page by it

    @property
    def is_read(self) -> bool:
        # Some specs change things with GET (Slack's 'auth.revoke'): the operation's verb decides too.
        return self.op.method in READ_METHODS and _verb(self.op, self.group) not in CHANGE_VERBS


def _analyse(
    spec: Spec,
    op: Operation,
    grouping: _Grouping,
    tag_names: dict[str, str],
    id_counts: Counter[str],
) -> tuple[_OpInfo | None, Unmapped | None]:
    # An operationId with control characters cannot be written back as it is: use METHOD /path.
    printable_id = op.operation_id if op.operation_id and op.operation_id.isprintable() else None
    reference = printable_id if printable_id and id_counts[printable_id] == 1 else op.key
    try:
        params, _, problems = operation_params(spec, op)
        problems += [d for d in problems_for(spec, [op]) if d.level >= Level.ERROR]  # invalid parts it uses
        units = _x_units(spec, op)
        link_paged = op.method in READ_METHODS and _declares_link_header(spec, op)
    except DiagnosticError as exc:  # an unresolvable $ref in this operation only
        return None, Unmapped(operation=_shown(op), reason=exc.diagnostics[0].message)
    if problems:
        return None, Unmapped(operation=_shown(op), reason=f"{problems[0].message} ({problems[0].code})")
    unreadable = non_json_answers(spec, op)
    if unreadable:
        return None, Unmapped(
            operation=_shown(op),
            reason=f"{op.key} answers {', '.join(unreadable[:3])} only; generated servers read JSON answers (M218)",
        )
    segments = _segments(op.path)
    tag = _first_tag(op) if grouping.by_tags else None
    if tag:
        label = tag_names.get(tag, tag)
        group, why = snake_case(label), f"tag '{tag}'"
    else:
        literal = grouping.path_key(segments)
        group, label, why = snake_case(literal), literal.replace("_", " "), f"path '{literal}'"
    return (
        _OpInfo(
            op=op,
            reference=reference,
            segments=segments,
            group=group,
            group_label=label,
            group_why=why,
            params=params,
            units=units,
            link_paged=link_paged,
        ),
        None,
    )


@dataclass(frozen=True, slots=True)
class _Grouping:
    by_tags: bool
    scopes: frozenset[str]  # leading path words most operations sit under ('Accounts/{AccountSid}')
    why: str

    def path_key(self, segments: list[str]) -> str:
        literals = [s for s in segments if not _is_param(s)]
        if len(literals) > 1 and literals[0] in self.scopes:
            return literals[1]
        return literals[0] if literals else "root"


def _choose_grouping(spec: Spec) -> _Grouping:
    operations = spec.operations
    tags = Counter(t for op in operations if (t := _first_tag(op)))
    tagged = sum(tags.values())
    if tags and tagged * 2 >= len(operations) and tagged / len(tags) >= MIN_MEAN_TAG_SIZE:
        return _Grouping(
            True,
            frozenset(),
            f"by tag ({len(tags)} tags, {tagged / len(tags):.0f} operations each on average)",
        )
    firsts: Counter[str] = Counter()
    for op in operations:
        segments = _segments(op.path)
        if len(segments) > 1 and not _is_param(segments[0]) and _is_param(segments[1]):
            firsts[segments[0]] += 1
    scopes = frozenset(w for w, n in firsts.items() if n * 10 > len(operations) * 6)
    reason = (
        f"the spec's {len(tags)} tags average {tagged / len(tags):.0f} operations"
        if tags
        else "the spec has no tags"
    )
    scoped = f"; '{', '.join(sorted(scopes))}' scopes most paths and is skipped" if scopes else ""
    return _Grouping(False, scopes, f"by path ({reason}){scoped}")


def _verb(op: Operation, group: str) -> str:
    """The operationId's first word after the group's own words ('auth_revoke' in 'auth' -> 'revoke')."""
    if not op.operation_id:
        return ""
    words = snake_case(op.operation_id.rsplit("/", 1)[-1]).split("_")
    own = _name_words(group)
    while len(words) > 1 and words[0] in own:
        words.pop(0)
    return words[0]


def _shown(op: Operation) -> str:
    return op.key + (f" ({op.operation_id})" if op.operation_id else "")


def _first_tag(op: Operation) -> str | None:
    tags = op.located.value.get("tags")
    if isinstance(tags, list) and tags and isinstance(tags[0], str) and tags[0].strip():
        return tags[0].strip()
    return None


_VERSION_SEGMENT = re.compile(r"^(?:v\d+(?:\.\d+)*|\d[\d.-]*|api|rest)$", re.IGNORECASE)


def _segments(path: str) -> list[str]:
    """Path words: version segments dropped ('/rest/api/3', '/2010-04-01'), '.json' dropped, dotted
    method names split ('/admin.users.list' -> admin, users, list), a '#fragment' that tells operations
    on one path apart dropped, and so are identifiers pasted into a word (box.com.json
    '/metadata/enterprise/securityClassification-6VMVochwUWo')."""
    out: list[str] = []
    for segment in path.split("#", 1)[0].strip("/").split("/"):
        segment = re.sub(r"\.json$", "", segment)
        if "{" not in segment:  # 'securityClassification-6VMVochwUWo' -> 'securityClassification'
            segment = "-".join(p for p in re.split(r"(?<=[^-])-", segment) if not looks_random(p))
        if not segment or _VERSION_SEGMENT.match(segment):
            continue
        if "." in segment and "{" not in segment:
            out.extend(part for part in segment.split(".") if part)
        else:
            out.append(segment)
    return out


def _is_param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def _tag_display_names(spec: Spec) -> dict[str, str]:
    """Tags without a prefix all of them share ('Api20100401Recording' -> 'Recording')."""
    tags = sorted({t for op in spec.operations if (t := _first_tag(op))})
    if len(tags) < 2:
        return {t: t for t in tags}
    shared = tags[0]
    for tag in tags[1:]:
        while not tag.startswith(shared):
            shared = shared[:-1]
    # Only a prefix that ends where a new word starts, and leaves something of every tag.
    while shared and not all(
        len(t) > len(shared) and (t[len(shared)].isupper() or not t[len(shared)].isalnum()) for t in tags
    ):
        shared = shared[:-1]
    if len(shared) < 3:
        return {t: t for t in tags}
    return {t: t[len(shared) :].strip(" ._-") for t in tags}


def _tag_descriptions(spec: Spec) -> dict[str, str]:
    found = {}
    for tag in spec.document.data.get("tags") or ():
        if isinstance(tag, dict) and isinstance(tag.get("name"), str) and tag.get("description"):
            found[tag["name"]] = _first_sentence(short_text(str(tag["description"]), 200))
    return found


def _x_units(spec: Spec, op: Operation) -> dict[tuple[str, str], str]:
    """`x-unit` values, which the simplified schemas drop, by (wire name, location)."""
    found: dict[tuple[str, str], str] = {}
    for located in op.parameters:
        raw = located.value
        schema = raw.get("schema")
        if isinstance(schema, dict) and "$ref" in schema:
            schema = spec.resolver.deref(located.child("schema")).value
        for holder in (raw, schema):
            if isinstance(holder, dict) and isinstance(holder.get("x-unit"), str):
                found[(str(raw.get("name")), str(raw.get("in")))] = holder["x-unit"]
    body = op.request_body
    content = body.value.get("content") if body is not None else None
    if isinstance(content, dict):
        for media, entry in content.items():
            if not (isinstance(entry, dict) and isinstance(entry.get("schema"), dict)):
                continue
            schema = spec.resolver.deref(body.child("content", media, "schema")).value  # type: ignore[union-attr]
            properties = schema.get("properties") if isinstance(schema, dict) else None
            for prop_name, prop in (properties or {}).items():
                if isinstance(prop, dict) and isinstance(prop.get("x-unit"), str):
                    found[(prop_name, "body")] = prop["x-unit"]
            break
    return found


# --- grouping --------------------------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class _Group:
    key: str  # tool name stem: 'issues' or 'issues_comments'
    label: str  # for descriptions: 'issues' or 'issue comments'
    tag_label: str  # the top-level group as the spec names it
    anchor_words: tuple[str, ...]  # path words the group is named after; names start after them
    why: str
    members: list[_OpInfo]


def _group(infos: list[_OpInfo]) -> list[_Group]:
    by_key: dict[str, list[_OpInfo]] = defaultdict(list)
    for info in infos:
        by_key[info.group].append(info)
    return [
        _Group(
            key=key,
            label=re.sub(r"[-_.]+", " ", members[0].group_label).lower(),
            tag_label=members[0].group_label,
            anchor_words=_word_forms(key),
            why=f"{members[0].group_why}, {len(members)} operation{'s' if len(members) != 1 else ''}",
            members=members,
        )
        for key, members in by_key.items()
    ]


def _split_groups(groups: list[_Group], depth: int = 0) -> list[_Group]:
    """Split groups past MAX_GROUP by the sub-resource after the group's own path word."""
    out: list[_Group] = []
    for group in groups:
        if len(group.members) <= MAX_GROUP or depth >= 2:
            out.append(group)
            continue
        subs: dict[str, list[_OpInfo]] = defaultdict(list)
        for info in group.members:
            subs[_sub_resource(info.segments, group.anchor_words) or ""].append(info)
        kept = [i for s, members in subs.items() if not s or len(members) < MIN_SUB for i in members]
        parts = {s: members for s, members in subs.items() if s and len(members) >= MIN_SUB}
        if not parts:
            out.append(group)
            continue
        if kept:
            out.append(
                _Group(
                    key=group.key,
                    label=group.label,
                    tag_label=group.tag_label,
                    anchor_words=group.anchor_words,
                    why=group.why + f"; {len(kept)} of them directly on {group.label}",
                    members=kept,
                )
            )
        for sub, members in parts.items():
            sub_key = snake_case(sub)
            out.extend(
                _split_groups(
                    [
                        _Group(
                            key=f"{group.key}_{sub_key}",
                            label=f"{singular(group.label)} {re.sub(r'[-_.]+', ' ', sub).lower()}",
                            tag_label=group.tag_label,
                            anchor_words=_word_forms(sub_key),
                            why=group.why + f"; split by path: the {len(members)} under '{sub}'",
                            members=members,
                        )
                    ],
                    depth + 1,
                )
            )
    return out


def _sub_resource(segments: list[str], anchor_words: tuple[str, ...]) -> str | None:
    """The first literal segment after the group's own word ('/repos/{o}/{r}/issues/{n}/comments' -> 'comments')."""
    literals = [(i, s) for i, s in enumerate(segments) if not _is_param(s)]
    anchored = [i for i, s in literals if snake_case(s) in anchor_words]
    if anchored:
        after = [s for i, s in literals if i > anchored[-1]]
        return after[0] if after else None
    # The group's word is not in the path: the resource acted on is the last literal segment.
    return literals[-1][1] if len(literals) > 1 else None


def _word_forms(key: str) -> tuple[str, ...]:
    """How a path segment may spell the group: 'issue_comments' -> issue_comments, comment, comments, ..."""
    last = key.rsplit("_", 1)[-1]
    return tuple(sorted({key, singular(key), plural(key), last, singular(last), plural(last)}))


def _name_words(key: str) -> set[str]:
    """Every word of a tool's name, singular and plural: an action name need not repeat them."""
    return {form for word in key.split("_") if word for form in (word, singular(word), plural(word))}


# --- tools -----------------------------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class _Side:
    kind: str  # 'find' | 'change' | 'all'
    group: _Group
    members: list[_OpInfo]
    name: str = ""


def _tools(
    groups: list[_Group],
    spec: Spec,
    server: str,
    limit: int,
    path_naming: bool,
    tag_descriptions: dict[str, str],
) -> list[DraftTool]:
    sides: list[_Side] = []
    for group in groups:
        reads = [i for i in group.members if i.is_read]
        writes = [i for i in group.members if not i.is_read]
        if len(reads) >= MIN_SPLIT_SIDE and len(writes) >= MIN_SPLIT_SIDE:
            sides += [
                _Side(kind="find", group=group, members=reads),
                _Side(kind="change", group=group, members=writes),
            ]
        elif not writes or not reads:
            # One side only: still named for it, so the name says whether the tool changes anything.
            sides.append(_Side(kind="change" if writes else "find", group=group, members=group.members))
        else:
            sides.append(_Side(kind="all", group=group, members=group.members))
    used: set[str] = set()
    for side in sides:
        stem = side.group.key if side.kind == "all" else f"{side.group.key}_{side.kind}"
        side.name = _unique(_fit(stem, limit, keep_last=side.kind != "all"), used, limit)
    siblings = {(id(s.group), s.kind): s.name for s in sides}
    api = _api_name(spec, server)
    api_words = _name_words(snake_case(api)) | {server}
    tools = []
    for side in sides:
        other = siblings.get((id(side.group), "change" if side.kind == "find" else "find"))
        actions = _actions(side, path_naming, spec, api_words)
        description = _tool_description(
            side,
            api,
            f"{server}_{other}" if other and side.kind != "all" else None,
            tag_descriptions.get(_first_tag(side.members[0].op) or ""),
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


def _fit(stem: str, limit: int, *, keep_last: bool) -> str:
    """Shorten a name to `limit` characters, dropping whole words from the middle first."""
    name = stem.strip("_")
    if not name or not name[0].isalpha():
        name = f"t_{name}"
    words = name.split("_")
    while len("_".join(words)) > limit and len(words) > (2 if keep_last else 1):
        del words[-2 if keep_last else -1]
    name = "_".join(words)
    return name[:limit].rstrip("_")


def _unique(name: str, used: set[str], limit: int) -> str:
    candidate, counter = name, 2
    while candidate in used:
        tail = f"_{counter}"
        candidate = name[: limit - len(tail)].rstrip("_") + tail
        counter += 1
    used.add(candidate)
    return candidate


def _title(side: _Side) -> str:
    label = side.group.label
    if side.kind == "find":
        return f"Find {plural(label)}"
    if side.kind == "change":
        return f"Change {plural(label)}"
    return label[:1].upper() + label[1:]


def _tool_description(
    side: _Side, api: str, sibling: str | None, tag_description: str | None, actions: list[DraftAction]
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
        sentences.append("Returns the API's JSON; long lists come a page at a time.")
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
        sentences.append("Returns the API's JSON response, usually the record changed.")
    return " ".join(sentences)


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


# --- actions ---------------------------------------------------------------------------------------


def _actions(side: _Side, path_naming: bool, spec: Spec, api_words: set[str]) -> list[DraftAction]:
    tool_words = _name_words(side.group.key) | _name_words(snake_case(side.group.tag_label))
    known = tool_words | api_words  # words a summary's object need not repeat: the tool's, the API's
    proposals = [
        (info, *_action_name(info, side.group, tool_words, path_naming, known)) for info in side.members
    ]
    counts = Counter(name for _, name, _ in proposals)
    used: set[str] = set()
    named: list[tuple[_OpInfo, str, str]] = []
    for info, name, why in proposals:
        if counts[name] > 1:
            name, why = (
                _disambiguated(info, name, side.group, tool_words, path_naming, known),
                why + "; qualified to tell it from a look-alike",
            )
        if not name[:1].isalpha():  # mapping.schema.json: names start with a letter
            name = f"do_{name}"
        named.append((info, _unique(_fit(name, NAME_MAX, keep_last=False), used, NAME_MAX), why))
    confirm = _confirm_value([name for info, name, _ in named if _irreversible(info, name)])
    types: dict[str, str] = {}  # arg name -> json type, across the tool (M207)
    actions = []
    for info, name, why in named:
        # The tool's 'confirm' argument is the confirmation's (M233): no parameter may take that name.
        params = _draft_params(info, types, extra_taken={"confirm"} if confirm else set())
        actions.append(
            DraftAction(
                name=name,
                operation=info.reference,
                method=info.op.method,
                path=info.op.path,
                summary=_one_line(info.op.summary or _first_sentence(short_text(info.op.description, 120))),
                params=tuple(params),
                destructive=info.op.method == "DELETE" or bool(set(name.split("_")) & DESTRUCTIVE_WORDS),
                deprecated=bool(info.op.located.value.get("deprecated")),
                why=why,
                single_record=info.op.method in READ_METHODS and undecided_lists(spec, info.op),
                confirm=confirm if _irreversible(info, name) else None,
            )
        )
    return actions


def _irreversible(info: _OpInfo, name: str) -> bool:
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
    info: _OpInfo, group: _Group, tool_words: set[str], path_naming: bool, known: set[str]
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
    return _one_line(op.summary or "")


def _summary_action(info: _OpInfo, known: set[str]) -> str | None:
    """'Add shared link to file' in a files tool -> add_shared_link; 'Get files under retention' (a
    GET of a collection) -> list_files. None when the summary does not start with a verb."""
    op = info.op
    parsed = summary_name(_summary_text(op), known)
    if parsed is None:
        return None
    verb, objects = parsed
    # 'Get files under retention' at /files_under_retention reads a collection: a list. 'Get default
    # attributes for a codespace' at /codespaces/new is one record.
    last = next((snake_case(s).split("_") for s in reversed(info.segments) if not _is_param(s)), [])
    plural_object = bool(objects) and singular(objects[-1]) != objects[-1]
    if (
        verb == "get"
        and op.method == "GET"
        and plural_object
        and not _is_param((info.segments or ["{}"])[-1])
    ):
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
    segments = _segments(op.path)
    on_item = bool(segments) and _is_param(segments[-1])
    if (
        verb == "get"
        and op.method == "GET"
        and not on_item
        and any(w == "all" or singular(w) != w for w in dropped)
    ):
        verb = "list"
    return [verb, *rest]


def _path_name(info: _OpInfo, group: _Group) -> str:
    """list/get/create/update/delete from the method and the path's shape, plus the sub-resource."""
    segments = info.segments
    literals = [(i, s) for i, s in enumerate(segments) if not _is_param(s)]
    anchored = [i for i, s in literals if snake_case(s) in group.anchor_words]
    start = anchored[-1] if anchored else (literals[0][0] if literals else -1)
    after = [snake_case(s) for i, s in literals if i > start]
    on_item = bool(segments) and _is_param(segments[-1])
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


def _disambiguated(
    info: _OpInfo, name: str, group: _Group, tool_words: set[str], path_naming: bool, known: set[str]
) -> str:
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
    literals = [snake_case(s) for s in info.segments if not _is_param(s)]
    scope = next((w for w in literals if w not in tool_words), None)
    return f"{name}_for_{singular(scope)}" if scope else name


def _ids_spell_paths(operations: Sequence[Operation]) -> bool:
    """Are operationIds just method + path ('GetCustomersCustomerSources')? Then names come from paths."""
    spelled = sum(1 for op in operations if op.operation_id and _spells_path(op))
    with_ids = sum(1 for op in operations if op.operation_id)
    return with_ids > 0 and spelled * 2 > with_ids


# --- parameters ------------------------------------------------------------------------------------


def _draft_params(info: _OpInfo, tool_types: dict[str, str], extra_taken: set[str]) -> list[DraftParam]:
    """Renames for units (T5) and for the clashes the build rejects (M205 reserved, M206, M207, M217,
    M233 the confirmation's own argument)."""
    params = info.params
    wire_counts = Counter(p.wire_name for p in params)
    roles = _paging_roles(info)
    # A paging parameter is called page, limit or cursor once the build pages the list, and keeps its
    # own name otherwise: both names stay free for it, and the other parameters keep off them.
    taken: set[str] = {n for (wire, _), owned in roles.items() for n in (owned, snake_case(wire))}
    owned_names = _server_owned(info, roles)
    out: list[DraftParam] = []
    for param in params:
        base = snake_case(param.wire_name)
        role = roles.get((param.wire_name, param.location))
        own = {role, base} if role else set()
        others = taken - own
        name, why = base, ""
        hint = stated_unit(param.schema, param.description, info.units.get((param.wire_name, param.location)))
        if hint is not None and not carries(name, hint.unit):
            name, why = (
                with_unit(name, hint.unit),
                f"unit in the name ({rule_name('T5')}): the spec says {hint.evidence}",
            )
        if name in RESERVED_ARGS:
            name, why = f"{name}_value", f"'{name}' is the tool's own action argument (M205)"
        if name in extra_taken:
            where = "body" if param.location == "body_whole" else param.location
            name, why = (
                f"{where}_{name}",
                f"'{name}' is the argument that confirms an action that cannot be undone (M233)",
            )
        if role is None and name in owned_names:
            where = "body" if param.location == "body_whole" else param.location
            name, why = (
                f"{where}_{name}",
                f"'{name}' is the server's own paging or response_format argument (M217)",
            )
        if name in others:
            where = "body" if param.location == "body_whole" else param.location
            name, why = f"{where}_{name}", f"another parameter of this operation is also '{name}' (M206)"
        type_ = json_type_of(param.schema)
        # An unnamed limit is called 'limit' by the build; page and cursor always are, whatever the draft says.
        seen_as = role if role is not None and (name == base or role != LIMIT_ARG) else name
        if seen_as in tool_types and tool_types[seen_as] != type_ and role in (None, LIMIT_ARG):
            name, why = (
                _typed_name(name, type_, tool_types),
                (
                    f"'{seen_as}' is {tool_types[seen_as]} in another action of this tool, {type_} here; "
                    f"one tool has one flat parameter set ({rule_name('T2')}, M207)"
                ),
            )
        name = _free(name[:ARG_MAX].rstrip("_"), others, type_, tool_types)
        taken.add(name)
        tool_types.setdefault(name, type_)
        if role is not None and name == base:
            tool_types.setdefault(role, type_)
        if name != base:
            out.append(DraftParam(key=_param_key(param, wire_counts), name=name, why=why or "renamed"))
    return out


# The build's names for each paging role, most common first, and what it calls the chosen one.
_ROLES = ((_PAGE_PARAMS, PAGE_ARG), (_LIMIT_PARAMS, LIMIT_ARG), (_CURSOR_PARAMS, CURSOR_ARG))


def _paging_roles(info: _OpInfo) -> dict[tuple[str, str], str]:
    """For a read: the query parameters the build may rename for paging, each with its paging name.
    The build picks the first of its candidate names the operation has, as this does."""
    if info.op.method not in READ_METHODS:
        return {}
    query = {p.wire_name for p in info.params if p.location == "query"}
    roles = {}
    for candidates, owned in _ROLES:
        chosen = next((name for name in candidates if name in query), None)
        if chosen is not None:
            roles[(chosen, "query")] = owned
    return roles


def _server_owned(info: _OpInfo, roles: dict[tuple[str, str], str]) -> set[str]:
    """The argument names the build may give a read action itself (M217): response_format always, and
    page, limit or cursor where the operation can page that way. Elsewhere those names stay free, so
    Twilio's `Page` is still `page` when nothing pages by it."""
    if info.op.method not in READ_METHODS:
        return set()
    owned = {FORMAT_ARG, *roles.values()}
    query = {p.wire_name for p in info.params if p.location == "query"}
    if any(name in query for name in _OFFSET_PARAMS):
        owned.add(PAGE_ARG)  # offset paging: the server takes `page` and computes the offset
    if info.link_paged:
        owned.add(CURSOR_ARG)  # Link-header paging: the server takes `cursor`
    return owned


_TYPE_WORDS = {
    "string": "text",
    "integer": "number",
    "number": "number",
    "boolean": "flag",
    "object": "object",
}


def _typed_name(name: str, type_: str, tool_types: dict[str, str]) -> str:
    word = "list" if type_.startswith("array") else _TYPE_WORDS.get(type_, "value")
    candidate = f"{name}_{word}"
    counter = 2
    while candidate in tool_types and tool_types[candidate] != type_:
        candidate = f"{name}_{word}_{counter}"
        counter += 1
    return candidate


def _free(name: str, taken: set[str], type_: str, tool_types: dict[str, str]) -> str:
    """`name`, or `name_2`, ... : unused in this operation and not a different type elsewhere in the tool."""
    candidate, counter = name, 2
    while candidate in taken or candidate in RESERVED_ARGS or tool_types.get(candidate, type_) != type_:
        candidate = f"{name[: ARG_MAX - 3]}_{counter}"
        counter += 1
    return candidate


def _param_key(param: Any, wire_counts: Counter[str]) -> str:
    """The mapping key: the wire name, qualified with the location when it would be ambiguous."""
    location = "body" if param.location == "body_whole" else param.location
    if wire_counts[param.wire_name] > 1 or "." in param.wire_name:
        return f"{location}.{param.wire_name}"
    return str(param.wire_name)


# --- server ----------------------------------------------------------------------------------------


def _service_name(spec: Spec) -> tuple[str, str]:
    for word in re.split(r"[^A-Za-z0-9']+", spec.title):
        word = re.sub(r"'s?$", "", word).lower()
        if word and word not in _TITLE_STOP_WORDS and word[0].isalpha():
            return _server_name(word), f"from the spec title '{spec.title}'"
    for url in spec.servers:
        host = re.sub(r"^https?://", "", url).split("/")[0].split(":")[0]
        parts = [p for p in host.split(".") if p not in ("www", "api", "app", "com", "io", "net", "org")]
        if parts and parts[0][:1].isalpha():
            return _server_name(parts[0]), f"from the server URL {url}"
    return "api", "no usable title or server URL in the spec"


def _api_name(spec: Spec, server: str) -> str:
    """How descriptions name the API: the title's first real word as written ('GitHub', 'Jira')."""
    for word in re.split(r"[^A-Za-z0-9']+", spec.title):
        bare = re.sub(r"'s?$", "", word)
        if bare and bare.lower() not in _TITLE_STOP_WORDS and bare[0].isalpha():
            return bare
    return server


def _server_name(word: str) -> str:
    name = re.sub(r"[^a-z0-9_]", "", word.lower())[:20]
    return name if name and name[0].isalpha() else "api"


def _server_description(spec: Spec) -> str:
    text = _first_sentence(short_text(spec.description, 300)) if spec.description else ""
    return text or f"Tools for the {spec.title or 'upstream'} API."


def _base_url(spec: Spec) -> str | None:
    for url in spec.servers:
        if url.startswith(("http://", "https://")) and "{" not in url:
            return url
    return None


def _served_by(
    spec: Spec, chosen: tuple[str, ...], infos: list[_OpInfo], unmapped: list[Unmapped]
) -> tuple[list[_OpInfo], list[Unmapped]]:
    """Operations whose security the drafted auth meets; the others stay unmapped, with why: the server
    sends one set of credentials to every operation (obono.at.json GET /auth takes basicAuth alone,
    every other operation jwt)."""
    schemes = spec.security_schemes()
    kept: list[_OpInfo] = []
    for info in infos:
        wanted = _requirements(spec, info.op)
        # An OAuth2 requirement stays drafted: the draft leaves it to the user which token to set
        # (the petstore's petstore_auth beside its api_key).
        oauth = any(_scheme_rank(schemes.get(n)) == 3 for r in wanted for n in r)
        if not wanted or oauth or any(set(r) <= set(chosen) for r in wanted):
            kept.append(info)
            continue
        needs = " or ".join(" and ".join(f"securitySchemes.{n}" for n in r) for r in wanted)
        sends = " and ".join(f"securitySchemes.{n}" for n in chosen)
        reason = (
            f"needs {needs}, and the server sends {sends} to every operation; map it in a server of its "
            f"own whose auth sends that ({rule_name('P3')})"
        )
        unmapped = [*unmapped, Unmapped(operation=_shown(info.op), reason=reason)]
    return kept, unmapped


def _auth(spec: Spec, server: str) -> tuple[tuple[DraftAuth, ...], str | None, tuple[str, ...]]:
    """The credentials the server sends: of the security requirements whose schemes the server can all
    send (several schemes in one requirement are needed together: a key and a client id), one without
    OAuth2 if there is one, then the one most operations accept, ties going to bearer, then api key, then
    basic. Without any requirement in the spec, the best-ranked scheme. Also the chosen requirement's
    scheme names (none when the spec states no requirement to choose from)."""
    schemes = spec.security_schemes()
    ranks = {name: rank for name, scheme in schemes.items() if (rank := _scheme_rank(scheme)) is not None}
    if not ranks:
        if schemes:
            return (
                (),
                f"the spec's security schemes ({', '.join(sorted(schemes))}) are not ones the server can send",
                (),
            )
        return (), "the spec declares no security schemes; add `auth:` if the API needs credentials", ()
    coverage: Counter[tuple[str, ...]] = Counter()
    for operation in spec.operations:
        for requirement in _requirements(spec, operation):
            if requirement and all(name in ranks for name in requirement):
                coverage[requirement] += 1
    if coverage:
        # Credentials a user can simply hold (a token, a key, a password) before OAuth flows; then the
        # requirement most operations accept.
        chosen = min(
            coverage,
            key=lambda r: (max(ranks[n] for n in r) == 3, -coverage[r], max(ranks[n] for n in r), len(r)),
        )
    else:
        chosen = (min(ranks, key=lambda n: ranks[n]),)
    env_stem = server.upper()
    together = len(chosen) > 1
    drafted = [
        _draft_auth(
            name, schemes[name], ranks[name], env_stem, f"{env_stem}_{_env_word(name)}" if together else None
        )
        for name in chosen
    ]
    if together:
        both = " and ".join(f"securitySchemes.{n}" for n in chosen)
        drafted = [replace(d, why=f"{d.why}; the spec needs {both} together") for d in drafted]
    return tuple(drafted), None, tuple(chosen) if coverage else ()


def _auth_from_params(
    spec: Spec, server: str, infos: list[_OpInfo], unmapped: list[Unmapped], note: str | None
) -> tuple[tuple[DraftAuth, ...], str | None, list[_OpInfo], list[Unmapped]]:
    """No scheme the server can send: the credential parameters most operations take become `auth`
    (credential_params.py), and operations needing another credential stay unmapped, with why."""
    auths = inferred_auth(spec, [i.op for i in infos], server)
    if not auths:
        return (), note, infos, unmapped
    kept: list[_OpInfo] = []
    for info in infos:
        why = uncovered_credential(spec, info.op, auths)
        if why is None:
            kept.append(info)
        else:
            unmapped = [*unmapped, Unmapped(operation=_shown(info.op), reason=why)]
    return auths, None, kept, unmapped


def _scheme_rank(scheme: Any) -> int | None:
    if not isinstance(scheme, dict):
        return None
    kind, http = scheme.get("type"), str(scheme.get("scheme", "")).lower()
    if kind == "http" and http == "bearer":
        return 0
    if kind == "apiKey" and scheme.get("in") in ("header", "query") and scheme.get("name"):
        return 1
    if kind == "http" and http == "basic":
        return 2
    if kind in ("oauth2", "openIdConnect"):
        return 3
    return None


def _requirements(spec: Spec, operation: Operation) -> list[tuple[str, ...]]:
    """The operation's security requirements (its own, else the spec's), each as its scheme names."""
    own = operation.located.value.get("security")
    listed = own if isinstance(own, list) else spec.document.data.get("security")
    if not isinstance(listed, list):
        return []
    return [tuple(sorted(r)) for r in listed if isinstance(r, dict)]


def _env_word(scheme_name: str) -> str:
    return (re.sub(r"[^A-Za-z0-9]+", "_", snake_case(scheme_name)).strip("_").upper() or "CREDENTIAL")[:40]


def _draft_auth(name: str, scheme: dict[str, Any], rank: int, env_stem: str, env: str | None) -> DraftAuth:
    why = f"from securitySchemes.{name}"
    if rank == 1:
        return DraftAuth(
            type="api_key",
            env=env or f"{env_stem}_API_KEY",
            location=scheme["in"],
            name=str(scheme["name"]),
            why=why,
        )
    if rank == 2:
        return DraftAuth(
            type="basic",
            env=env or f"{env_stem}_CREDENTIALS",
            location=None,
            name=None,
            why=why + " ('user:password')",
        )
    if rank == 3:
        why += f" ({scheme['type']}: get a token elsewhere and set it; the server sends it as a bearer token)"
    return DraftAuth(type="bearer", env=env or f"{env_stem}_TOKEN", location=None, name=None, why=why)


# --- text helpers ----------------------------------------------------------------------------------


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    for end in (". ", "! ", "? "):
        if end in text:
            return text[: text.index(end) + 1]
    return text if not text or text.endswith((".", "!", "?")) else text + "."


def _one_line(text: str) -> str:
    return " ".join(text.split())
