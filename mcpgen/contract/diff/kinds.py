"""The one registry of what a diff reports: the four classes of change, most severe last, and every kind
of change with the classes it is reported in and what it means. README.md's tables of change classes
and kinds are checked against this module (tests/unit/test_diff_kinds.py).
"""

from __future__ import annotations

import enum


class Impact(enum.IntEnum):
    """The class of a change; a larger value is more severe."""

    label: str
    meaning: str

    def __new__(cls, rank: int, label: str, meaning: str) -> Impact:
        impact = int.__new__(cls, rank)
        impact._value_ = rank
        impact.label = label
        impact.meaning = meaning
        return impact

    ADDITIVE = 1, "additive", "something new; every call that worked still works the same"
    DEPRECATION = (
        2,
        "deprecation",
        "nothing breaks yet; the spec marks something a tool uses as going away",
    )
    BEHAVIOUR = (
        3,
        "behaviour-affecting",
        "calls still work, but agents read other words or a call does something else",
    )
    BREAKING = 4, "breaking", "calls that worked can now fail or be refused"


_ADDITIVE = (Impact.ADDITIVE,)
_DEPRECATION = (Impact.DEPRECATION,)
_BEHAVIOUR = (Impact.BEHAVIOUR,)
_BREAKING = (Impact.BREAKING,)


