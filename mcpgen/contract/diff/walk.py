"""Walking two specs in step: the changes below a pair of places, each pair compared once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcpgen.build.fingerprints import Canonicalizer, _Text
from mcpgen.contract.diff.model import Change, InputChange
from mcpgen.contract.diff.show import brief, show_values
from mcpgen.diagnostics import DiagnosticError
from mcpgen.load.openapi import Spec
from mcpgen.load.refs import Located


def place(located: Located, spec: Spec) -> str:
    """A pointer, prefixed with its file when that is not the spec document itself."""
    if located.document is spec.document:
        return located.pointer
    return f"{located.document.display_path}#{located.pointer}"


def _safe_deref(spec: Spec, located: Located) -> Located:
    try:
        return spec.resolver.deref(located)
    except DiagnosticError:
        return located  # a dangling reference is compared as written


PairKey = tuple[Any, ...]  # both places (file, pointer) and the identities of both values
_Item = InputChange | PairKey  # a node's own change, or a pair below it, in walk order


@dataclass(slots=True)
class Walk:
    """Compares two spec values in step, following references on both sides; one walk serves every
    operation of a diff, so a definition many operations share (Stripe's) is compared once.

    Each pair of places is compared once for the whole diff, into a node: its own changes and the pairs
    below it, in walk order. `compare` then collects what one part reaches, each pair once (which also
    ends cycles). No fingerprint is taken below a part, so a diff is linear in the compared parts."""

    old_spec: Spec
    new_spec: Spec
    old_canon: Canonicalizer
    new_canon: Canonicalizer
    # the values are kept with their node, so the identities in the keys stay unique
    nodes: dict[PairKey, tuple[tuple[_Item, ...], Any, Any]] = field(default_factory=dict)
    # Pairs below which nothing changed, neither they nor any pair they reach: `compare` does not
    # enter them. Stripe's operations reach thousands of unchanged pairs of shared definitions each,
    # and walking them again for every operation was most of the comparison.
    clean: set[PairKey] = field(default_factory=set)
    _settled: set[PairKey] = field(default_factory=set)  # known to be clean or not

    def compare(self, old: Located, new: Located, seen: set[PairKey] | None = None) -> list[InputChange]:
        """The changes below one pair of places, in walk order. `seen`, shared by the parts of one
        operation, skips the pairs an earlier part reached: their changes were collected then (a
        Stripe operation reaches one shared definition through many parts)."""
        found: list[InputChange] = []
        seen = set() if seen is None else seen

        clean = self.clean

        def collect(key: PairKey) -> None:
            seen.add(key)
            for item in self.nodes[key][0]:
                if isinstance(item, InputChange):
                    found.append(item)
                elif item not in seen and item not in clean:
                    collect(item)

        root = self._node(old, new)
        self._settle(root)
        if root not in seen and root not in clean:
            collect(root)
        return found

    def _settle(self, root: PairKey) -> None:
        """Finds which pairs reachable from `root` are clean. The pairs of one cycle (a definition that
        reaches itself) are clean or not together: they are settled a strongly connected component at
        a time (Tarjan's algorithm, components come out after every component they reach), without
        recursion, since a schema can nest deeper than Python's recursion limit."""
        if root in self._settled:
            return
        index: dict[PairKey, int] = {}
        low: dict[PairKey, int] = {}
        stack: list[PairKey] = []
        work: list[tuple[PairKey, int]] = [(root, 0)]  # a pair and the position of its next item
        while work:
            key, at = work.pop()
            if at == 0:
                index[key] = low[key] = len(index)
                stack.append(key)
            items = self.nodes[key][0]
            while at < len(items):
                item = items[at]
                at += 1
                if isinstance(item, InputChange) or item in self._settled:
                    continue
                if item not in index:  # its turn first, then this pair's next item
                    work += [(key, at), (item, 0)]
                    break
                low[key] = min(low[key], index[item])  # on the stack: not settled, so not done
            else:
                if low[key] == index[key]:
                    self._settle_component(stack, key)
                if work:  # the pair that reached this one
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[key])

    def _settle_component(self, stack: list[PairKey], top: PairKey) -> None:
        """The pairs on the stack from `top` up are one component: clean unless one of them has a
        change or reaches a pair (settled before, in a later component) that is not clean."""
        component = [stack.pop()]
        while component[-1] != top:
            component.append(stack.pop())
        members = set(component)
        changed = any(
            isinstance(item, InputChange) or (item not in members and item not in self.clean)
            for key in component
            for item in self.nodes[key][0]
        )
        self._settled |= members
        if not changed:
            self.clean |= members

    def _node(self, old: Located, new: Located) -> PairKey:
        old, new = _safe_deref(self.old_spec, old), _safe_deref(self.new_spec, new)
        key = (
            old.document.display_path,
            old.pointer,
            id(old.value),
            new.document.display_path,
            new.pointer,
            id(new.value),
        )
        if key in self.nodes:
            return key
        self.nodes[key] = ((), old.value, new.value)  # a cycle back to this pair adds nothing
        items: tuple[_Item, ...]
        if isinstance(old.value, _Text) or isinstance(new.value, _Text):  # canonical text made elsewhere
            same = self.old_canon.sha256(old) == self.new_canon.sha256(new)
            items = () if same else (self._changed(new, f"{brief(old.value)} -> {brief(new.value)}"),)
        elif isinstance(old.value, dict) and isinstance(new.value, dict):
            items = self._members(old, new)
        elif isinstance(old.value, list) and isinstance(new.value, list):
            items = self._items(old, new)
        elif _same_scalar(old.value, new.value):
            items = ()
        else:
            items = (self._changed(new, f"{brief(old.value)} -> {brief(new.value)}"),)
        self.nodes[key] = (items, old.value, new.value)
        return key

    def _members(self, old: Located, new: Located) -> tuple[_Item, ...]:
        items: list[_Item] = []
        for key in sorted(old.value.keys() | new.value.keys()):
            if key not in new.value:
                items.append(self._add("removed", old.child(key), self.old_spec))
            elif key not in old.value:
                items.append(self._add("added", new.child(key), self.new_spec))
            else:
                items.append(self._node(old.child(key), new.child(key)))
        return tuple(items)

    def _items(self, old: Located, new: Located) -> tuple[_Item, ...]:
        before, after = old.value, new.value
        if all(not isinstance(v, (dict, list)) for v in (*before, *after)):
            if len(before) == len(after) and all(map(_same_scalar, before, after)):
                return ()
            removed = [v for v in before if v not in after]
            added = [v for v in after if v not in before]
            parts = ([f"removed {show_values(removed)}"] if removed else []) + (
                [f"added {show_values(added)}"] if added else []
            )
            return (self._changed(new, "; ".join(parts) or "order changed"),)
        items: list[_Item] = []
        for index in range(max(len(before), len(after))):
            if index >= len(after):
                items.append(self._add("removed", old.child(index), self.old_spec))
            elif index >= len(before):
                items.append(self._add("added", new.child(index), self.new_spec))
            else:
                items.append(self._node(old.child(index), new.child(index)))
        return tuple(items)

    def _changed(self, new: Located, detail: str) -> InputChange:
        return InputChange(origin="spec", change="changed", pointer=place(new, self.new_spec), detail=detail)

    def _add(self, change: Change, located: Located, spec: Spec) -> InputChange:
        detail = (
            brief(located.value) if change == "added" and not isinstance(located.value, (dict, list)) else ""
        )
        return InputChange(origin="spec", change=change, pointer=place(located, spec), detail=detail)


def _same_scalar(old: Any, new: Any) -> bool:
    """Equal as canonical JSON writes them: true is not 1, and 1 is not 1.0."""
    return type(old) is type(new) and old == new
