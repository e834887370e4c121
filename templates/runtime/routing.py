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
    # Where error messages send the agent next (E2, E4); decided by the generator.
    find_with: str | None = (
        None  # finds the `finds` argument's value: "ads_campaigns_find action list"
    )
    finds: str | None = None
    check_with: str | None = (
        None  # shows whether a change took effect: "ads_campaigns_find action get"
    )
    shape: Shape | None = None  # set on read actions: they take response_format (R2)
    paging: Paging | None = None  # set on list actions (R3)

    @property
    def arg_names(self) -> tuple[str, ...]:
        """Every argument the action takes: the API's parameters and those the server handles itself."""
        own = ("response_format",) if self.shape is not None else ()
        virtual = self.paging.virtual_args if self.paging is not None else ()
        return tuple(p.arg for p in self.params) + virtual + own

    def arg_for(self, wire: str) -> str | None:
        """The agent-facing name of an upstream field, so messages never name the wire name."""
        return next((p.arg for p in self.params if p.wire == wire), None)

    @property
    def idempotent(self) -> bool:
        return self.method in ("GET", "HEAD", "OPTIONS", "PUT", "DELETE")


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool:
    name: str
    actions: tuple[Action, ...]

    def action(self, name: str) -> Action | None:
        return next((a for a in self.actions if a.name == name), None)

    @property
    def action_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.actions)
