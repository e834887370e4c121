"""Reads of an RPC-style API, which sends every call by POST (Plaid's /transactions/get, an AWS JSON
API's DescribeThings): drafted as finders with `hints: {read_only: true}` (S4), not as changes.

In a spec with no GET at all, a POST reads when its name says so (search, list, get, find, query,
fetch, describe, read, retrieve, lookup, count: the operationId's verb or a word of the path's last
segment, and no word that changes: /item/public_token/exchange, /item/remove) or when the spec marks it
(`x-readonly: true`, `x-read-only`). In a spec with GETs, a POST is a read only when marked, or when it
is a search that pages by its body (actions.py).
"""

from __future__ import annotations

import functools

from mcpgen.authoring.words import CHANGE_VERBS, name_words
from mcpgen.build.request_parts import SpecKey
from mcpgen.load.openapi import Operation, Spec
from mcpgen.names import READ_METHODS, snake_case

RPC_READ_VERBS = frozenset(
    {"search", "list", "get", "find", "query", "fetch", "describe", "read", "retrieve", "lookup", "count"}
)
_MARKERS = ("x-readonly", "x-read-only", "x-readOnly", "x-read_only")
_MIN_OPERATIONS = 3  # a spec this small says nothing about its style


def reads_by_post(spec: Spec, op: Operation, verb: str) -> bool:
    """Does this POST read? `verb` is the operationId's own verb (operations.py)."""
    if op.method != "POST":
        return False
    if any(op.located.value.get(marker) is True for marker in _MARKERS):
        return True
    if not _all_post(SpecKey(spec)):
        return False
    last = op.path.rstrip("/").rsplit("/", 1)[-1].split("#")[-1].split("=")[-1]
    words = {verb} | set(snake_case(last).split("_")) | name_words(snake_case(last))
    return bool(words & RPC_READ_VERBS) and not words & CHANGE_VERBS


@functools.lru_cache(maxsize=8)
def _all_post(key: SpecKey) -> bool:
    operations = key.spec.operations
    return len(operations) >= _MIN_OPERATIONS and not any(o.method in READ_METHODS for o in operations)