class Kind(enum.StrEnum):
    """A kind of contract change: its stable code (in change ids, SARIF rules and ignore lists), the
    classes it is reported in, and what it means."""

    impacts: tuple[Impact, ...]
    meaning: str

    def __new__(cls, code: str, impacts: tuple[Impact, ...], meaning: str) -> Kind:
        kind = str.__new__(cls, code)
        kind._value_ = code
        kind.impacts = impacts
        kind.meaning = meaning
        return kind

    # the server
    SERVER_TITLE_CHANGED = "server-title-changed", _BEHAVIOUR, "the server's title changed"
    SERVER_INSTRUCTIONS_CHANGED = (
        "server-instructions-changed",
        _BEHAVIOUR,
        "the instructions the server gives agents changed",
    )
    # tools
    TOOL_ADDED = "tool-added", _ADDITIVE, "a new tool"
    TOOL_REMOVED = "tool-removed", _BREAKING, "a tool is gone"
    TOOL_RENAMED = "tool-renamed", _BREAKING, "a tool has another name (it calls the same operations)"
    TOOL_MERGED = "tool-merged", _BREAKING, "a tool is gone and all its actions moved to one other tool"
    TOOL_TITLE_CHANGED = "tool-title-changed", _BEHAVIOUR, "a tool's title changed"
    TOOL_DESCRIPTION_CHANGED = "tool-description-changed", _BEHAVIOUR, "a tool's description changed"
    ANNOTATION_LESS_SAFE = (
        "annotation-less-safe",
        _BREAKING,
        "a tool's hint became less safe (readOnly true -> false, ...): clients may stop asking first",
    )
    ANNOTATION_SAFER = "annotation-safer", _BEHAVIOUR, "a tool's hint became safer"
    OUTPUT_SCHEMA = (
        "output-schema",
        (Impact.ADDITIVE, Impact.BEHAVIOUR, Impact.BREAKING),
        "a tool's output schema appeared (additive), changed (behaviour-affecting) or went (breaking)",
    )
    OUTPUT_FIELD_REMOVED = (
        "output-field-removed",
        _BREAKING,
        "a tool's results no longer have a field its output schema named",
    )
    RESULT_TYPE_CHANGED = (
        "result-type-changed",
        _BREAKING,
        "a result field the default format shows has another type",
    )
    RESULT_UNIT_CHANGED = (
        "result-unit-changed",
        _BREAKING,
        "a result field the default format shows is in another unit: the same number means another amount",
    )
    # actions
    ACTION_ADDED = "action-added", _ADDITIVE, "a new action"
    ACTION_REMOVED = "action-removed", _BREAKING, "an action is gone"
    ACTION_RENAMED = "action-renamed", _BREAKING, "an action has another name (it calls the same endpoint)"
    ACTION_MOVED = "action-moved", _BREAKING, "an action's endpoint left one tool for another"
    ACTION_ENDPOINT_CHANGED = "action-endpoint-changed", _BEHAVIOUR, "an action calls another endpoint"
    OPERATION_ID_REBOUND = (
        "operation-id-rebound",
        _BREAKING,
        "the operationId an action is built from now names another endpoint",
    )
    ACTION_DESCRIPTION_CHANGED = (
        "action-description-changed",
        _BEHAVIOUR,
        "an action's description changed",
    )
    ACTION_FIXED_CHANGED = "action-fixed-changed", _BEHAVIOUR, "a value an action always sends changed"
    ACTION_DEPRECATED = (
        "action-deprecated",
        _DEPRECATION,
        "the operation an action calls is now marked deprecated",
    )
    ACTION_DEPRECATION_SAID = (
        "action-deprecation-said",
        _DEPRECATION,
        "the summary or description of the operation an action calls now says it is deprecated, with no "
        "marker (a weaker signal)",
    )
    ACTION_BREAKING_ANNOUNCED = (
        "action-breaking-announced",
        _DEPRECATION,
        "the spec now announces breaking changes to the operation an action calls",
    )
    ACTION_PARAM_DROPPED = (
        "action-param-dropped",
        _BREAKING,
        "an action no longer takes a parameter its tool still has",
    )
    # parameters
    PARAM_ADDED = "param-added", _ADDITIVE, "a new optional parameter"
    PARAM_REMOVED = "param-removed", _BREAKING, "a parameter is gone"
    PARAM_RENAMED = "param-renamed", _BREAKING, "a parameter has another name"
    PARAM_REQUIRED = (
        "param-required",
        _BREAKING,
        "an existing action now requires a parameter (an existing one, or a new one)",
    )
    PARAM_OPTIONAL = "param-optional", _ADDITIVE, "a parameter an action required is now optional"
    PARAM_UNIT_CHANGED = (
        "param-unit-changed",
        _BREAKING,
        "a parameter is in another unit (its conversion, name, `x-unit` or words say so): the same number "
        "means another amount",
    )
    PARAM_WIRE_CHANGED = (
        "param-wire-changed",
        _BEHAVIOUR,
        "an action sends a parameter under another name or in another place",
    )
    PARAM_DEPRECATED = (
        "param-deprecated",
        _DEPRECATION,
        "a parameter an action sends is now marked deprecated",
    )
    PARAM_DEPRECATION_SAID = (
        "param-deprecation-said",
        _DEPRECATION,
        "the description of a parameter an action sends now says it is deprecated, with no marker (a "
        "weaker signal)",
    )
    # parameter schemas
    PARAM_TYPE_NARROWED = "param-type-narrowed", _BREAKING, "a parameter accepts fewer types"
    PARAM_TYPE_WIDENED = "param-type-widened", _ADDITIVE, "a parameter accepts more types"
    PARAM_TYPE_CHANGED = "param-type-changed", _BREAKING, "a parameter accepts other types"
    PARAM_ENUM_INTRODUCED = "param-enum-introduced", _BREAKING, "a parameter is now limited to a fixed set"
    PARAM_ENUM_DROPPED = "param-enum-dropped", _ADDITIVE, "a parameter is no longer limited to a fixed set"
    PARAM_ENUM_VALUE_REMOVED = "param-enum-value-removed", _BREAKING, "a parameter's fixed set lost a value"
    PARAM_ENUM_VALUE_ADDED = "param-enum-value-added", _ADDITIVE, "a parameter's fixed set gained a value"
    PARAM_CONSTRAINT_TIGHTENED = (
        "param-constraint-tightened",
        _BREAKING,
        "a bound, length or pattern of a parameter accepts fewer values",
    )
    PARAM_CONSTRAINT_RELAXED = (
        "param-constraint-relaxed",
        _ADDITIVE,
        "a bound, length or pattern of a parameter accepts more values",
    )
    PARAM_FORMAT_CHANGED = "param-format-changed", _BEHAVIOUR, "a parameter's format changed"
    PARAM_DEFAULT_CHANGED = "param-default-changed", _BEHAVIOUR, "a parameter's default changed"
    PARAM_DESCRIPTION_CHANGED = "param-description-changed", _BEHAVIOUR, "a parameter's description changed"
    PARAM_CLOSED = "param-closed", _BREAKING, "an object parameter no longer accepts other properties"
    PARAM_OPENED = "param-opened", _ADDITIVE, "an object parameter now accepts other properties"
    PARAM_MEMBER_REMOVED = "param-member-removed", _BREAKING, "an object parameter lost a member"
    PARAM_MEMBER_ADDED = (
        "param-member-added",
        (Impact.ADDITIVE, Impact.BREAKING),
        "an object parameter has a new member (breaking when it is required)",
    )
    PARAM_MEMBER_REQUIRED = (
        "param-member-required",
        _BREAKING,
        "a member of an object parameter is now required",
    )
    PARAM_MEMBER_OPTIONAL = (
        "param-member-optional",
        _ADDITIVE,
        "a member of an object parameter is no longer required",
    )
