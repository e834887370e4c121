"""Pure: merge a user-owned Python file with its fresh render, keeping everything the user wrote.

The fresh render is the stub and the user's file the source, as in LibCST's ApplyTypeAnnotationsVisitor
(what exists is never overwritten):
- every statement of the user's file stays as written: docstring, imports, helpers, hook bodies;
- a top-level function of the fresh render that the user's file does not define is added, right after
  the function that precedes it in the fresh render (so a new action's hooks sit beside their tool's),
  together with those of the fresh render's imports it needs and the file lacks;
- a user function named like a stub (`before_...`, `after_...`) that the fresh render no longer has is
  kept and reported: its action is gone, so nothing calls it any more;
- merging the result again with the same fresh render changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from mcpgen.diagnostics import Diagnostic, SourceRef, warning

STUB_PREFIXES = ("before_", "after_")


@dataclass(frozen=True, slots=True, kw_only=True)
class MergeResult:
    code: str
    added: tuple[str, ...] = ()  # stubs added, in the fresh render's order
    orphaned: tuple[str, ...] = ()  # user stubs the fresh render no longer has, kept
    imports_added: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


def merge(
    user_source: str,
    fresh_source: str,
    *,
    path: str = "hooks.py",
    stub_prefixes: Sequence[str] = STUB_PREFIXES,
) -> MergeResult:
    try:
        wrapper = MetadataWrapper(cst.parse_module(user_source))
    except cst.ParserSyntaxError as exc:
        return MergeResult(
            code=user_source,
            diagnostics=(
                warning(
                    "U001",
                    f"{path} is not valid Python ({exc.message}); it was left as it is and no hooks were added",
                    SourceRef(file=path, line=exc.raw_line, column=exc.raw_column + 1),
                    hint="fix the file and run mcpgen generate again",
                ),
            ),
        )
    user = wrapper.module
    fresh = cst.parse_module(fresh_source)
    fresh_functions = _functions(fresh)
    defined = _bound_names(user)
    missing = [name for name in fresh_functions if name not in defined]
    orphaned = [
        name
        for name in _functions(user)
        if name.startswith(tuple(stub_prefixes)) and name not in fresh_functions
    ]
    positions = wrapper.resolve(PositionProvider)
    diagnostics = tuple(
        warning(
            "U002",
            f"{name} belongs to no action any more; it was kept, and the server no longer calls it",
            SourceRef(file=path, line=positions[_functions(user)[name]].start.line),
            hint="delete it if its action is gone for good, or rename it after the action that replaces it",
        )
        for name in orphaned
    )
    if not missing:
        return MergeResult(code=user_source, orphaned=tuple(orphaned), diagnostics=diagnostics)
    body = _with_stubs(list(user.body), fresh_functions, missing)
    imports = _needed_imports(fresh, user, [fresh_functions[name] for name in missing])
    body = _with_imports(body, imports)
    return MergeResult(
        code=user.with_changes(body=body).code,
        added=tuple(missing),
        orphaned=tuple(orphaned),
        imports_added=tuple(cst.Module(body=[i]).code.strip() for i in imports),
        diagnostics=diagnostics,
    )


def _functions(module: cst.Module) -> dict[str, cst.FunctionDef]:
    return {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}


def _bound_names(module: cst.Module) -> set[str]:
    """Top-level names the module binds: a hook may be a def, an assignment or an import."""
    names: set[str] = set()
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            names.add(statement.name.value)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                names |= _small_statement_names(small)
    return names


def _small_statement_names(small: cst.BaseSmallStatement) -> set[str]:
    if isinstance(small, cst.Assign):
        return {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        return {small.target.value}
    if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
        return {_alias_name(alias) for alias in small.names}
    return set()


def _alias_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    # `import a.b` binds `a`
    return cst.Module(body=[]).code_for_node(alias.name).split(".")[0]


def _with_stubs(
    body: list[cst.BaseStatement], fresh: dict[str, cst.FunctionDef], missing: list[str]
) -> list[cst.BaseStatement]:
    order = list(fresh)
    for name in missing:
        index = _insertion_index(body, order[: order.index(name)], order[order.index(name) + 1 :])
        body.insert(index, fresh[name])
    return body


def _insertion_index(body: list[cst.BaseStatement], before: list[str], after: list[str]) -> int:
    """After the nearest earlier stub present; else before the nearest later one; else at the end."""
    positions = {s.name.value: i for i, s in enumerate(body) if isinstance(s, cst.FunctionDef)}
    for name in reversed(before):
        if name in positions:
            return positions[name] + 1
    for name in after:
        if name in positions:
            return positions[name]
    return len(body)


def _needed_imports(
    fresh: cst.Module, user: cst.Module, stubs: list[cst.FunctionDef]
) -> list[cst.SimpleStatementLine]:
    """The fresh render's `from x import y` the added stubs use and the user's file does not bind."""
    used = {node.value for stub in stubs for node in _names(stub)}
    bound = _bound_names(user)
    needed = []
    for statement in fresh.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
                continue
            wanted = [a for a in small.names if _alias_name(a) in used and _alias_name(a) not in bound]
            if wanted:
                names = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in wanted]
                needed.append(cst.SimpleStatementLine(body=[small.with_changes(names=names)]))
    return needed


def _names(node: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

    node.visit(_Collect())
    return found


def _with_imports(
    body: list[cst.BaseStatement], imports: list[cst.SimpleStatementLine]
) -> list[cst.BaseStatement]:
    if not imports:
        return body
    index = 0
    for i, statement in enumerate(body):
        if _is_import(statement) or (i == 0 and _is_docstring(statement)):
            index = i + 1
    if index and not _is_import(body[index - 1]):  # right after the docstring: one blank line between
        imports = [imports[0].with_changes(leading_lines=[cst.EmptyLine()]), *imports[1:]]
    return body[:index] + list(imports) + body[index:]


def _is_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body
    )


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
