"""Pure: merge a user-owned Python file with its fresh render, keeping everything the user wrote.

The fresh render is the stub and the user's file the source, as in LibCST's ApplyTypeAnnotationsVisitor
(what exists is never overwritten):
- every statement of the user's file stays as written: docstring, imports, helpers, hook bodies, its
  line endings (a CRLF file stays CRLF);
- a top-level function of the fresh render that the user's file does not bind is added, right after
  the function that precedes it in the fresh render, together with those of the fresh render's imports
  it needs and the file lacks. A name counts as bound however the file binds it: a `def` (decorated or
  not), an assignment, an import, inside an `if`/`try`/`with`/`for` at the top level, or through
  `from .sibling import *` (the sibling is read). A star import mcpgen cannot read (`from lib import *`)
  could bind anything, so then nothing is added and the run says why: a stub appended after the user's
  hook would replace it at runtime;
- a hook whose action was renamed (`renames`, old name -> new) follows it: its `def` is renamed. A hook
  bound any other way cannot be renamed safely, so that is an error naming what to rename;
- a user hook (`before_<tool>__<action>`, `after_...`) that no action has any more (`known`) is kept and
  reported at its line in the file as written: nothing calls it any more;
- a file Python cannot parse is an error with Python's own line and column;
- merging the result again with the same fresh render changes nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from mcpgen import codes
from mcpgen.diagnostics import Diagnostic, SourceRef, error, warning

STUB_PREFIXES = ("before_", "after_")
MAX_STAR_DEPTH = 5  # `from .a import *` inside a.py importing from b.py ...: bounded, cycles included

# Reads a module of the package by its dotted name relative to the user's file ("impl", "sub.mod");
# None when there is no such file.
SiblingReader = Callable[[str], str | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class MergeResult:
    code: str
    added: tuple[str, ...] = ()  # stubs added, in the fresh render's order
    orphaned: tuple[str, ...] = ()  # user hooks no action has any more, kept
    renamed: tuple[tuple[str, str], ...] = ()  # (old, new): hooks that followed their action's rename
    imports_added: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def failed(self) -> bool:
        """The file was left as it is because merging it would be wrong (see the error diagnostics)."""
        return any(d.code in (codes.U001, codes.U004) for d in self.diagnostics)


@dataclass(slots=True)
class _Bindings:
    """Top-level names a module binds, with the 1-based line binding each first."""

    lines: dict[str, int] = field(default_factory=dict)
    plain_defs: set[str] = field(default_factory=set)  # `def` directly in the module body: renameable
    opaque: list[tuple[str, int]] = field(default_factory=list)  # unreadable star imports: (module, line)

    def bind(self, name: str, line: int) -> None:
        self.lines.setdefault(name, line)


def merge(
    user_source: str,
    fresh_source: str,
    *,
    path: str = "hooks.py",
    stub_prefixes: Sequence[str] = STUB_PREFIXES,
    known: Collection[str] | None = None,
    renames: Mapping[str, str] | None = None,
    read_sibling: SiblingReader | None = None,
) -> MergeResult:
    """`known`: every hook name some action has (default: the fresh render's functions); `renames`:
    old hook name -> new, for actions the mapping renamed; `read_sibling`: how star imports are read
    (default: the files beside `path`)."""
    problem = _syntax_error(user_source, path)
    if problem is not None:
        return MergeResult(code=user_source, diagnostics=(problem,))
    wrapper = MetadataWrapper(cst.parse_module(user_source))
    user = wrapper.module
    positions = wrapper.resolve(PositionProvider)
    reader = read_sibling or _files_beside(path)
    bindings = _bindings(user, positions, reader)
    fresh = cst.parse_module(fresh_source)
    fresh_functions = _functions(fresh)
    known_names = set(fresh_functions if known is None else known)
    diagnostics: list[Diagnostic] = []

    user, renamed, rename_errors = _follow_renames(user, bindings, dict(renames or {}), path)
    if rename_errors:
        return MergeResult(code=user_source, diagnostics=tuple(rename_errors))
    for old, new in renamed:
        bindings.lines[new] = bindings.lines.pop(old)
    orphaned = [
        name for name in bindings.lines if _looks_like_hook(name, stub_prefixes) and name not in known_names
    ]
    diagnostics += [
        warning(
            codes.U002,
            f"{name} belongs to no action any more; it was kept, and the server no longer calls it",
            SourceRef(file=path, line=bindings.lines[name]),
            hint="delete it if its action is gone for good, or rename it after the action that replaces it",
        )
        for name in orphaned
    ]
    missing = [name for name in fresh_functions if name not in bindings.lines]
    if missing and bindings.opaque:
        module, line = bindings.opaque[0]
        diagnostics.append(
            warning(
                codes.U003,
                f"{path} imports * from {module}, which mcpgen cannot read, so it cannot tell whether "
                f"{', '.join(missing)} are defined there; no stubs were added, so none can replace them",
                SourceRef(file=path, line=line),
                hint="import the hooks by name (from module import before_...), or define them in this file",
            )
        )
        missing = []
    code = user.code
    if not missing:
        return MergeResult(
            code=code, orphaned=tuple(orphaned), renamed=renamed, diagnostics=tuple(diagnostics)
        )
    body = _with_stubs(list(user.body), fresh_functions, missing)
    imports = _needed_imports(fresh, set(bindings.lines), [fresh_functions[name] for name in missing])
    body = _with_imports(body, imports)
    return MergeResult(
        code=user.with_changes(body=body).code,
        added=tuple(missing),
        orphaned=tuple(orphaned),
        renamed=renamed,
        imports_added=tuple(cst.Module(body=[i]).code.strip() for i in imports),
        diagnostics=tuple(diagnostics),
    )


def _syntax_error(source: str, path: str) -> Diagnostic | None:
    """Python's own verdict, at Python's own line and column: what the server would hit at start."""
    try:
        compile(source, path, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:
        line, column = exc.lineno or 1, exc.offset or 1
        return error(
            codes.U001,
            f"{Path(path).name} is not valid Python: {exc.msg} (line {line}, column {column}); the server would "
            "fail to start, so nothing was written",
            SourceRef(file=path, line=line, column=column),
            hint="fix the file and run mcpgen generate again",
        )
    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError as exc:  # Python accepts it, libcst does not (newer syntax)
        return error(
            codes.U001,
            f"{path} uses syntax mcpgen cannot edit yet ({exc.message}); nothing was written",
            SourceRef(file=path, line=exc.raw_line, column=exc.raw_column + 1),
            hint="write that part another way, or move it into a module hooks.py imports by name",
        )
    return None


def _looks_like_hook(name: str, prefixes: Sequence[str]) -> bool:
    """`before_<tool>__<action>`: the two underscores keep helpers like `before_request` out."""
    return name.startswith(tuple(prefixes)) and "__" in name.split("_", 1)[1]


def _functions(module: cst.Module) -> dict[str, cst.FunctionDef]:
    return {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}


# --- what the user's file binds -------------------------------------------------------------------


def _bindings(
    module: cst.Module, positions: Mapping[cst.CSTNode, CodeRange], reader: SiblingReader
) -> _Bindings:
    found = _Bindings()

    def line_of(node: cst.CSTNode) -> int:
        return positions[node].start.line

    def walk(statements: Sequence[cst.CSTNode], top: bool) -> None:
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementSuite):  # `if x: a = 1`
                for small in statement.body:
                    _small_statement(small, line_of(statement), found, reader)
            elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                found.bind(statement.name.value, line_of(statement.name))
                if top and isinstance(statement, cst.FunctionDef):
                    found.plain_defs.add(statement.name.value)
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    _small_statement(small, line_of(statement), found, reader)
            else:
                for block in _blocks(statement):
                    walk(block, False)

    walk(module.body, True)
    return found


def _blocks(statement: cst.CSTNode) -> list[Sequence[cst.CSTNode]]:
    """The statement lists a top-level compound statement runs at import time (not def/class bodies)."""
    blocks: list[Sequence[cst.CSTNode]] = []
    parts: list[cst.CSTNode | None] = [getattr(statement, "body", None)]
    if isinstance(statement, cst.If):
        parts.append(statement.orelse)
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        parts += [*statement.handlers, statement.orelse, statement.finalbody]
    elif isinstance(statement, (cst.For, cst.While)):
        parts.append(statement.orelse)
    for part in parts:
        if isinstance(part, cst.If):  # elif
            blocks += _blocks(part)
        elif isinstance(part, (cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler)):
            blocks += _suite(part.body)
        elif isinstance(part, cst.BaseSuite):
            blocks += _suite(part)
    return blocks


def _suite(suite: cst.BaseSuite) -> list[Sequence[cst.CSTNode]]:
    """An indented block's statements; a one-line suite (`if x: a = 1`) stands for itself."""
    return [suite.body] if isinstance(suite, cst.IndentedBlock) else [[suite]]


def _small_statement(
    small: cst.BaseSmallStatement, line: int, found: _Bindings, reader: SiblingReader
) -> None:
    if isinstance(small, cst.Assign):
        for target in small.targets:
            for name in _target_names(target.target):
                found.bind(name, line)
    elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
        for name in _target_names(small.target):
            found.bind(name, line)
    elif isinstance(small, cst.Import):
        for alias in small.names:
            found.bind(_alias_name(alias), line)
    elif isinstance(small, cst.ImportFrom):
        if not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                found.bind(_alias_name(alias), line)
            return
        module = _relative_module(small)
        names = _star_names(module, reader, 0) if module else None
        if names is None:
            found.opaque.append((_module_text(small), line))
        else:
            for name in names:
                found.bind(name, line)


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def _alias_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    # `import a.b` binds `a`
    return cst.Module(body=[]).code_for_node(alias.name).split(".")[0]


def _module_text(node: cst.ImportFrom) -> str:
    dots = "." * len(node.relative)
    name = cst.Module(body=[]).code_for_node(node.module) if node.module else ""
    return dots + name


def _relative_module(node: cst.ImportFrom) -> str | None:
    """`from .impl import *` -> 'impl'; anything that is not a sibling of the file -> None."""
    if len(node.relative) != 1 or node.module is None:
        return None
    return cst.Module(body=[]).code_for_node(node.module)


def _star_names(module: str, reader: SiblingReader, depth: int) -> set[str] | None:
    """What `from .module import *` binds: its `__all__` when it spells one out, else its public
    top-level names (nested star imports followed). None when it cannot be read."""
    source = reader(module)
    if source is None or depth > MAX_STAR_DEPTH:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            try:
                listed = ast.literal_eval(node.value)
            except ValueError:
                return None
            return {str(n) for n in listed}
    for statement in _ast_top_level(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias in statement.names:
                if alias.name != "*":
                    names.add((alias.asname or alias.name).split(".")[0])
                    continue
                nested = (
                    _star_names(statement.module, reader, depth + 1)
                    if isinstance(statement, ast.ImportFrom) and statement.level == 1 and statement.module
                    else None
                )
                if nested is None:
                    return None
                names |= nested
    return {n for n in names if not n.startswith("_")}


def _ast_top_level(statements: list[ast.stmt]) -> list[ast.stmt]:
    flat: list[ast.stmt] = []
    for statement in statements:
        if isinstance(statement, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
            for block in ("body", "orelse", "finalbody"):
                flat += _ast_top_level(getattr(statement, block, []))
            for handler in getattr(statement, "handlers", []):
                flat += _ast_top_level(handler.body)
        else:
            flat.append(statement)
    return flat


def _files_beside(path: str) -> SiblingReader:
    directory = Path(path).parent

    def read(module: str) -> str | None:
        base = directory.joinpath(*module.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate.read_text(encoding="utf-8")
        return None

    return read


# --- hooks that follow their action's rename ------------------------------------------------------


def _follow_renames(
    user: cst.Module, bindings: _Bindings, renames: dict[str, str], path: str
) -> tuple[cst.Module, tuple[tuple[str, str], ...], list[Diagnostic]]:
    applicable = {old: new for old, new in renames.items() if old in bindings.lines and old != new}
    problems: list[Diagnostic] = []
    for old, new in applicable.items():
        where = SourceRef(file=path, line=bindings.lines[old])
        if new in bindings.lines:
            problems.append(
                error(
                    codes.U004,
                    f"the action of {old} was renamed, so its hook is now {new}, but {path} already "
                    f"defines {new}; the server would call only {new}, so nothing was written",
                    where,
                    hint=f"merge the two into {new} and delete {old}, then run mcpgen generate again",
                )
            )
        elif old not in bindings.plain_defs:
            problems.append(
                error(
                    codes.U004,
                    f"the action of {old} was renamed, so the server now calls {new}; {old} is not a "
                    "plain top-level def mcpgen can rename (it is bound under a statement, imported or "
                    "assigned), so nothing was written",
                    where,
                    hint=f"rename {old} to {new} yourself, then run mcpgen generate again",
                )
            )
    if problems or not applicable:
        return user, (), problems
    renamed = user.visit(_Rename(applicable))
    assert isinstance(renamed, cst.Module)
    return renamed, tuple(sorted(applicable.items())), []


class _Rename(cst.CSTTransformer):
    """Every use of a renamed hook's name in the file: its def and whatever calls or wraps it; and the
    first line of the docstring `mcpgen hooks add` wrote ("<tool>, action `get` (...)"), which names
    the action."""

    def __init__(self, renames: dict[str, str]) -> None:
        super().__init__()
        self.renames = renames

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.renames.get(updated_node.value)
        return updated_node.with_changes(value=new) if new else updated_node

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        old = original_node.name.value
        if old not in self.renames or not isinstance(updated_node.body, cst.IndentedBlock):
            return updated_node
        first = updated_node.body.body[0] if updated_node.body.body else None
        if not (isinstance(first, cst.SimpleStatementLine) and isinstance(first.body[0], cst.Expr)):
            return updated_node
        doc = first.body[0].value
        if not isinstance(doc, cst.SimpleString):
            return updated_node
        text = _stub_subject(doc.value, old, self.renames[old])
        if text == doc.value:
            return updated_node
        line = first.with_changes(body=[first.body[0].with_changes(value=doc.with_changes(value=text))])
        body = updated_node.body.with_changes(body=[line, *updated_node.body.body[1:]])
        return updated_node.with_changes(body=body)


def _stub_subject(doc: str, old: str, new: str) -> str:
    """A stub's docstring with the renamed tool and action: `before_pets__get` -> `before_pets__read`
    turns "petstore_pets, action `get`" into "petstore_pets, action `read`"."""
    old_tool, _, old_action = old.partition("_")[2].partition("__")
    new_tool, _, new_action = new.partition("_")[2].partition("__")
    pattern = re.compile(rf"(\w*?){re.escape(old_tool)}, action `{re.escape(old_action)}`")
    return pattern.sub(lambda m: f"{m.group(1)}{new_tool}, action `{new_action}`", doc, count=1)


# --- adding stubs ---------------------------------------------------------------------------------


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
    fresh: cst.Module, bound: set[str], stubs: list[cst.FunctionDef]
) -> list[cst.SimpleStatementLine]:
    """The fresh render's `from x import y` the added stubs use and the user's file does not bind."""
    used = {node.value for stub in stubs for node in _names(stub)}
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
