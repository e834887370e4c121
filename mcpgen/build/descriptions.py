"""The text an agent reads: tool, action, parameter and preview descriptions (T3, T7)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Protocol

from mcpgen.build.asking import asking_note
from mcpgen.build.schemas import lean_text, short_text
from mcpgen.build.units import unit_description
from mcpgen.ir import ActionSpec, JsonSchema, ParamSpec, PreviewSpec, UnitSpec, VariantSpec
from mcpgen.load.mapping import UNSET, ActionRule, ParamRule, ToolRule
from mcpgen.load.openapi import Operation


def confirm_description(value: str, names: str, asked: list[str]) -> str:
    """What the confirm argument is for; with confirm: user it is only the fallback of a client
    that cannot ask the user (P4 ask what the model cannot know), and the description says so."""
    said = f"Write {value} to confirm that you mean it: {names} cannot be undone."
    if not asked:
        return said
    return (
        f"{said} When your client can ask the user (elicitation), the server asks the user to confirm "
        f"{', '.join(asked)} instead and ignores this; otherwise write it only after the user said yes."
    )


def action_description(rule: ActionRule, operation: Operation) -> str:
    if rule.description:
        return rule.description
    if operation.summary:
        return _sentence(operation.summary)
    if operation.description:
        return _first_sentence(short_text(operation.description, 200))
    return f"Calls {operation.key}."


# The description's sections a mapping may write (T7), and how each is introduced.
_SECTIONS = (
    ("use_when", "Use it when"),
    ("not_for", "Not for"),
    ("returns", "Returns"),
    ("does_not_return", "Does not return"),
)


def tool_description(rule: ToolRule, actions: list[ActionSpec], properties: dict[str, JsonSchema]) -> str:
    """The mapping's text and sections, then each action with what it needs and its defaults (T7).

    Every generated sentence is a plain statement: no capitals for emphasis, nothing a model would
    over-trigger on.
    """
    text = " ".join([rule.description.strip(), *_sections(rule), *filter(None, [asking_note(actions)])])
    if not rule.list_actions:
        return text
    # What every action needs is said once, above the list, not once per action.
    shared = _needed_by_all(actions)
    lines = [text, "", f"Actions (each needs {', '.join(shared)}):" if shared else "Actions:"]
    for action in actions:
        own = [arg for arg in action.required_args if arg not in shared]
        needs = f" Needs: {', '.join(own)}." if own else ""
        if action.body_requires:
            needs += f" With any body argument, also needs: {', '.join(action.body_requires)}."
        if action.variants:
            forms = ", ".join(
                f"'{v.name}'" + (f" (needs {', '.join(v.required)})" if v.required else "")
                for v in action.variants
            )
            needs += f" Its body takes one of these forms: {forms}."
        if action.file_answer:  # T7: what it returns, when it is no JSON
            needs += f" Returns a file ({_file_kind(action.file_answer)}) as content, with its name, type and size."
        lines.append(
            f"- {action.name}: {_sentence(action.description)}{needs}{_defaults_note(action, properties)}"
        )
    return "\n".join(lines)


def _file_kind(media: str) -> str:
    return "its type as the API says" if media == "application/octet-stream" else media


def _needed_by_all(actions: list[ActionSpec]) -> list[str]:
    """The arguments every one of two or more actions needs, in the first action's order."""
    if len(actions) < 2:
        return []
    return [arg for arg in actions[0].required_args if all(arg in a.required_args for a in actions[1:])]


def _sections(rule: ToolRule) -> list[str]:
    sentences = []
    for key, lead in _SECTIONS:
        value = getattr(rule, key)
        if value:
            first, rest = value[0], value[1:]
            starts_with_lead = value.lower().startswith(lead.lower())
            sentences.append(_sentence(value if starts_with_lead else f"{lead} {first.lower()}{rest}"))
    return sentences


def _defaults_note(action: ActionSpec, properties: dict[str, JsonSchema]) -> str:
    """The values an action uses when the agent leaves them out (the mapping's and the spec's), less
    those its parameter's schema already states: a tool has one flat parameter set, so a default is
    said here only where this action's differs (T3, T7)."""
    defaults = dict(action.defaults)
    for param in action.params:
        if "default" in param.schema:
            defaults.setdefault(param.arg_name, param.schema["default"])
    defaults = {
        name: value
        for name, value in defaults.items()
        if "default" not in properties.get(name, {}) or properties[name]["default"] != value
    }
    if not defaults:
        return ""
    return " Defaults: " + ", ".join(f"{name} {_show(value)}" for name, value in defaults.items()) + "."


