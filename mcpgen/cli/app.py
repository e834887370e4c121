"""Command line: parses flags, prints diagnostics, sets exit codes. The work happens in the pipeline."""

from __future__ import annotations

import datetime
import enum
import gc
import shlex
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer

from mcpgen.build.contract import contract
from mcpgen.build.discovery import META_KEY
from mcpgen.build.server import build_server
from mcpgen.cli.check import CHECK_HELP, check_command
from mcpgen.cli.config import (
    discovery_offer,
    install_line,
    print_config,
    profile_report,
    resolve_launch,
    scripts_dir,
)
from mcpgen.cli.hooks import add_hook_stubs, report_added, write_hooks
from mcpgen.cli.init import run_init
from mcpgen.cli.lint import profile_summary, run_lint
from mcpgen.cli.operands import file_places, load_operands
from mcpgen.cli.output import say
from mcpgen.cli.spec_source import (
    AllowHttpOpt,
    RefHostsOpt,
    RefRootsOpt,
    SpecArg,
    remote_options,
    spec_input,
)
from mcpgen.contract.diff.compare import diff_contracts
from mcpgen.contract.diff.kinds import Impact
from mcpgen.contract.diff.model import ContractDiff
from mcpgen.contract.format import MARKDOWN_BUDGET, TEXT_BUDGET, format_diff
from mcpgen.contract.ignore import IgnoreList, apply_ignore_list, load_ignore_list
from mcpgen.contract.scanning import SARIF_BUDGET, format_annotations, format_sarif
from mcpgen.diagnostics import (
    Diagnostic,
    DiagnosticError,
    Level,
    format_diagnostic,
    has_errors,
    rule_name,
    sort_key,
    terminal_safe,
)
from mcpgen.ir import ServerSpec
from mcpgen.load.mapping import schema_path
from mcpgen.pipeline import generate, load_inputs, read_previous_lock
from mcpgen.profiles import CLIENT_PROFILES, PROFILES, Profile, get_profile
from mcpgen.render.clients import (
    CLIENT_TITLES,
    CLIENTS,
    DEFAULT_HTTP_URL,
    client_config,
    http_start_command,
)
from mcpgen.version import __version__
from mcpgen.write.plan import WritePlan, apply_write, plan_write

