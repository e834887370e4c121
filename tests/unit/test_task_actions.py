"""Which actions the generated server follows as jobs (build/tasks.py): the mapping's `task:`, or a spec
whose operation answers only 202 Accepted with a Location (specs/exports/exports.openapi.yaml,
#/paths/~1exports/post/responses/202), and the mapping's mistakes located."""

from __future__ import annotations

from pathlib import Path

from mcpgen.ir import TaskSpec
from mcpgen.pipeline import generate
from tests.support.paths import SPECS
from tests.support.venvs import run_mcpgen

SPEC = SPECS / "exports" / "exports.openapi.yaml"
MAPPING = (SPECS / "exports" / "mapping.yaml").read_text(encoding="utf-8")
DECLARED = "        task:\n          status: get\n          poll_interval_s: 2\n"


def _built(tmp_path: Path, mapping: str):
    (tmp_path / "mapping.yaml").write_text(mapping, encoding="utf-8")
    return generate(SPEC, tmp_path / "mapping.yaml")


def _start(result) -> TaskSpec | None:
    [tool] = result.server.tools
    return next(a for a in tool.actions if a.name == "start").task


def test_the_mappings_task_names_the_status_action(tmp_path: Path) -> None:
    result = _built(tmp_path, MAPPING)
    assert result.ok
    assert _start(result) == TaskSpec(status="get", poll_interval_s=2.0)


def test_a_202_with_a_location_is_a_job_without_saying_so(tmp_path: Path) -> None:
    assert DECLARED in MAPPING
    result = _built(tmp_path, MAPPING.replace(DECLARED, ""))
    assert result.ok
    assert _start(result) == TaskSpec(status=None)  # its status is read where Location points


def test_a_status_action_the_tool_lacks_is_an_error_at_the_action(tmp_path: Path) -> None:
    result = _built(tmp_path, MAPPING.replace("status: get", "status: fetch"))
    assert not result.ok
    [problem] = [d for d in result.diagnostics if d.code == "M250"]
    assert "'fetch', which tool 'export' does not have (its other actions: get)" in problem.message
    assert problem.source is not None and problem.source.line is not None


def test_task_on_an_operation_that_answers_200_only_is_an_error_at_the_task(tmp_path: Path) -> None:
    """`task:` on getExport, which documents 200 and no 202: the API never answers with a job, so the
    setting would do nothing; validate refuses it where `task:` is written."""
    mapping = MAPPING.replace(DECLARED, "")
    assert "      - name: get\n        operation: getExport\n" in mapping
    mapping = mapping.replace(
        "      - name: get\n        operation: getExport\n",
        "      - name: get\n        operation: getExport\n        task: {}\n",
    )
    result = _built(tmp_path, mapping)
    assert not result.ok
    [problem] = [d for d in result.diagnostics if d.code == "M251"]
    assert "GET /exports/{export_id} answers 200 and documents no 202 Accepted" in problem.message
    assert problem.source is not None and problem.source.pointer.endswith("/task")
    line = mapping.splitlines()[problem.source.line - 1]
    assert line.strip() == "task: {}"


def test_validate_refuses_task_on_an_operation_that_answers_200_only(tmp_path: Path) -> None:
    """The command a user runs: exit 1, the error at the mapping's `task:` line."""
    mapping = MAPPING.replace(DECLARED, "").replace(
        "      - name: get\n        operation: getExport\n",
        "      - name: get\n        operation: getExport\n        task: {}\n",
    )
    (tmp_path / "mapping.yaml").write_text(mapping, encoding="utf-8")
    completed = run_mcpgen("validate", SPEC, "-m", tmp_path / "mapping.yaml")
    line = mapping.splitlines().index("        task: {}") + 1
    assert completed.returncode == 1
    assert f"mapping.yaml:{line}:" in completed.stderr and "error[M251]" in completed.stderr
