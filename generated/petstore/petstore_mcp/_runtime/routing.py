"""How one tool action reaches the upstream API. The generated `tools/*.py` modules are tables of these."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .pagination import Paging
from .shaping import Shape

Location = Literal["path", "query", "header", "cookie", "body", "body_whole"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    """The agent passes `agent` units; the upstream gets `value * factor` in `upstream` units (T5 parameter names)."""

    agent: str
    upstream: str
    factor: float  # 0: money in the main unit of the currency the call names (conversion.py)
    integer: bool = False  # the upstream takes whole numbers only
    currency_arg: str | None = (
        None  # the argument holding that currency's ISO 4217 code
    )
    currency_key: tuple[
        str, ...
    ] = ()  # where the code sits inside that argument's object
    currency_fixed: str | None = None  # the code the server always sends
    currency_sibling: str | None = (
        None  # in a record: the key beside the amount naming its currency
    )
    as_is: tuple[float, ...] = ()  # special values (-1 = unlimited) never scaled


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultUnit:
    """A result field in the API's unit, shown in the agent's unit under the argument's name (T5 parameter names)."""

    field: str  # dotted path in a record: 'size', 'amount_money.amount'
    name: str
    unit: Unit


@dataclass(frozen=True, slots=True, kw_only=True)
class Param:
    """An argument the agent passes (`arg`) and where the upstream expects it (`wire` at `at`)."""

    arg: str
    wire: str
    at: Location
    unit: Unit | None = None
    # A field inside the body object `wire` ('amount_money' + ('amount',)): sent at body[wire][path...].
    path: tuple[str, ...] = ()
    # OpenAPI serialization (upstream.py): 'form', 'deepObject', 'spaceDelimited', 'pipeDelimited',
    # 'simple', or 'json' for a JSON `content` parameter; None: the location's default.
    style: str | None = None
    explode: bool | None = None
    # This action's own schema where it accepts less than the tool's flat property (T2 flat action enum).
    schema: Mapping[str, Any] | None = None
    # ask_user (P4 ask what the model cannot know): the form field the user is asked with
    # (elicitation.py). Not an argument of the agent: its value is the user's answer.
    ask_user: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Variant:
    """One form a oneOf/anyOf body takes (T2 flat action enum): the arguments it has and those it needs."""

    name: str
    args: tuple[str, ...] = ()
    required: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Fixed:
    """A value the server always sends for an action; the agent never sees it."""

    wire: str
    at: Location
    value: Any = None
    path: tuple[str, ...] = ()  # inside the body object `wire`, as for Param
    # The value is this environment variable's, read on each call: a credential (P3 credentials).
    env: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskPoll:
    """How to follow a job the API runs for an action (tasks.py): the action of the same tool that
    reads its status, or None to read the URL its 202 answer's Location names; where the job's id and
    its state are in the answers; how often to look."""

    status: str | None = None
    job_id: str = "id"
    state: str = "status"
    poll_interval_s: float = 5.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """A failure the API reports inside a 2xx answer (refusals.py): the value at the JSON pointer `at` fails
    the answer when it is one of `equals`, when it is set and none of `unless`, or, with `non_empty`, when it
    holds anything. `message` points at the API's words about it; `unchanged`: a failing answer means the
    API made no change."""

    at: str
    equals: tuple[Any, ...] = ()
    unless: tuple[Any, ...] = ()
    non_empty: bool = False
    message: str | None = None
    unchanged: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Action:
    name: str
    method: str
    path: str
    params: tuple[Param, ...] = ()
    required: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    fixed: tuple[Fixed, ...] = ()
    body: Literal["json", "form", "multipart", "binary"] | None = None
    # Where error messages send the agent next (E2 what, why, how; E4 unknown outcome is not retry), decided by the generator: `find_with` finds
    # the `finds` argument's value ("ads_campaigns_find action list"), `check_with` shows whether a
    # change took effect ("ads_campaigns_find action get").
    find_with: str | None = None
    finds: str | None = None
    check_with: str | None = None
    shape: Shape | None = (
        None  # set on read actions: they take response_format (R2 concise or detailed)
    )
    paging: Paging | None = None  # set on list actions (R3 pagination)
    preview: Preview | None = (
        None  # confirm: preview, see preview.py (S1 preview, then apply)
    )
    # The one value of the required argument 'confirm' (e.g. CONFIRM_DELETE); never sent upstream.
    confirm: str | None = None
    # confirm: user (P4 ask what the model cannot know): the user confirms through elicitation when
    # the client can ask; `confirm` stays the fallback for clients that cannot.
    confirm_user: bool = False
    # The spec says this operation reads an idempotency key from this header; the server sends one.
    idempotency_header: str | None = None
    result_units: tuple[
        ResultUnit, ...
    ] = ()  # result fields shown in the agent's unit (T5 parameter names)
    # The mapping names this body field as the API's idempotency key; the server fills it (E4 unknown outcome is not retry).
    idempotency_body: str | None = None
    # Safe to send again, as the generator decided from the method and the mapping (a search sent by
    # POST is): a timeout is then "retry", or else "check the outcome" (E4 unknown outcome is not retry).
    idempotent: bool = False
    # The Accept header, when the operation answers with something other than application/json
    # (a vendor JSON type): an API that checks it refuses any other (HTTP 406).
    accept: str | None = None
    # The spec sends this operation to a server of its own (Box uploads): its variable and URL.
    base_url_env: str | None = None
    default_base_url: str | None = None
    # An optional body's required fields: needed once any body argument is given.
    body_requires: tuple[str, ...] = ()
    # The spec requires a body: a call that sets no body field still sends `{}`.
    body_required: bool = False
    variants: tuple[
        Variant, ...
    ] = ()  # a oneOf/anyOf body: the body arguments fit one of them
    # The API runs this action as a job (202 Accepted and a status URL or a job id): tasks.py follows it.
    task: TaskPoll | None = None
    # The API's error codes this action's mapping gives a kind of recovery: fix_input, wait, needs_human,
    # permission (E3 which kind of recovery); the server's table (Upstream.errors) covers the rest.
    errors: Mapping[str, str] = field(default_factory=dict)
    # Fields of a 2xx answer that report a failure inside it (refusals.py): such an answer is an error.
    failures: tuple[Failure, ...] = ()
    # Top-level failure flags the spec does not show (refusals.undescribed_failure); off with `failure: false`.
    undescribed_failures: bool = True
    # The API answers a file, not JSON: the media type its spec declares (file_answers.py returns it).
    file: str | None = None

    @property
    def arg_names(self) -> tuple[str, ...]:
        """Every argument the action takes: the API's parameters, those the server handles itself,
        and the confirmation reminder."""
        own = ("response_format",) if self.shape is not None else ()
        virtual = self.paging.virtual_args if self.paging is not None else ()
        confirm = ("confirm",) if self.confirm else ()
        given = tuple(p.arg for p in self.params if p.ask_user is None)
        return given + virtual + own + confirm

    @property
    def asked(self) -> tuple[Param, ...]:
        """The parameters the server asks the user for, never the agent (P4 ask what the model cannot know)."""
        return tuple(p for p in self.params if p.ask_user is not None)

    def arg_for(self, wire: str) -> str | None:
        """The agent-facing name of an upstream field, so messages never name the wire name."""
        return next((p.arg for p in self.params if p.wire == wire and not p.path), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Guard:
    """Refuse a new value more than `max_increase_pct` above the current one (S2 guard rails as errors)."""

    arg: str
    current: str  # field of the preview's read result
    max_increase_pct: float
    unit: Unit | None = (
        None  # the current value is in the API's unit, the argument in the agent's
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Preview:
    """How a previewed action reads the current state, and what it compares (S1 preview, then apply)."""

    read: Action
    ttl_minutes: int
    approval: str
    compared: Mapping[str, str] = field(
        default_factory=dict
    )  # argument -> field of the read result
    guards: tuple[Guard, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool:
    name: str
    actions: tuple[Action, ...]
    scopes: tuple[
        str, ...
    ] = ()  # a caller's token needs them over HTTP (P3 credentials)

    @property
    def preview(self) -> Preview | None:
        return self.actions[0].preview if len(self.actions) == 1 else None

    @property
    def served_names(self) -> tuple[str, ...]:
        """tools/list names: the tool itself, or its `_preview` and `_apply` pair (S1 preview, then apply)."""
        if self.preview is None:
            return (self.name,)
        return (f"{self.name}_preview", f"{self.name}_apply")

    def action(self, name: str) -> Action | None:
        return next((a for a in self.actions if a.name == name), None)

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.actions)


# (action, arguments) -> the upstream's answer as a dict; raises ToolError.
Read = Callable[[Action, dict[str, Any]], Awaitable[dict[str, Any]]]
# (action, arguments, idempotency key) -> the call's result; raises ToolError.
Execute = Callable[[Action, dict[str, Any], str], Awaitable[dict[str, Any]]]