app = typer.Typer(
    name="mcpgen",
    help=(
        "Generate an MCP server package from an OpenAPI spec and a workflow mapping file.\n\n"
        "The mapping file groups operations into a few task-level tools, each with a flat `action` "
        "enum. Start from the bundled example:\n\n"
        "  mcpgen generate specs/ads/ads.openapi.yaml --mapping specs/ads/mapping.yaml --out /tmp/ads\n\n"
        "Exit codes: 0 success, 1 problems in the inputs (each printed as file:line: pointer: message), "
        "2 wrong usage."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


PROFILE_NAMES = ", ".join(PROFILES)


class DiffFormat(enum.StrEnum):
    text = "text"
    markdown = "markdown"
    json = "json"
    github = "github"
    sarif = "sarif"


class Unmapped(enum.StrEnum):
    listed = "list"
    counted = "count"


class FailOn(enum.StrEnum):
    breaking = "breaking"
    behaviour = "behaviour"
    any = "any"


MappingOpt = Annotated[
    Path,
    typer.Option(
        "--mapping", "-m", help="Workflow mapping file (YAML); see `mcpgen schema`.", show_default=False
    ),
]


@app.command("generate")
def generate_command(
    spec: SpecArg,
    mapping: MappingOpt,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Directory of the generated package.", show_default=False)
    ],
    check: Annotated[
        bool,
        typer.Option("--check", help="Write nothing; exit 1 if regenerating would change any file (for CI)."),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Write into a directory mcpgen did not create.")
    ] = False,
    fail_on_warning: Annotated[
        bool, typer.Option("--fail-on-warning", help="Treat warnings as errors.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only warnings and errors.")] = False,
    profile: Annotated[
        str | None,
        typer.Option(
            "--profile",
            help=f"Serve inputSchemas that a client or provider accepts: {PROFILE_NAMES} (README "
            "'Clients' says what each changes). Dropped constraints move into descriptions; the server "
            "still checks them.",
        ),
    ] = None,
    allow_ref_root: RefRootsOpt = None,
    allow_http: AllowHttpOpt = False,
    allow_ref_host: RefHostsOpt = None,
) -> None:
    """Generate (or regenerate) the server package in OUT.

    Nothing is written unless the whole package renders; a failure leaves OUT as it was. Files mcpgen
    did not write (a virtualenv, caches) are left alone. When OUT holds a package generated before, its
    tools.lock.json tells which endpoint each action called: an operationId the new spec renamed is
    reported with the endpoint and its new operationId, and one it reuses for another endpoint warns.
    """
    chosen = _profile(profile)
    previous = read_previous_lock(out)  # regenerating: rename hints and rebound operationIds
    roots, remote = allow_ref_root or (), remote_options(allow_http, allow_ref_host)
    result = generate(spec_input(spec), mapping, chosen, ref_roots=roots, previous=previous, remote=remote)
    _report(result.diagnostics, quiet)
    if not result.ok or (fail_on_warning and _has_warnings(result.diagnostics)):
        say("no files were written", err=True)
        raise typer.Exit(1)
    assert result.server is not None
    plan = plan_write(out, result.files, generator=f"mcpgen {__version__}")
    _report(plan.diagnostics, quiet)  # from merging user-owned files, e.g. hooks of removed actions
    if has_errors(plan.diagnostics):  # hooks.py does not parse, or a renamed action's hook cannot follow
        typer.echo("no files were written", err=True)
        raise typer.Exit(1)
    if check:
        _check(out, plan)
        return
    try:
        apply_write(plan, force=force)
    except DiagnosticError as exc:
        _report(exc.diagnostics, quiet)
        raise typer.Exit(1) from None
    if not quiet:
        _say_generated(result.server, out, plan, chosen, spec, mapping)


def _say_generated(
    server: ServerSpec, out: Path, plan: WritePlan, chosen: Profile | None, spec: str, mapping: Path
) -> None:
    """What `generate` wrote, what tools/list serves, and the lines that install, run and connect it."""
    actions = sum(len(t.actions) for t in server.tools)
    served = [t for t in contract(server, chosen) if _listed(t, server)]
    say(
        f"generated {server.package_name} in {out}: {len(server.tools)} tools, {actions} actions; "
        f"tools/list serves {len(served)} ({', '.join(t['name'] for t in served[:6])}"
        f"{', ...' if len(served) > 6 else ''}) "
        f"({len(plan.added)} files added, {len(plan.changed)} changed, {len(plan.removed)} removed)"
    )
    if server.unmapped_operations:
        say(f"{len(server.unmapped_operations)} operations are not mapped; `mcpgen validate` lists them")
    if chosen is not None:
        say(profile_summary(server, chosen))
    # Into the Python mcpgen runs on, and its script by full path: neither needs an activated venv.
    say(f"run it:  {install_line(pip_target(out), server.distribution_name)}")
    script = (str(scripts_dir() / server.distribution_name),)
    claude_code = client_config(server, "claude-code", "stdio", command=script)
    say(f"then connect Claude Code:  {claude_code.text}")
    say(
        f"other clients (Claude Desktop, VS Code, Cursor, Windsurf; stdio or HTTP): "
        f"`mcpgen config CLIENT {shlex.quote(str(spec))} -m {shlex.quote(str(mapping))}` once installed "
        f"(it writes the installed script's full path), or see {out / 'README.md'}"
    )


def _listed(tool: dict[str, object], server: ServerSpec) -> bool:
    """Whether tools/list serves `tool`: with discovery on, only the meta-tools."""
    meta = tool.get("_meta")
    return not server.discovery or (isinstance(meta, dict) and META_KEY in meta)


@app.command("config")
def config_command(
    client: Annotated[str, typer.Argument(help=f"The MCP client: {', '.join(CLIENTS)}.", show_default=False)],
    spec: SpecArg,
    mapping: MappingOpt,
    http: Annotated[
        bool, typer.Option("--http", help="Connect to a server already running over streamable HTTP.")
    ] = False,
    url: Annotated[
        str, typer.Option("--url", help="With --http: the server's MCP endpoint.")
    ] = DEFAULT_HTTP_URL,
    command: Annotated[
        str | None,
        typer.Option(
            "--command",
            help="The command that starts the server over stdio. Default: the absolute path of the "
            "installed console script (found on PATH or in mcpgen's own environment), since a client "
            "started from the desktop does not read your shell's PATH; e.g. --command "
            "'uvx --from /abs/path/to/package myapi-mcp' to run it without installing.",
        ),
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            "--profile",
            help=f"Check the served tools against this profile ({PROFILE_NAMES}) instead of the "
            "client's own (vscode: vscode-copilot; the others: the client's name).",
        ),
    ] = None,
    allow_ref_root: RefRootsOpt = None,
    allow_http: AllowHttpOpt = False,
    allow_ref_host: RefHostsOpt = None,
) -> None:
    """Print CLIENT's configuration for the server SPEC and MAPPING generate: the command that launches it
    (or its URL) and the environment variables it needs, with placeholders for credentials.
    The text goes to stdout; where it belongs, and what the client's profile finds in the served tools
    (names past its length limit, too many tools, schemas it refuses), go to stderr."""
    if client not in CLIENTS:
        raise typer.BadParameter(f"use one of {', '.join(CLIENTS)}", param_hint="CLIENT")
    chosen = _profile(profile or CLIENT_PROFILES[client])
    assert chosen is not None
    remote = remote_options(allow_http, allow_ref_host)
    result = generate(spec_input(spec), mapping, None, ref_roots=allow_ref_root or (), remote=remote)
    _report(result.diagnostics, quiet=True)
    if not result.ok or result.server is None:
        raise typer.Exit(1)
    server = result.server
    title = CLIENT_TITLES[client]
    notes = profile_report(server, title, chosen, spec, mapping)
    offer = discovery_offer(server, client, title)
    notes += [offer] if offer else []
    if http:
        config = client_config(server, client, "http", url=url)
        launch = resolve_launch(server, command)
        notes.append(f"start the server first: {http_start_command(server, url, launch.argv)}")
    else:
        launch = resolve_launch(server, command)
        if launch.note:
            notes.append(launch.note)
        config = client_config(server, client, "stdio", command=launch.argv)
    print_config(config.text, f"{title}: put this in {config.where}", [n for n in notes if n])


