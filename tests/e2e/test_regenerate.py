"""Regeneration: unchanged inputs give unchanged bytes, a spec edit touches only its tool's files, and
the user's hooks.py survives every run (C1; STYLE-ANCHORS 10)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcpgen.cli.app import app
from mcpgen.write.plan import apply_write, plan_write
from tests.e2e.packages import PETSTORE_MAPPING, PETSTORE_SPEC, snapshot, write_package
from tests.github_edits import variant
from tests.support.release_pair import OPERATION_LINES, write_release_pair


def test_regenerating_unchanged_inputs_is_byte_identical(tmp_path: Path) -> None:
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    first = snapshot(out)
    assert {"tools.lock.json", "petstore_mcp/hooks.py", "petstore_mcp/tools.json"} <= set(first)
    again = write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    assert again.is_noop
    assert again.changed == () and again.added == ()
    assert snapshot(out) == first


def test_a_spec_edit_to_one_tools_operations_changes_only_that_tools_files(tmp_path: Path) -> None:
    """The release edits reach one mapped operation (behind github_issues_find.list) plus a shared
    description and operations no tool maps; github_issues_write's routing table stays as it was."""
    out = tmp_path / "github"
    base, release = variant("base"), variant("release")
    apply_write(plan_write(out, base.result.files, generator="mcpgen test"))
    plan = plan_write(out, release.result.files, generator="mcpgen test")
    assert sorted(plan.changed) == [
        ".mcpgen-manifest.json",
        "github_mcp/tools.json",
        "github_mcp/tools/issues_find.py",
        "tools.lock.json",
    ]
    assert plan.added == () and plan.removed == ()


USER_HOOKS = """

def before_orders__get(args):
    args["order_id"] = clamp(args["order_id"])
    return args


def before_pets_find__by_tags(args):
    return args


def clamp(order_id: int) -> int:
    return max(1, min(order_id, 10))
"""


def _edited_mapping(tmp_path: Path, *edits: tuple[str, str]) -> tuple[Path, Path]:
    """The petstore inputs copied into tmp_path, the mapping with `edits` (old, new) applied."""
    mapping = tmp_path / "mapping.yaml"
    text = PETSTORE_MAPPING.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    mapping.write_text(text, encoding="utf-8")
    spec = tmp_path / "petstore.json"
    spec.write_bytes(PETSTORE_SPEC.read_bytes())
    return spec, mapping


def test_hooks_are_opt_in_and_regeneration_keeps_the_users_hooks(tmp_path: Path) -> None:
    # Before: every action got two do-nothing stubs on every run (a GitHub init package carried
    # thousands), and stubs the user deleted came back. After: hooks.py holds only the docstring until
    # the user writes hooks, a new action adds nothing, a removed action's hook is kept and reported.
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    hooks = out / "petstore_mcp" / "hooks.py"
    fresh = hooks.read_text(encoding="utf-8")
    assert "def " not in fresh and "mcpgen hooks add" in fresh
    edited = fresh + USER_HOOKS
    hooks.write_text(edited, encoding="utf-8")

    spec, mapping = _edited_mapping(
        tmp_path,
        (
            "      - name: by_tags\n        operation: findPetsByTags\n"
            "        description: List the pets that carry any of the given tags.\n",
            "",
        ),
    )
    mapping.write_text(
        mapping.read_text(encoding="utf-8")
        + "      - name: user\n        operation: getUserByName\n        description: Look a store user up.\n",
        encoding="utf-8",
    )
    plan = write_package(spec, mapping, out)
    assert hooks.read_text(encoding="utf-8") == edited  # nothing added for the new action `user`
    assert [(d.code, d.message.split()[0], d.source.line) for d in plan.diagnostics] == [
        (
            "U002",
            "before_pets_find__by_tags",
            edited.splitlines().index("def before_pets_find__by_tags(args):") + 1,
        )
    ]
    assert write_package(spec, mapping, out).is_noop  # merging twice changes nothing


