"""`mcpgen diff OLD_SPEC::MAP NEW_SPEC::MAP` builds OLD in a forked child while it builds NEW: the diff,
the places it cites and the problems it reports are those of building one after the other (C1)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcpgen.cli.beside import Beside, can_fork_work
from mcpgen.cli.operands import Operand, load_operand, load_operands
from mcpgen.contract.diff.compare import diff_contracts
from mcpgen.contract.format import format_json
from mcpgen.diagnostics import DiagnosticError
from tests.support.paths import SPECS

pytestmark = pytest.mark.skipif(
    not can_fork_work(), reason="builds one after the other here: one core or no fork"
)


def _pair(
    tmp_path: Path, side: str, edit: tuple[str, str] | None = None, spec_edit: tuple[str, str] | None = None
) -> str:
    folder = tmp_path / side
    folder.mkdir()
    spec = (SPECS / "ads" / "ads.openapi.yaml").read_text(encoding="utf-8")
    if spec_edit is not None:
        assert spec_edit[0] in spec
        spec = spec.replace(spec_edit[0], spec_edit[1], 1)
    (folder / "ads.openapi.yaml").write_text(spec, encoding="utf-8")
    mapping = (SPECS / "ads" / "mapping.yaml").read_text(encoding="utf-8")
    if edit is not None:
        assert edit[0] in mapping
        mapping = mapping.replace(edit[0], edit[1], 1)
    (folder / "mapping.yaml").write_text(mapping, encoding="utf-8")
    return f"{side}/ads.openapi.yaml::{side}/mapping.yaml"


def test_both_sides_at_once_give_the_diff_of_one_after_the_other(tmp_path: Path) -> None:
    old = _pair(tmp_path, "old")
    new = _pair(
        tmp_path, "new", spec_edit=("enum: [awareness, traffic, conversions]", "enum: [awareness, traffic]")
    )
    at_once = load_operands(old, new, tmp_path)
    in_turn = (load_operand(old, tmp_path), load_operand(new, tmp_path))
    assert at_once[0].lock == in_turn[0].lock and at_once[1].lock == in_turn[1].lock
    assert at_once[0].mapping_file == in_turn[0].mapping_file == Path("old/mapping.yaml")
    assert at_once[0].sources is not None and at_once[0].sources.spec.document is not None

    def shown(sides: tuple[Operand, Operand]) -> str:
        before, after = sides
        diff = diff_contracts(before.lock, after.lock, old_sources=before.sources, new_sources=after.sources)
        return format_json(diff, old_label=old, new_label=new)

    assert shown(at_once) == shown(in_turn)
    assert '"breaking"' in shown(at_once)


def test_a_side_that_cannot_be_built_is_reported_as_when_built_alone(tmp_path: Path) -> None:
    broken = ("operation: getCampaign", "operation: noSuchOperation")
    old, new = _pair(tmp_path, "old", broken), _pair(tmp_path, "new")
    with pytest.raises(DiagnosticError) as alone:
        load_operand(old, tmp_path)
    with pytest.raises(DiagnosticError) as at_once:
        load_operands(old, new, tmp_path)
    assert at_once.value.diagnostics == alone.value.diagnostics
    assert any("noSuchOperation" in d.message for d in at_once.value.diagnostics)


def test_with_both_sides_broken_the_old_sides_problems_come_first(tmp_path: Path) -> None:
    old = _pair(tmp_path, "old", ("operation: getCampaign", "operation: oldMissing"))
    new = _pair(tmp_path, "new", ("operation: getCampaign", "operation: newMissing"))
    with pytest.raises(DiagnosticError) as at_once:
        load_operands(old, new, tmp_path)
    messages = " ".join(d.message for d in at_once.value.diagnostics)
    assert "oldMissing" in messages and "newMissing" not in messages


def test_the_work_runs_in_another_process_and_a_failure_comes_back_as_none(
    capfd: pytest.CaptureFixture[str],
) -> None:
    assert Beside(os.getpid).result() not in (None, os.getpid())
    assert Beside(lambda: 1 // 0).result() is None  # the caller then does the work itself
    assert capfd.readouterr().err == ""  # no traceback of the child's on the user's terminal
