"""Operations into groups, groups into tools: a group per tag or path, a big group split by
sub-resource, and a group's reads and changes apart when each side is big enough (S4)."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from mcpgen.authoring.operations import OpInfo, is_param
from mcpgen.authoring.words import singular, word_forms
from mcpgen.names import snake_case

# Group sizes: a group past MAX_GROUP operations is split by sub-resource; a sub-resource with fewer
# than MIN_SUB operations stays in its parent's tool rather than becoming a tool of its own.
MAX_GROUP = 30
MIN_SUB = 5

# Reads and changes become separate tools (readOnlyHint on the read side, S4) when each side has this many.
MIN_SPLIT_SIDE = 4


@dataclass(slots=True, kw_only=True)
class Group:
    key: str  # tool name stem: 'issues' or 'issues_comments'
    label: str  # for descriptions: 'issues' or 'issue comments'
    tag_label: str  # the top-level group as the spec names it
    anchor_words: tuple[str, ...]  # path words the group is named after; names start after them
    why: str
    members: list[OpInfo]


def group_operations(infos: list[OpInfo]) -> list[Group]:
    by_key: dict[str, list[OpInfo]] = defaultdict(list)
    for info in infos:
        by_key[info.group].append(info)
    return [
        Group(
            key=key,
            label=re.sub(r"[-_.]+", " ", members[0].group_label).lower(),
            tag_label=members[0].group_label,
            anchor_words=word_forms(key),
            why=f"{members[0].group_why}, {len(members)} operation{'s' if len(members) != 1 else ''}",
            members=members,
        )
        for key, members in by_key.items()
    ]


def split_groups(groups: list[Group], depth: int = 0) -> list[Group]:
    """Split groups past MAX_GROUP by the sub-resource after the group's own path word."""
    out: list[Group] = []
    for group in groups:
        if len(group.members) <= MAX_GROUP or depth >= 2:
            out.append(group)
            continue
        subs: dict[str, list[OpInfo]] = defaultdict(list)
        for info in group.members:
            subs[_sub_resource(info.segments, group.anchor_words) or ""].append(info)
        kept = [i for s, members in subs.items() if not s or len(members) < MIN_SUB for i in members]
        parts = {s: members for s, members in subs.items() if s and len(members) >= MIN_SUB}
        if not parts:
            out.append(group)
            continue
        if kept:
            out.append(
                Group(
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
                split_groups(
                    [
                        Group(
                            key=f"{group.key}_{sub_key}",
                            label=f"{singular(group.label)} {re.sub(r'[-_.]+', ' ', sub).lower()}",
                            tag_label=group.tag_label,
                            anchor_words=word_forms(sub_key),
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
    literals = [(i, s) for i, s in enumerate(segments) if not is_param(s)]
    anchored = [i for i, s in literals if snake_case(s) in anchor_words]
    if anchored:
        after = [s for i, s in literals if i > anchored[-1]]
        return after[0] if after else None
    # The group's word is not in the path: the resource acted on is the last literal segment.
    return literals[-1][1] if len(literals) > 1 else None


@dataclass(slots=True, kw_only=True)
class Side:
    kind: str  # 'find' | 'change' | 'all'
    group: Group
    members: list[OpInfo]
    name: str = ""


def tool_sides(groups: list[Group]) -> list[Side]:
    """Each group's reads and changes as tools of their own when both sides have MIN_SPLIT_SIDE
    operations; else the group whole, named for its one side when it has only one."""
    sides: list[Side] = []
    for group in groups:
        reads = [i for i in group.members if i.is_read]
        writes = [i for i in group.members if not i.is_read]
        if len(reads) >= MIN_SPLIT_SIDE and len(writes) >= MIN_SPLIT_SIDE:
            sides += [
                Side(kind="find", group=group, members=reads),
                Side(kind="change", group=group, members=writes),
            ]
        elif not writes or not reads:
            # One side only: still named for it, so the name says whether the tool changes anything.
            sides.append(Side(kind="change" if writes else "find", group=group, members=group.members))
        else:
            sides.append(Side(kind="all", group=group, members=group.members))
    return sides