def test_hooks_add_starts_one_actions_hooks_and_check_stays_current(tmp_path: Path) -> None:
    out = tmp_path / "petstore"
    args = ["generate", str(PETSTORE_SPEC), "-m", str(PETSTORE_MAPPING), "-o", str(out)]
    assert CliRunner().invoke(app, args).exit_code == 0
    hooks = out / "petstore_mcp" / "hooks.py"
    added = CliRunner().invoke(app, ["hooks", "add", str(out), "orders", "cancel"])
    assert added.exit_code == 0, added.output
    text = hooks.read_text(encoding="utf-8")
    assert "def before_orders__cancel(args: dict[str, Any]) -> dict[str, Any]:" in text
    assert "def after_orders__cancel(result: dict[str, Any]) -> dict[str, Any]:" in text
    assert "from typing import Any" in text and text.count("def ") == 2
    compile(text, str(hooks), "exec")
    again = CliRunner().invoke(app, ["hooks", "add", str(out), "petstore_orders", "cancel"])
    assert again.exit_code == 0 and "nothing was added" in again.output
    assert hooks.read_text(encoding="utf-8") == text
    assert CliRunner().invoke(app, [*args, "--check"]).exit_code == 0  # the user's stubs are the user's
    wrong = CliRunner().invoke(app, ["hooks", "add", str(out), "orders", "refund"])
    assert wrong.exit_code == 1 and "has no action refund" in wrong.output and "cancel" in wrong.output


def test_a_renamed_actions_hook_follows_it(tmp_path: Path) -> None:
    # Before: renaming action `get` to `fetch` left before_orders__get in hooks.py, the server called
    # before_orders__fetch, and the user's hook silently stopped running. After: it is renamed, and
    # `generate --check` says hooks.py would change until it is.
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    hooks = out / "petstore_mcp" / "hooks.py"
    hooks.write_text(hooks.read_text(encoding="utf-8") + USER_HOOKS, encoding="utf-8")
    spec, mapping = _edited_mapping(
        tmp_path,
        (
            "      - name: get\n        operation: getOrderById",
            "      - name: fetch\n        operation: getOrderById",
        ),
    )
    args = ["generate", str(spec), "-m", str(mapping), "-o", str(out)]
    checked = CliRunner().invoke(app, [*args, "--check"])
    assert checked.exit_code == 1 and f"would change: {hooks}" in checked.output
    assert CliRunner().invoke(app, args).exit_code == 0
    text = hooks.read_text(encoding="utf-8")
    assert "def before_orders__fetch(args):" in text and "before_orders__get" not in text
    assert 'args["order_id"] = clamp(args["order_id"])' in text
    assert CliRunner().invoke(app, [*args, "--check"]).exit_code == 0


def test_a_renamed_actions_hook_that_cannot_follow_fails_generate(tmp_path: Path) -> None:
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    hooks = out / "petstore_mcp" / "hooks.py"
    mine = (
        hooks.read_text(encoding="utf-8")
        + "\nif True:\n    def before_orders__get(args):\n        return args\n"
    )
    hooks.write_text(mine, encoding="utf-8")
    spec, mapping = _edited_mapping(
        tmp_path,
        (
            "      - name: get\n        operation: getOrderById",
            "      - name: fetch\n        operation: getOrderById",
        ),
    )
    args = ["generate", str(spec), "-m", str(mapping), "-o", str(out)]
    for extra in (["--check"], []):
        failed = CliRunner().invoke(app, [*args, *extra])
        assert failed.exit_code == 1, failed.output
        assert "rename before_orders__get to before_orders__fetch yourself" in failed.output
    assert hooks.read_text(encoding="utf-8") == mine
    assert '"name": "get"' in (out / "tools.lock.json").read_text(encoding="utf-8")  # nothing written


def test_a_hooks_file_python_cannot_parse_fails_generate_and_check(tmp_path: Path) -> None:
    # Before: a warning at the wrong line, exit 0, and the server then crashed at start.
    # After: exit 1 from both, at Python's own line and column, and nothing is written.
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    hooks = out / "petstore_mcp" / "hooks.py"
    broken = hooks.read_text(encoding="utf-8") + "\n\ndef before_orders__get(args:\n    return args\n"
    hooks.write_text(broken, encoding="utf-8")
    with pytest.raises(SyntaxError) as python:
        compile(broken, str(hooks), "exec")
    line, column = python.value.lineno, python.value.offset
    assert broken.splitlines()[line - 1] == "def before_orders__get(args:"
    args = ["generate", str(PETSTORE_SPEC), "-m", str(PETSTORE_MAPPING), "-o", str(out)]
    for extra in (["--check"], []):
        failed = CliRunner().invoke(app, [*args, *extra])
        assert failed.exit_code == 1
        assert f"{hooks}:{line}:{column}: error" in failed.output
        assert "'(' was never closed" in failed.output
    assert hooks.read_text(encoding="utf-8") == broken