def with_values_by_action(schema: JsonSchema, actions: list[ActionSpec], arg_name: str) -> JsonSchema:
    """A joined enum says which action takes which values (T2, T7)."""
    own = [(a.name, p) for a in actions for p in a.params if p.arg_name == arg_name]
    if all(p.check_schema is None for _, p in own):
        return schema
    listed = [
        (name, values)
        for name, p in own
        if isinstance(values := p.schema.get("enum") or (p.schema.get("items") or {}).get("enum"), list)
    ]
    if not listed:
        return schema
    by_action = "; ".join(f"{name}: {', '.join(_show(v) for v in values)}" for name, values in listed)
    description = str(schema.get("description", "")).rstrip()
    return {**schema, "description": f"{description} Values by action: {by_action}.".lstrip()}


def preview_description(rule: ToolRule, action: ActionSpec, apply_name: str) -> str:
    preview: PreviewSpec = action.preview  # type: ignore[assignment]
    # The mapping's own sentences (when not to use it, what it returns) hold for the preview too (T7).
    lines = [
        " ".join([rule.description.strip(), *_sections(rule)]),
        "",
        f"Preview: {_sentence(action.description)}",
    ]
    lines.append(
        "It reads the current state and returns the values before and after the change, and a preview_id "
        f"valid for {preview.ttl_minutes} minutes. Nothing changes until {apply_name} is called with that id."
    )
    for guard in preview.guards:
        lines.append(
            f"A {guard.arg_name} more than {guard.max_increase_pct:g}% above the current value is refused "
            "and needs approval."
        )
    return "\n".join(lines)


def described_variants(params: list[ParamSpec], variants: tuple[VariantSpec, ...]) -> list[ParamSpec]:
    """Each body argument of a oneOf/anyOf body says which form of the body needs or takes it (T2)."""
    if not variants:
        return params
    described = []
    for param in params:
        needing = [v.name for v in variants if param.arg_name in v.required]
        having = [v.name for v in variants if param.arg_name in v.args]
        note = ""
        if needing and len(needing) == len(variants):
            note = " Needed in every form of the body."
        elif needing:
            note = f" Needed in the body form {_quoted_names(needing)}."
        elif having and len(having) < len(variants):
            note = f" Only in the body form {_quoted_names(having)}."
        if note:
            schema = {**param.schema, "description": param.schema.get("description", "") + note}
            param = replace(param, schema=schema)
        described.append(param)
    return described


def _quoted_names(names: list[str]) -> str:
    return " or ".join(f"'{n}'" for n in names)


class Described(Protocol):
    """What a parameter's description is made from: a parameter as the spec declares it
    (parameters.OperationParam)."""

    @property
    def description(self) -> str: ...
    @property
    def schema(self) -> JsonSchema: ...
    @property
    def example(self) -> Any: ...


def param_description(
    param: Described, rule: ParamRule | None, arg_name: str, default: Any, unit: UnitSpec | None = None
) -> str:
    """What it is, its unit or time format, an example value and the default (T5, T7)."""
    text = (rule.description if rule and rule.description else None) or lean_text(param.description, 200)
    if not text:
        text = f"The {arg_name.replace('_', ' ')}."
    text = text.rstrip()
    if not text.endswith((".", "!", "?")):
        text += "."
    if unit is not None:
        text = unit_description(text, unit, own_words=bool(rule and rule.description))
    if param.schema.get("format") == "date-time":
        text += f" {DATE_TIME_NOTE}"
    if (
        param.example is not None
        and "xample" not in text
        and _example_helps(param.schema, param.example, default)
    ):
        text += f" Example: {_show(param.example)}."
    if default is not UNSET and "efault" not in text:
        text += f" Default: {_show(default)}."
    return text


def _example_helps(schema: JsonSchema, example: Any, default: Any) -> bool:
    """An example only where it tells the agent something the definition does not already say: not
    for a choice the enum lists, a boolean, a date-time (its note shows two), or the default."""
    return not (
        "enum" in schema
        or schema.get("type") == "boolean"
        or schema.get("format") == "date-time"
        or (default is not UNSET and example == default)
    )


# T5: absolute times with an offset only; the server refuses anything else (validation.py).
DATE_TIME_NOTE = (
    "An ISO 8601 date-time with a UTC offset, such as 2026-11-01T09:00:00+09:00 or 2026-11-01T00:00:00Z; "
    "relative values such as 'tomorrow' are refused."
)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "!", "?")) else text + "."


def _first_sentence(text: str) -> str:
    text = _sentence(text)
    for end in (". ", "! ", "? "):
        if end in text:
            return text[: text.index(end) + 1]
    return text
