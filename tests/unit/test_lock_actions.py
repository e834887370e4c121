"""Regenerating reads an earlier tools.lock.json twice (previous operationIds, hooks): msgspec reads
the members it needs from a lock of the writer's shape, and a lock of any other shape is read member by
member. Both readings must say the same of the same actions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcpgen.pipeline import read_previous_lock
from mcpgen.write.hook_actions import hook_changes
from mcpgen.write.lock_actions import read_lock_actions

LOCK = Path(__file__).resolve().parents[2] / "generated" / "ads" / "tools.lock.json"


def _lock() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(LOCK.read_text(encoding="utf-8"))
    return document


def _off_shape(document: dict[str, Any]) -> dict[str, Any]:
    """The same actions, in a lock msgspec's reading refuses, as a hand-edited file might be: one
    action's parameters hold something that is not a parameter (which the member-by-member reading
    passes over). Members neither reading uses change type too."""
    tools = [t for t in document["tools"] if t["actions"]]
    tools[0]["actions"][0]["params"] = [*tools[0]["actions"][0]["params"], "not a parameter"]
    tools[-1]["actions"][-1]["deprecated"] = 5
    document["server"]["version"] = ["odd"]
    return document


def test_the_writers_lock_is_read_by_msgspec_and_an_odd_one_is_not() -> None:
    text = LOCK.read_bytes()
    assert read_lock_actions(text) is not None
    assert read_lock_actions(json.dumps(_off_shape(_lock()))) is None
    assert read_lock_actions(b"{not json") is None
    assert read_lock_actions(b"[]") is None


def test_hooks_read_the_same_from_either_reading() -> None:
    lock = LOCK.read_text(encoding="utf-8")
    renamed = lock.replace('"name": "pause"', '"name": "halt"')
    typed = hook_changes(lock, renamed)
    assert typed.renames  # the rename is seen at all
    odd_old, odd_new = (json.dumps(_off_shape(json.loads(t))) for t in (lock, renamed))
    assert read_lock_actions(odd_old) is None and read_lock_actions(odd_new) is None
    for old, new in [(odd_old, odd_new), (lock, odd_new), (odd_old, renamed)]:
        lenient = hook_changes(old, new)
        assert (lenient.known, lenient.renames, lenient.renamed_args) == (
            typed.known,
            typed.renames,
            typed.renamed_args,
        )
    assert hook_changes(lock.encode("utf-8"), renamed.encode("utf-8")) == typed


@pytest.mark.parametrize("shape", ["writer's", "odd"])
def test_previous_operation_ids_read_the_same_from_either_reading(tmp_path: Path, shape: str) -> None:
    document = _lock() if shape == "writer's" else _off_shape(_lock())
    (tmp_path / "tools.lock.json").write_text(json.dumps(document, indent=2), encoding="utf-8")
    found = read_previous_lock(tmp_path)
    assert found is not None
    expected = {
        a["operationId"]: f"{a['method'].upper()} {a['path']}"
        for t in _lock()["tools"]
        for a in t["actions"]
        if a["operationId"]
    }
    assert {k: v.key for k, v in found.endpoints.items()} == expected and expected
