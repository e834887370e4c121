"""`mcpgen init` on the command line: load the spec, draft, write the file, check that it builds."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from mcpgen.authoring.draft import Progress, init_mapping
from mcpgen.build.server import check_build
from mcpgen.cli.output import say
from mcpgen.diagnostics import DiagnosticError, Level, format_diagnostic, has_errors, rule_name, sort_key
from mcpgen.load.mapping import load_mapping, schema_path
from mcpgen.load.openapi import load_spec_or_diagnostics
from mcpgen.load.remote import RemoteOptions

SERVER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,19}$")  # mapping.schema.json: server.name
PROGRESS_MIN_OPERATIONS = 200


def run_init(
    spec_path: Path | str,
    out: Path,
    *,
    name: str | None,
    force: bool,
    ref_roots: Sequence[Path] = (),
    remote: RemoteOptions | None = None,
) -> int:
    """Exit code: 0 written and it builds, 1 a problem (printed), 2 wrong usage."""
    if name is not None and not SERVER_NAME.match(name):
        say(f"--name {name!r} must be lower_snake_case, start with a letter, at most 20 characters", err=True)
        return 2
    if out.exists() and not force:
        say(f"{out} already exists; pass --force to overwrite it", err=True)
        return 1
    spec, problems = load_spec_or_diagnostics(
        spec_path, display_path=str(spec_path), ref_roots=ref_roots, remote=remote
    )
    if spec is None:
        for diagnostic in sorted(problems, key=sort_key):
            say(format_diagnostic(diagnostic), err=True)
        return 1
    with _progress_bar(len(spec.operations)) as progress:
        text, draft = init_mapping(
            spec, spec_label=_label(spec_path), name=name, schema_ref=_schema_ref(out), progress=progress
        )
    if not draft.tools:
        reasons = "; ".join(f"{u.operation}: {u.reason}" for u in draft.unmapped[:3])
        say(
            f"{spec_path} has no operation a generated server can call, so there is nothing to map"
            + (f" ({reasons})" if reasons else ""),
            err=True,
        )
        return 1
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8", newline="\n")
    # The draft must build as written; if it does not, that is a bug in init, and the message says so.
    # The build's checks say so; the server they would assemble is not needed here.
    try:
        found = check_build(spec, load_mapping(out, str(out)))
    except DiagnosticError as exc:
        found = exc.diagnostics
    # Filtered before sorting: sorting reads each one's line, and finding a line in a JSON spec reads text.
    for diagnostic in sorted((d for d in found if d.level >= Level.WARNING), key=sort_key):
        say(format_diagnostic(diagnostic), err=True)
    if has_errors(found):
        say(f"{out} was written but does not build; please report this as an mcpgen init bug", err=True)
        return 1
    left_out = sum(1 for u in draft.unmapped if u.deliberate)
    unmapped = f", {len(draft.unmapped)} unmapped (listed at the end" if draft.unmapped else ""
    if unmapped:
        unmapped += f"; {left_out} of them sign-in plumbing left out on purpose)" if left_out else ")"
    discovery = f"; on-demand discovery on ({rule_name('T3')})" if draft.discovery else ""
    say(
        f"wrote {out}: {len(draft.tools)} tools, {draft.action_count} actions over "
        f"{draft.operation_count} operations{unmapped}{discovery}"
    )
    say(f"next: edit it, then  mcpgen generate {spec_path} --mapping {out} --out <dir>")
    return 0


def _label(spec_path: Path | str) -> str:
    """How the draft's header names the spec: a file by its name, a URL whole."""
    return spec_path if isinstance(spec_path, str) else spec_path.name


def _schema_ref(out: Path) -> str | None:
    """A path editors can follow to the mapping schema, when it is close by (a checkout, a venv nearby)."""
    relative = Path(os.path.relpath(schema_path(), out.resolve().parent))
    return relative.as_posix() if relative.parts.count("..") <= 3 else None


@contextlib.contextmanager
def _progress_bar(total: int) -> Iterator[Progress | None]:
    if total < PROGRESS_MIN_OPERATIONS:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn
    from rich.progress import Progress as RichProgress

    with RichProgress(
        TextColumn("drafting"),
        BarColumn(),
        MofNCompleteColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("operations", total=total)
        yield lambda done, _total: bar.update(task, completed=done)