def pip_target(out: Path) -> str:
    """OUT as pip reads it as a directory, never as a package name on the index: `my_server` is a
    project on PyPI, `./my_server` is this directory. Quoted for the shell when it needs it."""
    text = out.as_posix()
    if not out.is_absolute() and not text.startswith(("./", "../")):
        text = f"./{text}"
    return shlex.quote(text)


hooks_app = typer.Typer(help="Start custom code around one action in the package's hooks.py.")
app.add_typer(hooks_app, name="hooks")


@hooks_app.command("add")
def hooks_add_command(
    out: Annotated[Path, typer.Argument(help="The generated package's directory.", show_default=False)],
    tool: Annotated[str, typer.Argument(help="The tool, with or without the server's prefix.")],
    action: Annotated[str, typer.Argument(help="The action of that tool.")],
) -> None:
    """Add the before/after stubs of ACTION of TOOL to OUT's hooks.py (hooks are opt-in: an action
    without hooks simply calls the API). Hooks already defined, in any way, are left as they are."""
    path, result = add_hook_stubs(out, tool, action)
    _report(result.diagnostics, False)
    if has_errors(result.diagnostics):
        raise typer.Exit(1)
    if result.added:
        write_hooks(path, result)
    report_added(path, result)


def _check(out: Path, plan: WritePlan) -> None:
    """`generate --check`: say what regenerating would do, exit 1 unless the package is current."""
    if plan.is_current:
        say(f"{out}: up to date")
        return
    for label, paths in (
        ("would add", plan.added),
        ("would change", plan.changed),
        ("would remove", plan.removed),
        ("not written by mcpgen", plan.untracked),  # each also a warning, with what to do
    ):
        for path in paths:
            say(f"{label}: {out / path}", err=True)
    if not plan.is_noop:
        say(f"{out} is out of date; run the same command without --check", err=True)
    if plan.untracked:
        say(f"{out} holds files mcpgen did not write inside the package; move them out", err=True)
    raise typer.Exit(1)


