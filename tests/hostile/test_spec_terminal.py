"""Text from a spec or mapping never reaches the terminal as control codes (issue 11, the CLI's side of
"spec text becomes code"): a title or operationId holding an OSC sequence that retitles the window
(`ESC ] 0 ; pwned BEL`), one that clears the screen (`ESC [ 2 J`) or an 8-bit CSI is printed with each
control character as a visible `\\u001b` escape, by every command that prints it. Checked through the
real CLI in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.venvs import run_mcpgen

RETITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
CSI = "\x9b"
HOSTILE_ID = f"get{RETITLE}B{CLEAR}"
SHOWN = "\\u001b]0;pwned\\u0007"  # how the retitle sequence is printed
MAPPING = (
    "mcpgen: 1\nserver: {name: t}\ntools:\n"
    "  - {name: a, description: Read a. It changes nothing. Returns it., actions: [{name: get, operation: getA}]}\n"
)


def hostile_spec(directory: Path, title: str = f"Evil {RETITLE} API {CLEAR}{CSI}") -> Path:
    spec = {
        "openapi": "3.0.3",
        "info": {"title": title, "version": "1", "description": f"Reads things.{CLEAR}"},
        "paths": {
            "/a": {"get": {"operationId": "getA", "responses": {"200": {"description": "ok"}}}},
            "/b": {"get": {"operationId": HOSTILE_ID, "responses": {"200": {"description": "ok"}}}},
        },
    }
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "api.openapi.json"
    path.write_text(json.dumps(spec), encoding="utf-8")  # JSON carries the controls as \u escapes
    return path


def assert_no_control_codes(completed, printed: str | None = SHOWN) -> str:
    output = completed.stdout + completed.stderr
    assert "Traceback" not in output
    for code in ("\x1b", "\x07", CSI):
        assert code not in output, repr(output[:2000])
    if printed is not None:
        assert printed in output, output[:2000]
    return output


def test_validate_lists_a_hostile_operation_id_escaped(tmp_path: Path) -> None:
    spec = hostile_spec(tmp_path)
    (tmp_path / "mapping.yaml").write_text(MAPPING, encoding="utf-8")
    completed = run_mcpgen("validate", spec, "-m", tmp_path / "mapping.yaml")
    assert completed.returncode == 0, completed.stderr
    output = assert_no_control_codes(completed)
    assert "GET /b (get\\u001b]0;pwned\\u0007B\\u001b[2J)" in output


def test_a_diagnostic_that_quotes_a_hostile_operation_id_is_escaped(tmp_path: Path) -> None:
    spec = hostile_spec(tmp_path)
    (tmp_path / "mapping.yaml").write_text(
        MAPPING.replace("operation: getA", 'operation: "get]0;pwnedB[2J"'), encoding="utf-8"
    )
    for command in (["validate"], ["generate", "-o", str(tmp_path / "out")], ["lint"]):
        completed = run_mcpgen(command[0], spec, "-m", tmp_path / "mapping.yaml", *command[1:])
        assert completed.returncode == 1, completed.stderr
        assert "error[M201]" in assert_no_control_codes(completed)


def test_diff_shows_a_hostile_title_escaped(tmp_path: Path) -> None:
    old = hostile_spec(tmp_path / "old", title="Plain API")
    new = hostile_spec(tmp_path / "new")
    for side in ("old", "new"):
        (tmp_path / side / "mapping.yaml").write_text(MAPPING, encoding="utf-8")
    for fmt in ("text", "markdown", "json"):
        completed = run_mcpgen(
            "diff",
            f"{old}::{tmp_path / 'old' / 'mapping.yaml'}",
            f"{new}::{tmp_path / 'new' / 'mapping.yaml'}",
            "-f",
            fmt,
        )
        assert completed.returncode == 0, completed.stderr
        assert_no_control_codes(completed)
        if fmt == "json":
            json.loads(completed.stdout)  # the escapes are JSON's own: the output stays valid JSON


def test_init_drafts_and_prints_a_hostile_spec_safely(tmp_path: Path) -> None:
    spec = hostile_spec(tmp_path)
    drafted = tmp_path / "drafted.yaml"
    completed = run_mcpgen("init", spec, "-o", drafted)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert_no_control_codes(completed, printed=None)
    # The operationId cannot be written back into YAML as it is, so the draft names it by method and path.
    assert "operation: GET /b" in drafted.read_text(encoding="utf-8")
    generated = run_mcpgen("generate", spec, "-m", drafted, "-o", tmp_path / "out")
    assert generated.returncode == 0, generated.stderr
    assert_no_control_codes(generated, printed=None)


@pytest.mark.parametrize("output", ["text", "json"])
def test_lint_of_a_hostile_tool_list_is_escaped(tmp_path: Path, output: str) -> None:
    tools = [
        {
            "name": f"bad{RETITLE}name",
            "description": f"Does things.{CLEAR}",
            "inputSchema": {"type": "object", "properties": {f"x{CSI}": {"type": "string"}}},
        }
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    completed = run_mcpgen("lint", tmp_path / "tools.json", "--format", output)
    assert_no_control_codes(completed, printed="\\u001b")
    if output == "json":
        assert json.loads(completed.stdout)
