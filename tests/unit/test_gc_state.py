"""The library leaves Python's cycle collector as its caller set it: enabled or not, the same thresholds,
nothing frozen, and the caller's cyclic garbage still collectable afterwards. Only the `mcpgen` command
rests the collector, for its own run, and turns it back on as the process ends."""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import mcpgen
from mcpgen.authoring.draft import init_mapping
from mcpgen.cli.app import main
from mcpgen.load.openapi import load_spec
from mcpgen.pipeline import generate_lock, load_inputs, read_previous_lock
from tests.support.paths import SPECS

SPEC = SPECS / "ads" / "ads.openapi.yaml"
MAPPING = SPECS / "ads" / "mapping.yaml"

ENTRY_POINTS: dict[str, Callable[[Path], Any]] = {
    "mcpgen.generate": lambda _: mcpgen.generate(SPEC, MAPPING),
    "load_inputs": lambda _: load_inputs(SPEC, MAPPING),
    "generate_lock": lambda _: generate_lock(SPEC, MAPPING),
    "read_previous_lock": lambda tmp: read_previous_lock(tmp),
    "load_spec": lambda _: load_spec(SPEC),
    "init_mapping": lambda _: init_mapping(load_spec(SPEC)),
}


class _Node:
    """Weak-referenceable, so a test can see whether the collector freed it."""

    def __init__(self) -> None:
        self.other: _Node | None = None


@pytest.fixture
def collector_state() -> Iterator[tuple[int, int, int]]:
    """Thresholds no one else sets, restored afterwards whatever the test did."""
    before = (gc.isenabled(), gc.get_threshold())
    gc.set_threshold(1234, 11, 13)
    try:
        yield gc.get_threshold()
    finally:
        gc.set_threshold(*before[1])
        gc.enable() if before[0] else gc.disable()


def _cyclic_garbage() -> weakref.ref[_Node]:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.mark.parametrize("enabled", [True, False], ids=["enabled", "disabled"])
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_library_entry_points_leave_the_collector_as_they_found_it(
    entry: str, enabled: bool, collector_state: tuple[int, int, int], tmp_path: Path
) -> None:
    gc.enable() if enabled else gc.disable()
    frozen = gc.get_freeze_count()
    garbage = _cyclic_garbage()
    ENTRY_POINTS[entry](tmp_path)
    assert gc.isenabled() is enabled
    assert gc.get_threshold() == collector_state
    assert gc.get_freeze_count() == frozen
    gc.collect()
    assert garbage() is None, "the caller's cyclic garbage was moved out of the collector's reach"


def test_the_command_rests_the_collector_for_its_run_only(
    collector_state: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    real_load_spec = load_spec

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real_load_spec(*args, **kwargs)

    monkeypatch.setattr("mcpgen.pipeline.load_spec", watched)
    monkeypatch.setattr(sys, "argv", ["mcpgen", "validate", str(SPEC), "-m", str(MAPPING)])
    gc.enable()
    try:
        with pytest.raises(SystemExit) as exited:
            main()
    finally:
        gc.unfreeze()  # main() ends the process: what is alive then is frozen for the way out
    assert exited.value.code == 0
    assert seen == [False]  # the collector rested while the command ran
    assert gc.isenabled()
    assert gc.get_threshold() == collector_state
