"""Rooms of a size a newcomer can hold: no module over 800 lines and no function over 80 in mcpgen/ and
templates/runtime/ (the runtime every generated package carries).

The modules and functions that were over on the day this test was written are named below with their
size then: each may only shrink. A new one over the limit, or a named one that grew, fails here with
its place; a named one that is now within the limit fails too, so that its line here is deleted.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import ROOT

MODULE_LIMIT = 800
FUNCTION_LIMIT = 80
CHECKED = ("mcpgen", "templates/runtime")

# path -> lines, and "path:function" -> lines, as they were when the limits were set.
MODULES_OVER: dict[str, int] = {}
FUNCTIONS_OVER: dict[str, int] = {
    "mcpgen/cli/app.py:diff_command": 96,  # a typer command: most of its lines are the options
    "mcpgen/load/mapping.py:_explain": 85,
    "mcpgen/render/package.py:render_server": 81,
}


@dataclass(frozen=True)
class Size:
    place: str
    lines: int


def _files() -> list[Path]:
    return sorted(p for folder in CHECKED for p in (ROOT / folder).rglob("*.py"))


def _measured() -> tuple[list[Size], list[Size]]:
    """(modules, functions) of the checked trees, each with its length in lines (a function from its
    `def` to its last line, decorators left out)."""
    modules, functions = [], []
    for path in _files():
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT).as_posix()
        modules.append(Size(name, len(text.splitlines())))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                end = node.end_lineno or node.lineno
                functions.append(Size(f"{name}:{node.name}", end - node.lineno + 1))
    return modules, functions


def _over(sizes: list[Size], limit: int, allowed: dict[str, int]) -> list[str]:
    problems = []
    for size in sizes:
        if size.lines <= limit:
            continue
        if size.place not in allowed:
            problems.append(f"{size.place}: {size.lines} lines, over the limit of {limit}; split it")
        elif size.lines > allowed[size.place]:
            problems.append(f"{size.place}: {size.lines} lines, grew past its named {allowed[size.place]}")
    return problems


def _within(sizes: list[Size], limit: int, allowed: dict[str, int]) -> list[str]:
    """Named exceptions that are gone or back within the limit: their line above is to be deleted."""
    lines = {s.place: s.lines for s in sizes}
    return [place for place in allowed if lines.get(place, 0) <= limit]


def test_no_module_over_the_limit() -> None:
    modules, _ = _measured()
    assert _over(modules, MODULE_LIMIT, MODULES_OVER) == []
    assert _within(modules, MODULE_LIMIT, MODULES_OVER) == [], "delete these from MODULES_OVER"


def test_no_function_over_the_limit() -> None:
    _, functions = _measured()
    assert _over(functions, FUNCTION_LIMIT, FUNCTIONS_OVER) == []
    assert _within(functions, FUNCTION_LIMIT, FUNCTIONS_OVER) == [], "delete these from FUNCTIONS_OVER"


def test_the_check_sees_a_new_long_function() -> None:
    """The measure itself: a function one line over the limit is reported, one at the limit is not."""
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LIMIT - 1))
    at_limit = ast.parse(f"def f():\n{body}\n")
    over = ast.parse(f"def f():\n{body}\n    return 0\n")
    lengths = [
        [n.end_lineno - n.lineno + 1 for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]  # type: ignore[operator]
        for tree in (at_limit, over)
    ]
    assert lengths == [[FUNCTION_LIMIT], [FUNCTION_LIMIT + 1]]
    assert _over([Size("new.py:f", FUNCTION_LIMIT + 1)], FUNCTION_LIMIT, {}) != []
    assert _over([Size("new.py:f", FUNCTION_LIMIT)], FUNCTION_LIMIT, {}) == []
