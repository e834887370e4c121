"""Every diagnostic code comes from one table, mcpgen/codes.py, and the docs say what it says.

docs/diagnostics.md lists each code with its level and meaning, row for row as the table has them; the
README's families cover every code; call sites name `codes.M219`, never the string "M219", and report
each code at a level the table gives it.
"""

from __future__ import annotations

import ast
import functools
import re

from mcpgen import codes
from mcpgen.codes import REGISTRY, Entry
from mcpgen.diagnostics import Level
from tests.support.paths import ROOT

CODE = re.compile(r"[A-Z]\d{3}")
_ROW = re.compile(r"^\| ([A-Z]\d{3}) \| ([a-z ]+?) \| (.+?) \|$", re.MULTILINE)
_FAMILY_ROW = re.compile(r"^\| ([A-Z]\d{3})-([A-Z]\d{3}) \|", re.MULTILINE)
_LEVELS = {"error": Level.ERROR, "warning": Level.WARNING, "info": Level.INFO}
_REPORTERS = {"error": Level.ERROR, "warning": Level.WARNING, "info": Level.INFO, "_error": Level.ERROR}

# Temporary exceptions: a module being split may write its codes as strings until the split lands.
# None now: every module names `codes.X`.
_NOT_YET_CONVERTED: set[str] = set()


@functools.cache
def _sources() -> dict[str, ast.Module]:
    """mcpgen's modules but the table itself, by path relative to the repository."""
    return {
        p.relative_to(ROOT).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
        for p in sorted((ROOT / "mcpgen").rglob("*.py"))
        if p != ROOT / "mcpgen" / "codes.py"
    }


def _row(entry: Entry) -> str:
    return f"| {entry.code} | {' or '.join(level.name.lower() for level in entry.levels)} | {entry.meaning} |"


def test_each_constant_is_its_own_code() -> None:
    constants = {name: value for name, value in vars(codes).items() if CODE.fullmatch(name)}
    assert constants == {code: code for code in REGISTRY}
    assert all(entry.code == code and entry.levels and entry.meaning for code, entry in REGISTRY.items())


def test_the_docs_table_is_the_registry() -> None:
    """A code added without a row, a row naming no code, or a level or meaning that differs fails here;
    the message shows the rows as the table has them."""
    text = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    documented = [(code, level, meaning) for code, level, meaning in _ROW.findall(text)]
    counted = [code for code, _, _ in documented]
    assert sorted({c for c in counted if counted.count(c) > 1}) == [], "a code has two rows"
    rows = {code: f"| {code} | {level} | {meaning} |" for code, level, meaning in documented}
    expected = {code: _row(entry) for code, entry in REGISTRY.items()}
    missing = [expected[c] for c in expected if c not in rows]
    unknown = [rows[c] for c in rows if c not in expected]
    differing = [(rows[c], expected[c]) for c in expected if c in rows and rows[c] != expected[c]]
    # The registry's row of a code with none, the docs' rows naming no code, (docs, registry) pairs.
    assert {"missing": missing, "unknown": unknown, "differing": differing} == {
        "missing": [],
        "unknown": [],
        "differing": [],
    }
    assert all(level in _LEVELS for _, levels, _ in documented for level in levels.split(" or "))


def test_the_readme_families_cover_every_code_once() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Error codes\n", 1)[1].split("\n## ", 1)[0]
    assert "docs/diagnostics.md" in section
    families = _FAMILY_ROW.findall(section)
    assert families, "the README's table of code families is gone"
    for first, last in families:
        assert first in REGISTRY and last in REGISTRY, f"{first}-{last}: an end names no code"
    owners = {
        code: [f"{a}-{b}" for a, b in families if a[0] == code[0] and a <= code <= b] for code in REGISTRY
    }
    assert {code: found for code, found in owners.items() if len(found) != 1} == {}


def test_every_code_the_docs_mention_exists() -> None:
    """Prose cites codes too (the threat model, the README): each names a code mcpgen has."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    cited = {
        (page.name, found)
        for page in pages
        for found in re.findall(r"\b[FSRMWUGDL]\d{3}\b", page.read_text(encoding="utf-8"))
    }
    assert sorted((page, code) for page, code in cited if code not in REGISTRY) == []


def test_no_module_writes_a_code_as_a_string() -> None:
    found = [
        f"{path}:{node.lineno}: {node.value!r}"
        for path, tree in _sources().items()
        if path not in _NOT_YET_CONVERTED
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.fullmatch(node.value)
    ]
    assert found == [], "name these as codes.X (mcpgen/codes.py)"


def test_the_temporary_exceptions_still_exist() -> None:
    """Each file the check above skips is still there; a split-away one leaves the list."""
    assert sorted(p for p in _NOT_YET_CONVERTED if not (ROOT / p).is_file()) == []


def _named_code(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "codes":
        return node.attr
    return None


def test_every_code_is_reported_somewhere() -> None:
    used: set[str] = set()
    for path, tree in _sources().items():
        for node in ast.walk(tree):
            if (code := _named_code(node) if isinstance(node, ast.expr) else None) is not None:
                used.add(code)
            elif (
                path in _NOT_YET_CONVERTED and isinstance(node, ast.Constant) and isinstance(node.value, str)
            ):
                used.update(found for found in [node.value] if CODE.fullmatch(found))
    assert sorted(used - set(REGISTRY)) == [], "codes.X naming no registered code"
    assert sorted(set(REGISTRY) - used) == [], "registered codes nothing reports"


def _reports(tree: ast.Module) -> list[tuple[ast.Call, str, str]]:
    """Each `error(codes.X, ...)`, `warning(...)`, `info(...)` call: the call, its reporter and X."""
    return [
        (node, node.func.id, code)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _REPORTERS
        if node.args and (code := _named_code(node.args[0])) is not None
    ]


def test_calls_report_a_code_at_a_level_the_registry_gives_it() -> None:
    reports = [(path, *report) for path, tree in _sources().items() for report in _reports(tree)]
    assert len({code for *_, code in reports}) > 40  # else the check below sees little
    wrong = [
        f"{path}:{call.lineno}: {reporter}(codes.{code})"
        for path, call, reporter, code in reports
        if code in REGISTRY and _REPORTERS[reporter] not in REGISTRY[code].levels
    ]
    assert wrong == []
