"""The values a diff is made of: input changes, contract changes and the diff itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from mcpgen.contract.diff.kinds import Impact, Kind
from mcpgen.load.mapping import Mapping
from mcpgen.load.openapi import Spec

Bump = Literal["major", "minor", "patch", "none"]
Change = Literal["added", "removed", "changed"]


# Not frozen, but never changed once made (hashable all the same): a Stripe diff makes 448,000 of them,
# and a frozen dataclass's __init__ (a setattr call per field) was 0.35 s of its 4.7 s.
@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class InputChange:
    """A change in the spec, the mapping file or the generator, with where it is."""

    origin: Literal["spec", "mapping", "generator"]
    change: Change
    pointer: str  # in the new file; in the old one for a removal
    operation: str | None = None  # 'GET /repos/{owner}/{repo}/issues' for spec changes
    part: str | None = None  # 'parameter query.state', 'body.title', 'summary', ...
    detail: str = ""  # 'removed "all"' when the files themselves were compared
    used_by: tuple[str, ...] = ()  # 'github_issues_find.list': actions built from this operation
    rule: str | None = None  # mapping changes: 'github_issues_find.list', 'github_issues_find', '(server)'


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractChange:
    impact: Impact
    code: Kind  # the kind of change (kinds.py), e.g. Kind.PARAM_REMOVED
    tool: str
    message: str
    action: str | None = None
    param: str | None = None
    before: Any = None
    after: Any = None
    causes: tuple[InputChange, ...] = ()

    @property
    def id(self) -> str:
        """Stable across runs, for ignore lists and code-scanning fingerprints:
        'param-required:github_issues_find.list#milestone'."""
        subject = self.tool + (f".{self.action}" if self.action else "")
        return f"{self.code}:{subject}" + (f"#{self.param}" if self.param else "")


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractDiff:
    server: str
    old_version: str
    new_version: str
    changes: tuple[ContractChange, ...]
    other_inputs: tuple[InputChange, ...]  # input changes no contract change came from
    bump: Bump
    suggested_version: str
    bump_reason: str

    @property
    def impact(self) -> Impact | None:
        return max((c.impact for c in self.changes), default=None)

    def count(self, impact: Impact) -> int:
        return sum(1 for c in self.changes if c.impact == impact)


@dataclass(frozen=True, slots=True)
class Sources:
    """The inputs a lock was made from, when at hand: lets the diff name the exact changed place."""

    spec: Spec
    mapping: Mapping