def _profile(name: str | None) -> Profile | None:
    if name is None:
        return None
    try:
        return get_profile(name)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--profile") from None


@app.command(
    "lint",
    help="Check a tool surface against the agent-tool rules ("
    + "; ".join(rule_name(r) for r in ("T2", "T3", "T4", "T5", "T6", "T7"))
    + ": docs/rules.md explains each, and ships inside mcpgen too) and, optionally, a provider's "
    "strict mode.\n\n"
    "Exit codes: 0 clean at the --fail-on level, 1 findings at that level or unreadable input, 2 wrong usage.",
)
def lint_command(
    target: Annotated[
        str,  # a str, not a Path: a Path would fold a spec URL's '//' into one slash
        typer.Argument(
            help="A generated package directory, a tools.json (any MCP tool list, a peer's too), "
            "or an OpenAPI spec (its path or https:// URL) together with --mapping.",
            show_default=False,
        ),
    ],
    mapping: Annotated[
        Path | None,
        typer.Option("--mapping", "-m", help="With a spec as TARGET: lint what `generate` would serve."),
    ] = None,
    profile: Annotated[
        str | None,
        typer.Option(
            "--profile",
            help=f"Also check what a client or provider accepts: {PROFILE_NAMES}. With a spec and "
            "--mapping, lints what `generate --profile` would serve.",
        ),
    ] = None,
    output: Annotated[str, typer.Option("--format", help="text, or json for CI.")] = "text",
    fail_on: Annotated[
        str, typer.Option("--fail-on", help="error or warning: what makes the exit code 1.")
    ] = "error",
    show: Annotated[
        str, typer.Option("--show", help="Lowest level listed in text output: info, warning, error.")
    ] = "warning",
    budget: Annotated[
        int, typer.Option("--budget", help=f"Token budget of all definitions ({rule_name('T3')}).")
    ] = 10_000,
    allow_ref_root: RefRootsOpt = None,
    allow_http: AllowHttpOpt = False,
    allow_ref_host: RefHostsOpt = None,
) -> None:
    if output not in ("text", "json"):
        raise typer.BadParameter("use text or json", param_hint="--format")
    if fail_on not in ("error", "warning"):
        raise typer.BadParameter("use error or warning", param_hint="--fail-on")
    if show not in ("info", "warning", "error"):
        raise typer.BadParameter("use info, warning or error", param_hint="--show")
    raise typer.Exit(
        run_lint(
            spec_input(target),
            mapping,
            _profile(profile),
            output=output,
            fail_on=fail_on,
            show=show,
            budget=budget,
            ref_roots=allow_ref_root or (),
            remote=remote_options(allow_http, allow_ref_host),
        )
    )


app.command("check", help=CHECK_HELP)(check_command)


@app.command("validate")
def validate_command(
    spec: SpecArg,
    mapping: MappingOpt,
    allow_ref_root: RefRootsOpt = None,
    allow_http: AllowHttpOpt = False,
    allow_ref_host: RefHostsOpt = None,
) -> None:
    """Check the spec and the mapping file, and list the operations no tool maps."""
    remote = remote_options(allow_http, allow_ref_host)
    loaded_spec, loaded_mapping, diagnostics = load_inputs(
        spec_input(spec), mapping, ref_roots=allow_ref_root or (), remote=remote
    )
    if loaded_spec is None or loaded_mapping is None:
        _report(diagnostics, quiet=False)
        raise typer.Exit(1)
    try:
        built = build_server(loaded_spec, loaded_mapping, spec_file=str(spec), mapping_file=str(mapping))
    except DiagnosticError as exc:
        _report(exc.diagnostics, quiet=False)
        raise typer.Exit(1) from None
    _report(built.diagnostics, quiet=False)
    if built.server is None:
        raise typer.Exit(1)
    server = built.server
    mapped = sum(len(t.actions) for t in server.tools)
    say(f"ok: {len(server.tools)} tools, {mapped} actions over {len(loaded_spec.operations)} operations")
    if server.unmapped_operations:
        say(f"{len(server.unmapped_operations)} operations are not mapped by any tool:")
        for line in server.unmapped_operations:
            say(f"  {line}")


