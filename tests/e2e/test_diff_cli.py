"""`mcpgen diff` on the command line: operands, formats and exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcpgen.cli.app import app
from tests.e2e.packages import PETSTORE_MAPPING, PETSTORE_SPEC, write_package
from tests.unit.test_contract_precision import shop_operand


@pytest.fixture
def two_petstores(tmp_path: Path) -> tuple[Path, Path]:
    """The petstore, and the petstore after a release that reworded one action and dropped another."""
    old = tmp_path / "old"
    write_package(PETSTORE_SPEC, PETSTORE_MAPPING, old)
    mapping = tmp_path / "mapping.yaml"
    text = PETSTORE_MAPPING.read_text(encoding="utf-8")
    text = text.replace("description: Get one pet by its id.", "description: Get one pet by its numeric id.")
    text = text.replace(
        "      - name: inventory\n        operation: getInventory\n        description: Count pets in stock by status.\n",
        "",
    )
    mapping.write_text(text, encoding="utf-8")
    spec = tmp_path / "petstore.json"
    shutil.copy(PETSTORE_SPEC, spec)
    new = tmp_path / "new"
    write_package(spec, mapping, new)
    return old, new


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["diff", *args])
    return result.exit_code, result.output


def test_generated_directories_and_lock_files_are_operands(two_petstores: tuple[Path, Path]) -> None:
    old, new = two_petstores
    code, out = run(str(old), str(new / "tools.lock.json"))
    assert code == 0
    assert "1 breaking, 3 behaviour-affecting" in out
    assert "petstore_orders.inventory: action `inventory` removed" in out
    assert "<- mapping (petstore_orders.inventory): removed at /tools/2/actions/3" in out
    assert "<- mapping (petstore_pets_find.get): changed at /tools/0/actions/2" in out


def test_fail_on_sets_the_exit_code(two_petstores: tuple[Path, Path]) -> None:
    old, new = two_petstores
    assert run(str(old), str(new), "--fail-on", "breaking")[0] == 1
    assert run(str(old), str(old), "--fail-on", "any")[0] == 0


def test_spec_and_mapping_pairs_name_the_exact_place(
    two_petstores: tuple[Path, Path], tmp_path: Path
) -> None:
    old, _ = two_petstores
    pair = f"{tmp_path / 'petstore.json'}::{tmp_path / 'mapping.yaml'}"
    code, out = run(str(old), pair, "--format", "json")
    document = json.loads(out)
    assert code == 0 and document["impact"] == "breaking"
    described = [c for c in document["changes"] if c["code"] == "action-description-changed"]
    inputs = document["input_changes"]  # causes are positions in it
    assert [inputs[c["causes"][0]]["pointer"] for c in described] == [
        "/tools/0/actions/2"
    ]  # locks only on the old side
    both = f"{PETSTORE_SPEC}::{PETSTORE_MAPPING}"
    document = json.loads(run(both, pair, "--format", "json")[1])
    described = [c for c in document["changes"] if c["code"] == "action-description-changed"]
    first = [document["input_changes"][c["causes"][0]] for c in described]
    assert [(cause["pointer"], cause["detail"]) for cause in first] == [
        ("/tools/0/actions/2/description", '"Get one pet by its id." -> "Get one pet by its numeric id."')
    ]


def test_markdown_for_pull_requests(two_petstores: tuple[Path, Path]) -> None:
    old, new = two_petstores
    code, out = run(str(old), str(new), "-f", "markdown")
    assert out.startswith("### Tool contract of `petstore`: 1 breaking, 3 behaviour-affecting\n")
    assert "#### Breaking (1)" in out and "Suggested version: **0.2.0**" in out


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_git_revision_of_a_generated_directory(
    two_petstores: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = two_petstores
    repo = tmp_path / "repo"
    package = repo / "generated" / "petstore"
    shutil.copytree(old, package)

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=repo,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "old")
    shutil.copy(new / "tools.lock.json", package / "tools.lock.json")
    git("commit", "-q", "-am", "new")
    monkeypatch.chdir(repo)
    code, out = run("HEAD~1:generated/petstore", "HEAD:generated/petstore", "--fail-on", "breaking")
    assert code == 1 and "action `inventory` removed" in out
    code, out = run("HEAD~1:generated/missing", "HEAD:generated/petstore")
    assert code == 2 and "git cannot show HEAD~1:generated/missing/tools.lock.json" in out


def test_an_operand_that_cannot_be_read_exits_2(tmp_path: Path) -> None:
    code, out = run(str(tmp_path / "nowhere"), str(tmp_path / "nowhere"))
    assert code == 2 and "no such file or directory" in out
    not_a_lock = tmp_path / "x.json"
    not_a_lock.write_text("{}", encoding="utf-8")
    code, out = run(str(not_a_lock), str(not_a_lock))
    assert code == 2 and "it has no 'tools'" in out


def test_github_annotations_point_at_lock_file_lines(two_petstores: tuple[Path, Path]) -> None:
    old, new = two_petstores
    code, out = run(str(old), str(new), "-f", "github")
    assert code == 0
    lock_lines = (new / "tools.lock.json").read_text(encoding="utf-8").splitlines()
    (removed,) = [line for line in out.splitlines() if "action `inventory` removed" in line]
    assert removed.startswith(f"::error file={new / 'tools.lock.json'},line=")
    line = int(removed.split(",line=")[1].split(",")[0])
    # The action is gone, so the annotation stands at its tool in the new lock file.
    assert '"name": "petstore_orders"' in "\n".join(lock_lines[line - 1 : line + 1])
    assert out.splitlines()[-1].startswith("::notice title=Tool contract of petstore::1 breaking")


def test_github_annotations_of_a_spec_and_mapping_pair_point_at_the_mapping_rule(
    two_petstores: tuple[Path, Path], tmp_path: Path
) -> None:
    old, _ = two_petstores
    mapping = tmp_path / "mapping.yaml"
    code, out = run(str(old), f"{tmp_path / 'petstore.json'}::{mapping}", "-f", "github")
    (described,) = [line for line in out.splitlines() if "petstore_pets_find.get" in line]
    line = int(described.split(",line=")[1].split(",")[0])
    assert described.startswith(f"::warning file={mapping},line=")
    assert "name: get" in mapping.read_text(encoding="utf-8").splitlines()[line - 1]


def test_sarif_output_names_the_lock_file(two_petstores: tuple[Path, Path]) -> None:
    old, new = two_petstores
    code, out = run(str(old), str(new), "--format", "sarif")
    log = json.loads(out)
    assert code == 0 and log["version"] == "2.1.0"
    results = log["runs"][0]["results"]
    assert {r["level"] for r in results} == {"error", "warning"}
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {(new / "tools.lock.json").as_uri()}  # outside the current directory: a file: URI


def test_annotation_and_sarif_paths_are_relative_to_the_current_directory(
    two_petstores: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # as in CI, where the work tree's root is the current directory
    code, out = run("old", "./new", "-f", "github")
    assert "::error file=new/tools.lock.json,line=" in out
    log = json.loads(run("old", "new", "-f", "sarif")[1])
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]
    }
    assert uris == {"new/tools.lock.json"}


def test_an_ignore_list_stops_accepted_changes_failing(
    two_petstores: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = two_petstores
    change_id = "action-removed:petstore_orders.inventory"
    assert change_id in [c["id"] for c in json.loads(run(str(old), str(new), "-f", "json")[1])["changes"]]
    ignore = tmp_path / "diff-ignore.yaml"
    ignore.write_text(
        f"ignore:\n  - change: {change_id}\n    reason: inventory moved to the stock API\n    until: 2999-01-01\n",
        encoding="utf-8",
    )
    code, out = run(str(old), str(new), "--fail-on", "breaking", "--ignore", str(ignore))
    assert code == 0 and "(ignored: inventory moved to the stock API)" in out
    assert run(str(old), str(new), "--fail-on", "behaviour", "--ignore", str(ignore))[0] == 1
    # Expired: warned about, and the change fails again.
    ignore.write_text(
        ignore.read_text(encoding="utf-8").replace("2999-01-01", "2020-01-01"), encoding="utf-8"
    )
    result = CliRunner().invoke(
        app, ["diff", str(old), str(new), "--fail-on", "breaking", "--ignore", str(ignore)]
    )
    assert result.exit_code == 1
    assert f"{ignore}:4:" in result.output and "expired on 2020-01-01" in result.output


def test_a_malformed_ignore_list_exits_2_saying_where(
    two_petstores: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = two_petstores
    ignore = tmp_path / "diff-ignore.yaml"
    ignore.write_text("ignore:\n  - change: x\n", encoding="utf-8")
    code, out = run(str(old), str(new), "--ignore", str(ignore))
    assert code == 2 and f"{ignore}:2:" in out and "reason:" in out


def test_help_documents_the_formats_and_the_ignore_list() -> None:
    out = CliRunner().invoke(app, ["diff", "--help"], terminal_width=200).output
    for text in ("github", "sarif", "--ignore", "until:", "--max-chars", "--unmapped"):
        assert text in out, text


def test_a_concise_field_the_spec_dropped_fails_on_breaking(tmp_path: Path) -> None:
    old = shop_operand(tmp_path, "old")
    dropped_color = shop_operand(tmp_path, "color", fields=("id", "name", "price"))
    code, out = run(old, dropped_color, "--fail-on", "breaking")
    assert code == 1
    assert "1 breaking; suggested version 2.0.0" in out
    assert "shop_items_find: results no longer have `items[].color`" in out
    assert "<- spec: response 200: removed at /components/schemas/Item/properties/color in GET /items" in out
    # A field only the detailed view shows is not one agents were promised by default.
    dropped_price = shop_operand(tmp_path, "price", fields=("id", "name", "color"))
    assert run(old, dropped_price, "--fail-on", "breaking")[0] == 0


def test_a_params_rename_is_annotated_at_its_mapping_line(tmp_path: Path) -> None:
    old = shop_operand(tmp_path, "old")
    new = shop_operand(tmp_path, "new", params={"status": "item_status"})
    mapping = tmp_path / "new.mapping.yaml"
    lines = mapping.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "status: {name: item_status}" in text)
    code, out = run(old, new, "-f", "github", "--fail-on", "breaking")
    assert code == 1
    (error,) = [row for row in out.splitlines() if row.startswith("::error ")]
    assert error.startswith(f"::error file={mapping},line={line},")
    assert "by the mapping's params rule `status: {name: item_status}`" in error