def test_a_crlf_hooks_file_stays_crlf(tmp_path: Path) -> None:
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    hooks = out / "petstore_mcp" / "hooks.py"
    crlf = (hooks.read_text(encoding="utf-8") + USER_HOOKS).replace("\n", "\r\n").encode("utf-8")
    hooks.write_bytes(crlf)
    assert write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out).is_noop
    assert hooks.read_bytes() == crlf
    assert CliRunner().invoke(app, ["hooks", "add", str(out), "orders", "place"]).exit_code == 0
    text = hooks.read_bytes().decode("utf-8")
    assert "def before_orders__place(args: dict[str, Any]) -> dict[str, Any]:\r\n" in text
    assert "\n" not in text.replace("\r\n", "")


def _mcpgen(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The installed console script in its own process: exit code and stderr as a user sees them."""
    script = Path(sys.executable).parent / "mcpgen"
    argv = [str(script), *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def test_regenerating_against_a_new_release_names_the_old_endpoints_and_warns_of_a_reused_id(
    tmp_path: Path,
) -> None:
    # The release pair of tests/support/release_pair.py. Before: "did you mean 'listPetsByTag'?" for
    # listPets, nothing for showPetById, and projects/list-for-org silently calling /projectsV2.
    before, after, mapping = write_release_pair(tmp_path)
    out = tmp_path / "zoo"
    assert (
        CliRunner().invoke(app, ["generate", str(before), "-m", str(mapping), "-o", str(out)]).exit_code == 0
    )
    lock = (out / "tools.lock.json").read_text(encoding="utf-8")

    failed = _mcpgen("generate", after, "-m", mapping, "-o", out)
    assert failed.returncode == 1
    lock_file = out / "tools.lock.json"
    assert (
        f"{mapping}:{OPERATION_LINES['list']}:9: error[M201] /tools/0/actions/0/operation: no operation with "
        f"operationId 'listPets' in the spec; action 'list' called GET /pets with it when the package was last "
        f"generated ({lock_file})\n    hint: did you mean 'pets/list'? The spec now names GET /pets 'pets/list': "
        "write `operation: pets/list`; other operationIds with a similar name: 'listPetsByTag'\n"
    ) in failed.stderr
    assert f"{mapping}:{OPERATION_LINES['get']}:9: error[M201]" in failed.stderr
    assert "hint: did you mean 'getPet'?" in failed.stderr
    assert (
        f"{mapping}:{OPERATION_LINES['projects']}:9: warning[M219] /tools/1/actions/0/operation: operationId "
        "'projects/list-for-org' now names GET /orgs/{org}/projectsV2: action 'projects' called "
        "GET /orgs/{org}/projects with it"
    ) in failed.stderr
    assert failed.stderr.endswith("no files were written\n")
    assert (out / "tools.lock.json").read_text(encoding="utf-8") == lock

    fixed = tmp_path / "fixed.mapping.yaml"
    text = mapping.read_text(encoding="utf-8")
    for old, new in [
        ("operation: listPets", "operation: pets/list"),
        ("operation: showPetById", "operation: getPet"),
        ("operation: listMembers", "operation: GET /orgs/{org}/members"),
        ("      - name: remove\n        operation: deletePet\n        description: Remove one pet.\n", ""),
    ]:
        text = text.replace(old, new)
    fixed.write_text(text, encoding="utf-8")
    args = ["generate", str(after), "-m", str(fixed), "-o", str(out)]
    strict = CliRunner().invoke(app, [*args, "--fail-on-warning"])
    assert strict.exit_code == 1 and "warning[M219]" in strict.stderr
    written = _mcpgen(*args)
    assert written.returncode == 0, written.stderr
    (warned,) = [line for line in written.stderr.splitlines() if "warning[M219]" in line]
    line = text.splitlines().index("        operation: projects/list-for-org") + 1
    assert warned.startswith(f"{fixed}:{line}:9: warning[M219] /tools/1/actions/0/operation: ")
    assert '"path": "/orgs/{org}/projectsV2"' in (out / "tools.lock.json").read_text(encoding="utf-8")
    again = CliRunner().invoke(app, args)  # the new lock records the new endpoint: said once
    assert again.exit_code == 0 and "M219" not in again.stderr