@app.command(
    "diff",
    help=f"Explain how the tool contract changed between OLD and NEW, and why ({rule_name('C1')}).\n\n"
    "OPERANDS: a tools.lock.json; a generated package directory; SPEC::MAPPING (generated in memory, "
    "nothing written; SPEC a path or an https:// URL; with both sides in this form the specs are compared "
    "value by value); or REV:PATH, "
    "a lock file or generated directory at a git revision (e.g. HEAD~1:generated/petstore).\n\n"
    "Each change is breaking, behaviour-affecting, a deprecation or additive (most severe first) and names the spec or mapping change it "
    "comes from. Exit codes: 0 done, 1 --fail-on matched, 2 an operand cannot be read or built.",
)
def diff_command(
    old: Annotated[str, typer.Argument(help="The contract before: see OPERANDS below.", show_default=False)],
    new: Annotated[str, typer.Argument(help="The contract after.", show_default=False)],
    fmt: Annotated[
        DiffFormat,
        typer.Option(
            "--format",
            "-f",
            help="text (coloured on a terminal); markdown (a pull-request comment); json; github "
            "(GitHub Actions annotations: ::error/::warning/::notice lines at lock or mapping file "
            "lines); sarif (SARIF 2.1.0 for code-scanning uploads).",
        ),
    ] = DiffFormat.text,
    fail_on: Annotated[
        FailOn | None,
        typer.Option(
            "--fail-on",
            help="Exit 1 on changes this serious or worse; 'any' includes input changes that changed no "
            "tool. Changes on the --ignore list do not count.",
        ),
    ] = None,
    ignore: Annotated[
        Path | None,
        typer.Option(
            "--ignore",
            metavar="FILE",
            help="Ignore list (YAML): `ignore:` entries, each with `change:` (a change id, as the JSON "
            "and SARIF output show it, e.g. param-removed:tool.action#param) or "
            "`pointer:` (a spec or mapping JSON pointer; ignores the changes all of whose causes are at "
            "or under it), a `reason:`, and optionally `until: YYYY-MM-DD`. Ignored changes are still "
            "shown, marked, and no longer fail --fail-on; an expired entry is warned about and ignores "
            "nothing.",
            show_default=False,
        ),
    ] = None,
    max_chars: Annotated[
        int,
        typer.Option(
            "--max-chars",
            min=0,
            help=f"markdown, text, sarif: at most this many characters (markdown {MARKDOWN_BUDGET:,}, GitHub's "
            f"comment limit; text {TEXT_BUDGET:,}; sarif {SARIF_BUDGET:,}); the rest counted, the JSON has all.",
        ),
    ] = 0,
    unmapped: Annotated[
        Unmapped,
        typer.Option(
            "--unmapped",
            help="Spec changes in operations no tool maps: list them (markdown: in a collapsed block) "
            "or only count them.",
        ),
    ] = Unmapped.listed,
    allow_ref_root: RefRootsOpt = None,
    allow_http: AllowHttpOpt = False,
    allow_ref_host: RefHostsOpt = None,
) -> None:
    roots, remote = tuple(allow_ref_root or ()), remote_options(allow_http, allow_ref_host)
    try:
        before, after = load_operands(old, new, Path.cwd(), ref_roots=roots, remote=remote)
        ignore_list = load_ignore_list(ignore) if ignore is not None else None
    except DiagnosticError as exc:
        _report(exc.diagnostics, quiet=True)
        raise typer.Exit(2) from None
    diff = diff_contracts(before.lock, after.lock, old_sources=before.sources, new_sources=after.sources)
    ignored = _ignored(diff, ignore_list)
    if fmt in (DiffFormat.github, DiffFormat.sarif):
        places = file_places(after)
        formatted = (
            format_annotations(diff, places, ignored=ignored)
            if fmt is DiffFormat.github
            else format_sarif(diff, places, ignored=ignored, version=__version__, budget=max_chars)
        )
        say(formatted, nl=False)
    else:

        def render(colour: bool) -> str:
            return format_diff(
                diff,
                fmt.value,
                old_label=old,
                new_label=new,
                colour=colour,
                budget=max_chars,
                unmapped=unmapped.value,
                ignored=ignored,
            )

        plain = render(colour=False)
        # Colour codes only when the input-derived text holds no control codes of its own to escape.
        if fmt is DiffFormat.text and sys.stdout.isatty() and terminal_safe(plain) == plain:
            typer.echo(render(colour=True), nl=False)
        else:
            say(plain, nl=False)
    if fail_on is not None and _fails(diff, fail_on, ignored, ignore_list):
        raise typer.Exit(1)


