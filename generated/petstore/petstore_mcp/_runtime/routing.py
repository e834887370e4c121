"""How one tool action reaches the upstream API. The generated `tools/*.py` modules are tables of these."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .pagination import Paging
from .shaping import Shape

Location = Literal["path", "query", "header", "cookie", "body", "body_whole"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    """The agent passes `agent` units; the upstream gets `value * factor` in `upstream` units (T5)."""

    agent: str
    upstream: str
    factor: float
    integer: bool = False  # the upstream takes whole numbers only


@dataclass(frozen=True, slots=True, kw_only=True)
class Param:
    """An argument the agent passes (`arg`) and where the upstream expects it (`wire` at `at`)."""

    arg: str
    wire: str
    at: Location
    unit: Unit | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Fixed:
    """A value the server always sends for an action; the agent never sees it."""

    wire: str
    at: Location
    value: Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Action:
    name: str
    method: str
    path: str
    operation_id: str | None = None
    params: tuple[Param, ...] = ()
    required: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    fixed: tuple[Fixed, ...] = ()
    body: Literal["json", "form"] | None = None
    # Where error messages send the agent next (E2, E4), decided by the generator: `find_with` finds
    # the `finds` argument's value ("ads_campaigns_find action list"), `check_with` shows whether a
    # change took effect ("ads_campaigns_find action get").
    find_with: str | None = None
    finds: str | None = None
    check_with: str | None = None
    shape: Shape | None = None  # set on read actions: they take response_format (R2)
    paging: Paging | None = None  # set on list actions (R3)
    preview: Preview | None = None  # confirm: preview, see preview.py (S1)
    # The one value of the required argument 'confirm' (e.g. CONFIRM_DELETE); never sent upstream.
    confirm: str | None = None
    # The spec says this operation reads an idempotency key from this header; the server sends one.
    idempotency_header: str | None = None
    # The mapping names this body field as the API's idempotency key; the server fills it (E4).
    idempotency_body: str | None = None
    # The mapping says whether calling it twice is safe, where its method says otherwise (a search
    # sent by POST): a timeout is then "retry", or "check the outcome" (E4).
    safe_to_repeat: bool | None = None
    # The Accept header, when the operation answers with something other than application/json
    # (a vendor JSON type): an API that checks it refuses any other (HTTP 406).
    accept: str | None = None
    # The spec sends this operation to a server of its own (Box uploads): its variable and URL.
    base_url_env: str | None = None
    default_base_url: str | None = None

    @property
    def arg_names(self) -> tuple[str, ...]:
        """Every argument the action takes: the API's parameters, those the server handles itself,
        and the confirmation reminder."""
        own = ("response_format",) if self.shape is not None else ()
        virtual = self.paging.virtual_args if self.paging is not None else ()
        confirm = ("confirm",) if self.confirm else ()
        return tuple(p.arg for p in self.params) + virtual + own + confirm

    def arg_for(self, wire: str) -> str | None:
        """The agent-facing name of an upstream field, so messages never name the wire name."""
        return next((p.arg for p in self.params if p.wire == wire), None)

    @property
    def idempotent(self) -> bool:
        if self.safe_to_repeat is not None:
            return self.safe_to_repeat
        return self.method in ("GET", "HEAD", "OPTIONS", "PUT", "DELETE")


@dataclass(frozen=True, slots=True, kw_only=True)
class Guard:
    """Refuse a new value more than `max_increase_pct` above the current one (S2)."""

    arg: str
    current: str  # field of the preview's read result
    max_increase_pct: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Preview:
    """How a previewed action reads the current state, and what it compares (S1)."""

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
    scopes: tuple[str, ...] = ()  # a caller's token needs them over HTTP (P3)

    @property
    def preview(self) -> Preview | None:
        return self.actions[0].preview if len(self.actions) == 1 else None

    @property
    def served_names(self) -> tuple[str, ...]:
        """tools/list names: the tool itself, or its `_preview` and `_apply` pair (S1)."""
        if self.preview is None:
            return (self.name,)
        return (f"{self.name}_preview", f"{self.name}_apply")

    def action(self, name: str) -> Action | None:
        return next((a for a in self.actions if a.name == name), None)

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.actions)
