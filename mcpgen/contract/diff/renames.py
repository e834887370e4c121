"""Rename evidence: when a name that went and a name that came are one tool, action or parameter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpgen.contract.diff.lock import action_params, tool_actions, tool_properties
from mcpgen.contract.diff.schemas import schema_types


def pair_renamed(
    removed: list[str], added: list[str], same: Callable[[str, str], bool]
) -> list[tuple[str, str]]:
    pairs, taken = [], set()
    for old_name in sorted(removed):
        match = next((n for n in sorted(added) if n not in taken and same(old_name, n)), None)
        if match is not None:
            taken.add(match)
            pairs.append((old_name, match))
    return pairs


def looks_renamed(
    old: dict[str, Any], new: dict[str, Any], old_name: str, new_name: str, renamed_actions: dict[str, str]
) -> bool:
    """One action took `old_name` before and `new_name` now, with evidence that it is one parameter
    (issue 13: unrelated pairs such as Stripe's `trial_end` -> `name` are removed + added):
    - the same wire name at the same place: only the agent's name changed (a mapping `params:`
      rename, a unit suffix such as `amount` -> `amount_cents`);
    - the same path segment of the same endpoint (`/v1/exchange_rates/{currency}` -> `{rate_id}`);
    - the same place and type, and either the same distinctive shape (an enum, members) or the same
      head noun (`failure_url` -> `refresh_url`)."""
    new_actions = tool_actions(new)
    old_schema, new_schema = tool_properties(old)[old_name], tool_properties(new)[new_name]
    for action_name, action in tool_actions(old).items():
        after = new_actions.get(renamed_actions.get(action_name, action_name))
        if after is None:
            continue
        was = action_params(action).get(old_name)
        now = action_params(after).get(new_name)
        if not (
            was
            and now
            and old_name not in action_params(after)
            and new_name not in action_params(action)
            and was.get("in") == now.get("in")
        ):
            continue
        if was.get("wire") == now.get("wire") or _same_path_segment(action, after, was, now):
            return True
        if schema_types(old_schema) == schema_types(new_schema) and (
            _same_distinctive_shape(old_schema, new_schema)
            or _same_head(old_name, new_name)
            or _same_slot(action, after, was, now)
        ):
            return True
    return False


def _same_path_segment(
    old_action: dict[str, Any], new_action: dict[str, Any], was: dict[str, Any], now: dict[str, Any]
) -> bool:
    if was.get("in") != "path" or old_action.get("method") != new_action.get("method"):
        return False
    before = str(old_action.get("path", "")).split("/")
    after = str(new_action.get("path", "")).split("/")
    if len(before) != len(after):
        return False
    segment = "{" + str(was.get("wire")) + "}"
    if segment not in before:
        return False
    differ = [i for i, (b, a) in enumerate(zip(before, after, strict=True)) if b != a]
    return differ == [before.index(segment)]


def _same_slot(
    old_action: dict[str, Any], new_action: dict[str, Any], was: dict[str, Any], now: dict[str, Any]
) -> bool:
    """The spec's parameter list has the new name where the old one was (`parameters/6`), and neither
    name is in the other version of the operation."""
    if was.get("in") not in ("query", "header", "path", "cookie"):
        return False
    before = (old_action.get("operation") or {}).get("parts", {})
    after = (new_action.get("operation") or {}).get("parts", {})
    old_label, new_label = (
        f"parameter {was.get('in')}.{was.get('wire')}",
        f"parameter {now.get('in')}.{now.get('wire')}",
    )
    if old_label not in before or new_label not in after or old_label in after or new_label in before:
        return False
    slot = before[old_label].get("pointer")
    if slot != after[new_label].get("pointer"):
        return False
    # Every other parameter keeps its place too: in a sorted list (Stripe's) a removal and an addition
    # land in one slot by chance only if nothing moves.
    return _parameter_slots(before) - {(slot, old_label)} == _parameter_slots(after) - {(slot, new_label)}


def _parameter_slots(parts: dict[str, Any]) -> set[tuple[Any, str]]:
    return {(part.get("pointer"), label) for label, part in parts.items() if label.startswith("parameter ")}


_WORDING = ("description", "title", "default", "examples", "example")


def _same_distinctive_shape(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Equal apart from wording, and more than a bare type: Stripe's `billing` -> `collection_method`
    keep their enum `charge_automatically`, `send_invoice`."""
    if not any(key in old for key in ("enum", "properties")):
        return False
    return {k: v for k, v in old.items() if k not in _WORDING} == {
        k: v for k, v in new.items() if k not in _WORDING
    }


def _same_head(old_name: str, new_name: str) -> bool:
    """The last word names what the value is: `failure_url` and `refresh_url` are both URLs."""
    old_words, new_words = old_name.lower().split("_"), new_name.lower().split("_")
    return len(old_words) > 1 and len(new_words) > 1 and old_words[-1] == new_words[-1]