def _ignored(diff: ContractDiff, ignore_list: IgnoreList | None) -> dict[str, str]:
    """The changes the ignore list covers, by id, with its reason; what it says of itself reported."""
    if ignore_list is None:
        return {}
    applied = apply_ignore_list(ignore_list, diff, today=datetime.date.today())
    _report(applied.diagnostics, quiet=True)
    return dict(applied.changes)


def _fails(
    diff: ContractDiff, fail_on: FailOn, ignored: dict[str, str], ignore_list: IgnoreList | None
) -> bool:
    counted = [c for c in diff.changes if c.id not in ignored]
    if fail_on is FailOn.any:
        inputs = [i for i in diff.other_inputs if ignore_list is None or not ignore_list.covers(i)]
        return bool(counted or inputs)
    threshold = Impact.BREAKING if fail_on is FailOn.breaking else Impact.BEHAVIOUR
    return any(c.impact >= threshold for c in counted)


@app.command(
    "init",
    help="Draft a mapping file that covers every operation of SPEC, each choice commented.\n\n"
    f"Operations are grouped into task tools (by tag or path), named within {rule_name('T4')}, with "
    f"unit-bearing parameter renames ({rule_name('T5')}) and destructive actions marked. Edit the draft, "
    "then run `mcpgen generate`.",
)
def init_command(
    spec: SpecArg,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Mapping file to write (YAML).", show_default=False)
    ],
    name: Annotated[
        str | None,
        typer.Option("--name", help="Service prefix of the tool names (default: from the spec title)."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite OUT if it exists.")] = False,
    allow_ref_root: RefRootsOpt = None,
    allow_http: AllowHttpOpt = False,
    allow_ref_host: RefHostsOpt = None,
) -> None:
    remote = remote_options(allow_http, allow_ref_host)
    raise typer.Exit(
        run_init(spec_input(spec), out, name=name, force=force, ref_roots=allow_ref_root or (), remote=remote)
    )


@app.command("schema")
def schema_command(
    show: Annotated[
        bool, typer.Option("--print", help="Print the schema itself instead of its path.")
    ] = False,
) -> None:
    """Where the mapping file's JSON Schema is, for `# yaml-language-server: $schema=<path>` in editors."""
    path = schema_path()
    say(path.read_text(encoding="utf-8") if show else str(path))


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        say(f"mcpgen {__version__}")
        raise typer.Exit(0)


def _report(diagnostics: Iterable[Diagnostic], quiet: bool) -> None:
    diagnostics = list(diagnostics)
    # With errors to fix, notes would only bury them.
    floor = Level.WARNING if quiet or any(d.level >= Level.ERROR for d in diagnostics) else Level.INFO
    # Filtered before sorting: sorting reads each one's line, and finding a line in a JSON spec reads text.
    for diagnostic in sorted((d for d in diagnostics if d.level >= floor), key=sort_key):
        say(format_diagnostic(diagnostic), err=True)


def _has_warnings(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.level >= Level.WARNING for d in diagnostics)


def main() -> None:
    """The `mcpgen` command. A run makes millions of objects that hold no reference cycles, once, and
    exits: parsing GitHub's spec makes some two million, the build and the render hundreds of thousands,
    a diff millions of short records. Each pass of Python's cycle collector walked them all again (a
    quarter of `generate`'s time on GitHub's spec, 0.4 s of a 5.3 s Stripe diff) and freed nothing, so
    it rests for the command's run. Only here: the library leaves the collector as its caller set it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        app(prog_name="mcpgen")
    finally:
        # The process ends now. What is still alive leaves the collector's generations, so the
        # interpreter's collections on the way out do not walk it (0.2 s of `generate` on GitHub's spec).
        gc.freeze()
        if enabled:
            gc.enable()


if __name__ == "__main__":
    main()
