"""`mcpgen check` on the command line: parse flags, run the check, print the report, set the exit code."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from mcpgen.check.report import as_json, github, text
from mcpgen.check.run import CHECK_EXTRA, Checked, run_check
from mcpgen.check.upstream import PRISM_ENV, PRISM_INSTALL, PRISM_VERSION
from mcpgen.cli.output import say
from mcpgen.cli.spec_source import (
    AllowHttpOpt,
    RefHostsOpt,
    RefRootsOpt,
    SpecArg,
    remote_options,
    spec_input,
)
from mcpgen.diagnostics import format_diagnostic, sort_key


class CheckFormat(enum.StrEnum):
    text = "text"
    json = "json"
    github = "github"


def _paragraphs(*texts: str) -> str:
    """Help text as typer prints it: each paragraph one line (it wraps them), blank lines between."""
    return "\n\n".join(" ".join(t.split()) if not t.startswith("  ") else t for t in texts)


# Square brackets are markup to the help printer: `\\[check]` shows as [check].
_EXTRA_SHOWN = CHECK_EXTRA.replace("[", "\\[")

CHECK_HELP = _paragraphs(
    "Run the server SPEC and MAPPING generate against an API, and report every promise its results break.",
    """The package is generated into a temporary directory and started over stdio on this Python, as an
    MCP client starts it. Through the official MCP client, check calls every read action once with the
    concise format and once with response_format detailed (and the next page where the result offers
    one), sends each write action only arguments the server must refuse before anything leaves it, and
    makes one deliberately invalid request per tool. A loopback proxy keeps the API's raw answers, and
    each is compared with the tool result.""",
    """Findings, each at the mapping line that made the promise: concise fields no answer has, and concise
    records emptier than the detailed ones; list results without has_more, paging fields the answers do
    not carry, totals the result dropped; unit-converted fields that are not numbers or not in the
    response schema; tool errors that carry none of the API's error text; success answers in a media
    type the server cannot read; every `note` the server puts in a result. Lines marked note[K900] say
    what could not be checked, and why; they do not fail.""",
    f"""Upstream: by default Prism {PRISM_VERSION} serves SPEC (`prism mock --dynamic`, seeded, so runs
    repeat) with placeholder credentials, and error answers are asked of it with a `Prefer: code=4xx`
    header. Prism is the npm package @stoplight/prism-cli: `{PRISM_INSTALL}` (Node 18 or later); check
    looks for it in ${PRISM_ENV} (the prism executable, or the directory it was installed into), on PATH,
    and in a checkout's .cache/prism. With --upstream URL check calls your sandbox instead, with the
    credentials in the variables the mapping's server.auth names (e.g. ADS_API_TOKEN); it never sends a
    write there, and its error probe asks for a record that does not exist.""",
    f"""The generated server runs on this Python, and its dependencies and the MCP client must import here:
    {_EXTRA_SHOWN}.""",
    """Exit codes: 0 no findings; 1 findings; 2 wrong usage, inputs that do not generate, or a missing
    Node, Prism, Python package or credential (the message says what to install or set).""",
    "In CI (GitHub Actions), findings become annotations on the mapping file's lines:",
    f"  - run: npm install -g @stoplight/prism-cli@{PRISM_VERSION} && {_EXTRA_SHOWN}",
    "  - run: mcpgen check openapi.yaml -m mapping.yaml --format github",
)


def check_command(
    spec: SpecArg,
    mapping: Annotated[
        Path,
        typer.Option(
            "--mapping", "-m", help="Workflow mapping file (YAML); see `mcpgen schema`.", show_default=False
        ),
    ],
    upstream: Annotated[
        str | None,
        typer.Option(
            "--upstream",
            metavar="URL",
            help="Your sandbox's base URL (credentials from the mapping's auth variables) instead of Prism "
            "serving SPEC.",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        CheckFormat,
        typer.Option(
            "--format",
            "-f",
            help="text; json (a stable shape: mcpgen_check 1, upstream, counts, findings with code, check, "
            "level, tool, action, message, hint, file, line, column, pointer); github (workflow-command "
            "annotations: ::error file=...,line=...::message).",
        ),
    ] = CheckFormat.text,
    allow_ref_root: RefRootsOpt = None,
    allow_http: AllowHttpOpt = False,
    allow_ref_host: RefHostsOpt = None,
) -> None:
    source = spec_input(spec)
    for given in (source, mapping):
        if isinstance(given, Path) and not given.is_file():
            say(f"{given}: no such file", err=True)
            raise typer.Exit(2)
    remote = remote_options(allow_http, allow_ref_host)
    outcome = run_check(source, mapping, upstream, ref_roots=allow_ref_root or (), remote=remote)
    if not isinstance(outcome, Checked):
        for diagnostic in sorted(outcome.diagnostics, key=sort_key):
            say(format_diagnostic(diagnostic), err=True)
        say(f"mcpgen check: {outcome.message}", err=True)
        raise typer.Exit(2)
    if fmt is CheckFormat.json:
        say(as_json(outcome, str(spec), str(mapping)), nl=False)
    elif fmt is CheckFormat.github:
        say(github(outcome, str(spec)), nl=False)
    else:
        say(text(outcome, str(spec)), nl=False)
    raise typer.Exit(1 if any(f.level == "error" for f in outcome.findings) else 0)
