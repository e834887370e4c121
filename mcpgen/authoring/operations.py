"""One operation of the spec, as the draft sees it: its reference, path words, group and parameters.

`analyse` reads an operation the way the build will (its parameters, the problems that keep it from
being generated, the answers it cannot read) and places it in a group: its first tag when the spec's
tags are coarse, else its resource path (`choose_grouping`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mcpgen.authoring.model import Unmapped
from mcpgen.authoring.rpc_reads import reads_by_post
from mcpgen.authoring.words import CHANGE_VERBS, looks_random, name_words
from mcpgen.build.answers import declares_link_header, stream_answers
from mcpgen.build.parameters import operation_params
from mcpgen.diagnostics import DiagnosticError, Level
from mcpgen.load.openapi import Operation, Spec, problems_for
from mcpgen.names import READ_METHODS, snake_case

# Tags group operations when they are coarse (GitHub's 'issues', 'repos'); vendors that tag every
# resource on its own (Twilio: 66 tags for 195 operations) are grouped by path instead.
MIN_MEAN_TAG_SIZE = 8


@dataclass(slots=True, kw_only=True)
class OpInfo:
    op: Operation
    reference: str
    segments: list[str]  # path words, see path_segments
    group: str  # snake_case key
    group_label: str  # as the spec writes it, for descriptions
    group_why: str
    params: list[Any]  # build's operation parameters
    units: dict[tuple[str, str], str] = field(default_factory=dict)  # (wire, location) -> x-unit
    link_paged: bool = False  # a read whose answer has a Link header: the build may page by it
    sends_files: bool = False  # a multipart or octet-stream body: the agent passes files

    reads_by_post: bool = False  # a read of an RPC-style API, sent by POST (rpc_reads.py)

    @property
    def is_read(self) -> bool:
        # Some specs change things with GET (Slack's 'auth.revoke'): the operation's verb decides too.
        if self.reads_by_post:
            return True
        return self.op.method in READ_METHODS and _verb(self.op, self.group) not in CHANGE_VERBS


def analyse(
    spec: Spec,
    op: Operation,
    grouping: Grouping,
    tag_names: dict[str, str],
    id_counts: Counter[str],
) -> tuple[OpInfo | None, Unmapped | None]:
    # An operationId with control characters cannot be written back as it is: use METHOD /path.
    printable_id = op.operation_id if op.operation_id and op.operation_id.isprintable() else None
    reference = printable_id if printable_id and id_counts[printable_id] == 1 else op.key
    try:
        params, encoding, problems = operation_params(spec, op)
        problems += [d for d in problems_for(spec, [op]) if d.level >= Level.ERROR]  # invalid parts it uses
        units = _x_units(spec, op)
        link_paged = op.method in READ_METHODS and declares_link_header(spec, op)
    except DiagnosticError as exc:  # an unresolvable $ref in this operation only
        return None, Unmapped(operation=shown(op), reason=exc.diagnostics[0].message)
    if problems:
        return None, Unmapped(operation=shown(op), reason=f"{problems[0].message} ({problems[0].code})")
    unreadable = stream_answers(spec, op)
    if unreadable:
        return None, Unmapped(
            operation=shown(op),
            reason=f"{op.key} answers {', '.join(unreadable[:3])} only, a stream that does not end; generated "
            "servers read each answer to its end (M218)",
        )
    segments = path_segments(op.path)
    tag = first_tag(op) if grouping.by_tags else None
    if tag:
        label = tag_names.get(tag, tag)
        group, why = snake_case(label), f"tag '{tag}'"
    else:
        literal = grouping.path_key(segments)
        group, label, why = snake_case(literal), literal.replace("_", " "), f"path '{literal}'"
    return (
        OpInfo(
            op=op,
            reference=reference,
            segments=segments,
            group=group,
            group_label=label,
            group_why=why,
            params=params,
            units=units,
            link_paged=link_paged,
            sends_files=encoding in ("multipart", "binary"),
            reads_by_post=reads_by_post(spec, op, _verb(op, group)),
        ),
        None,
    )


@dataclass(frozen=True, slots=True)
class Grouping:
    by_tags: bool
    scopes: frozenset[str]  # leading path words most operations sit under ('Accounts/{AccountSid}')
    why: str

    def path_key(self, segments: list[str]) -> str:
        literals = [s for s in segments if not is_param(s)]
        if len(literals) > 1 and literals[0] in self.scopes:
            return literals[1]
        return literals[0] if literals else "root"


def choose_grouping(spec: Spec) -> Grouping:
    operations = spec.operations
    tags = Counter(t for op in operations if (t := first_tag(op)))
    tagged = sum(tags.values())
    if tags and tagged * 2 >= len(operations) and tagged / len(tags) >= MIN_MEAN_TAG_SIZE:
        return Grouping(
            True,
            frozenset(),
            f"by tag ({len(tags)} tags, {tagged / len(tags):.0f} operations each on average)",
        )
    firsts: Counter[str] = Counter()
    for op in operations:
        segments = path_segments(op.path)
        if len(segments) > 1 and not is_param(segments[0]) and is_param(segments[1]):
            firsts[segments[0]] += 1
    scopes = frozenset(w for w, n in firsts.items() if n * 10 > len(operations) * 6)
    reason = (
        f"the spec's {len(tags)} tags average {tagged / len(tags):.0f} operations"
        if tags
        else "the spec has no tags"
    )
    scoped = f"; '{', '.join(sorted(scopes))}' scopes most paths and is skipped" if scopes else ""
    return Grouping(False, scopes, f"by path ({reason}){scoped}")


def _verb(op: Operation, group: str) -> str:
    """The operationId's first word after the group's own words ('auth_revoke' in 'auth' -> 'revoke')."""
    if not op.operation_id:
        return ""
    words = snake_case(op.operation_id.rsplit("/", 1)[-1]).split("_")
    own = name_words(group)
    while len(words) > 1 and words[0] in own:
        words.pop(0)
    return words[0]


def shown(op: Operation) -> str:
    return op.key + (f" ({op.operation_id})" if op.operation_id else "")


def first_tag(op: Operation) -> str | None:
    tags = op.located.value.get("tags")
    if isinstance(tags, list) and tags and isinstance(tags[0], str) and tags[0].strip():
        return tags[0].strip()
    return None


_VERSION_SEGMENT = re.compile(r"^(?:v\d+(?:\.\d+)*|\d[\d.-]*|api|rest)$", re.IGNORECASE)


def path_segments(path: str) -> list[str]:
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


def is_param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def tag_display_names(spec: Spec) -> dict[str, str]:
    """Tags without a prefix all of them share ('Api20100401Recording' -> 'Recording')."""
    tags = sorted({t for op in spec.operations if (t := first_tag(op))})
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
