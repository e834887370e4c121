"""A rule id never reaches a user without its name: "T4 names", never a bare "T4".

Code comments and tests of mcpgen cite bare ids; the CLI's help, diagnostics and their hints, the drafted
mapping and the mapping schema's descriptions say the rule's name too, through
`mcpgen.diagnostics.rule_name`, which reads the one table of names. Every line of what a generated package
carries (its runtime's comments included) and of the README says the name.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcpgen.cli.app import app
from mcpgen.diagnostics import RULE_NAMES, rule_name
from tests.support.paths import GENERATED, ROOT

RULE_ID = re.compile(r"\b[TRESPC][1-7]\b")
_BOX = re.compile(r"[│╭╮╰╯─]+")


def bare_ids(text: str) -> list[str]:
    """The ids in `text` that its name does not follow."""
    return [
        m.group()
        for m in RULE_ID.finditer(text)
        if m.group() in RULE_NAMES and not text[m.end() :].startswith(" " + RULE_NAMES[m.group()])
    ]


def _documented_names() -> dict[str, str]:
    """id -> name from the table in docs/rules.md."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| ([TRESPC][1-7]) \| ([^|]+?) \|", text, re.MULTILINE))


def test_every_rule_has_one_name_and_the_docs_use_it() -> None:
    assert RULE_NAMES == _documented_names()
    assert rule_name("T4") == "T4 names"
    assert rule_name("X9") == "X9"  # not a rule: left as it is


def test_bare_ids_are_found() -> None:
    assert bare_ids("too long (T4)") == ["T4"]
    assert bare_ids("rules T2-T7") == ["T2", "T7"]
    assert bare_ids("too long (T4 names); flat (T2 flat action enum)") == []


COMMANDS = [[], *[[c.name] for c in app.registered_commands if c.name]]


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) or "mcpgen" for c in COMMANDS])
def test_help_names_every_rule_it_cites(command: list[str]) -> None:
    result = CliRunner().invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    # Rich wraps help into boxes: read it as one line of words.
    text = " ".join(_BOX.sub(" ", result.output).split())
    assert bare_ids(text) == [], text


def _message_strings(path: Path) -> list[tuple[int, str]]:
    """String constants that are not docstrings, with their line: what a message is made of.

    A constant that is exactly an id is a `rule_name` argument or a lint finding's rule field, which the
    report prints through `rule_name`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and node.value not in RULE_NAMES
    ]


def _json_strings(path: Path) -> list[tuple[int, str]]:
    """Lines of a JSON file (the mapping schema's descriptions reach editors' tooltips)."""
    return list(enumerate(path.read_text(encoding="utf-8").splitlines(), start=1))


def _offenders(area: str) -> list[str]:
    base = ROOT / area
    paths = sorted([*base.rglob("*.py"), *base.rglob("*.json")]) if base.is_dir() else [base]
    return [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in paths
        for line, text in (_json_strings(path) if path.suffix == ".json" else _message_strings(path))
        if bare_ids(text)
    ]


AREAS = [
    "mcpgen/load",
    "mcpgen/authoring",
    "mcpgen/build",
    "mcpgen/lint",
    "mcpgen/contract",
    "mcpgen/cli",
    "mcpgen/write",
    "mcpgen/diagnostics.py",
    "mcpgen/names.py",
    "mcpgen/ir.py",
    "mcpgen/profiles",
    "mcpgen/pipeline.py",
    "mcpgen/render",
    "templates/runtime",
]


@pytest.mark.parametrize("area", AREAS)
def test_messages_name_every_rule_they_cite(area: str) -> None:
    assert _offenders(area) == []


def _bare_lines(paths: list[Path]) -> list[str]:
    """Every line, comments and docstrings included: a user reads all of these files."""
    return [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in paths
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if bare_ids(line)
    ]


def _generated_files(*, hooks: bool) -> list[Path]:
    """The golden packages' text files (source, README, pyproject, tools.json), hooks.py or the rest."""
    files = [
        p
        for p in sorted(GENERATED.rglob("*"))
        if p.is_file() and p.suffix in (".py", ".md", ".toml", ".json")
    ]
    return [p for p in files if (p.name == "hooks.py" and p.parent.name.endswith("_mcp")) == hooks]


def test_the_runtime_names_every_rule_its_comments_cite() -> None:
    """templates/runtime is copied into every package, comments and all."""
    assert _bare_lines(sorted((ROOT / "templates" / "runtime").glob("*.py"))) == []


def test_generated_packages_name_every_rule_they_cite() -> None:
    assert _bare_lines(_generated_files(hooks=False)) == []


def test_generated_hooks_name_every_rule_they_cite() -> None:
    assert _bare_lines(_generated_files(hooks=True)) == []


def test_the_readme_names_every_rule_it_cites() -> None:
    assert _bare_lines([ROOT / "README.md"]) == []


def test_the_expected_diagnostics_name_every_rule_they_cite() -> None:
    """tests/error_cases/expected holds mcpgen's output, as a user reads it, for every bad mapping."""
    assert _bare_lines(sorted((ROOT / "tests" / "error_cases" / "expected").glob("*.txt"))) == []
