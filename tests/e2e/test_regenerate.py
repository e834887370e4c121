"""Regeneration: unchanged inputs give unchanged bytes, a spec edit touches only its tool's files, and
the user's hooks.py survives every run (C1; STYLE-ANCHORS 10)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mcpgen.cli.app import app
from mcpgen.write.plan import apply_write, plan_write
from tests.e2e.packages import PETSTORE_MAPPING, PETSTORE_SPEC, snapshot, write_package
from tests.github_edits import variant


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


def test_regeneration_keeps_the_users_hooks_and_adds_stubs_for_new_actions(tmp_path: Path) -> None:
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    hooks = out / "petstore_mcp" / "hooks.py"
    edited = (
        hooks.read_text(encoding="utf-8").replace(
            '''    """petstore_orders, action `get` (GET /store/order/{orderId}): before the request is sent."""
    return args''',
            """    args["order_id"] = clamp(args["order_id"])
    return args""",
        )
        + "\n\ndef clamp(order_id: int) -> int:\n    return max(1, min(order_id, 10))\n"
    )
    hooks.write_text(edited, encoding="utf-8")

    mapping = tmp_path / "mapping.yaml"
    text = PETSTORE_MAPPING.read_text(encoding="utf-8")
    text = text.replace(
        "      - name: by_tags\n        operation: findPetsByTags\n"
        "        description: List the pets that carry any of the given tags.\n",
        "",
    )
    text += (
        "      - name: user\n        operation: getUserByName\n        description: Look a store user up.\n"
    )
    mapping.write_text(text, encoding="utf-8")
    spec = tmp_path / "petstore.json"
    spec.write_bytes(PETSTORE_SPEC.read_bytes())

    plan = write_package(spec, mapping, out)
    merged = hooks.read_text(encoding="utf-8")
    assert merged.startswith(edited.split("\n\ndef clamp")[0][:200])
    assert 'args["order_id"] = clamp(args["order_id"])' in merged and "def clamp(order_id: int)" in merged
    assert "def before_orders__user(args: dict[str, Any])" in merged
    assert merged.index("def after_orders__inventory") < merged.index("def before_orders__user")
    assert "def before_pets_find__by_tags" in merged  # its action is gone: kept, and reported
    assert [(d.code, d.message.split()[0]) for d in plan.diagnostics] == [
        ("U002", "before_pets_find__by_tags"),
        ("U002", "after_pets_find__by_tags"),
    ]
    assert write_package(spec, mapping, out).is_noop  # merging twice changes nothing


def test_generate_check_fails_while_hooks_need_new_stubs(tmp_path: Path) -> None:
    out = tmp_path / "petstore"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, out)
    hooks = out / "petstore_mcp" / "hooks.py"
    text = hooks.read_text(encoding="utf-8")
    start = text.index("def before_orders__cancel")
    end = text.index("def before_orders__inventory")
    hooks.write_text(text[:start] + text[end:], encoding="utf-8")  # as if the action were new
    args = ["generate", str(PETSTORE_SPEC), "-m", str(PETSTORE_MAPPING), "-o", str(out)]
    checked = CliRunner().invoke(app, [*args, "--check"])
    assert checked.exit_code == 1
    assert f"would change: {out / 'petstore_mcp' / 'hooks.py'}" in checked.output
    assert CliRunner().invoke(app, args).exit_code == 0
    assert CliRunner().invoke(app, [*args, "--check"]).exit_code == 0
    assert hooks.read_text(encoding="utf-8") == text
