"""`mcpgen config CLIENT`: one client's configuration, with the command written as the absolute path of
the installed console script, and the client's profile checked against what the server would serve.

A client started from the desktop (Claude Desktop, Cursor, VS Code, Windsurf) does not read the shell's
PATH, so a bare `myapi-mcp` fails there with "command not found" (FileNotFoundError) even where it runs
in a terminal. The command is therefore found here, on PATH or in the Python environment mcpgen runs in,
and written in full.
"""

from __future__ import annotations

import shlex
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from mcpgen.build.contract import contract
from mcpgen.build.discovery import META_KEY, meta_tool_names
from mcpgen.cli.output import say
from mcpgen.diagnostics import Level
from mcpgen.ir import ServerSpec
from mcpgen.lint.rules import lint_tools
from mcpgen.lint.tokens import definition_text, load_counter
from mcpgen.profiles import Profile

# Clients that load every listed tool up front, for which discovery's two meta-tools stand between the
# agent and each call; Claude Code searches tools on demand by itself.
LOADS_EVERYTHING = frozenset({"claude-desktop", "cursor", "vscode", "windsurf"})


@dataclass(frozen=True, slots=True)
class Launch:
    argv: tuple[str, ...]
    note: str  # what the user should know about it, for stderr
    found: bool  # the command exists where it was looked for


def scripts_dir() -> Path:
    """Where `python -m pip install` puts console scripts for the Python that runs mcpgen."""
    return Path(sysconfig.get_path("scripts"))


def install_line(target: str, script: str) -> str:
    """Install a package into the environment mcpgen runs in, and the full path of its script there."""
    python = shlex.quote(sys.executable)
    return f"{python} -m pip install {target} && {shlex.quote(str(scripts_dir() / script))}"


def resolve_launch(server: ServerSpec, command: str | None) -> Launch:
    """The stdio command a client should run: `command` as given (its program made absolute when it is
    on PATH), else the server's console script on PATH or in mcpgen's environment, in full."""
    if command:
        argv = tuple(shlex.split(command))
        program = argv[0] if argv else server.distribution_name
        if "/" in program or "\\" in program:
            return Launch(argv, "", Path(program).exists())
        found = shutil.which(program)
        if found is None:
            return Launch(
                argv, f"{program} is not on this PATH; a client that lacks it cannot start it", False
            )
        return Launch((str(Path(found).resolve()), *argv[1:]), _full_path_note(found), True)
    script = server.distribution_name
    for candidate in (shutil.which(script), shutil.which(script, path=str(scripts_dir()))):
        if candidate:
            return Launch((str(Path(candidate).absolute()),), _full_path_note(candidate), True)
    expected = str(scripts_dir() / script)
    return Launch(
        (expected,),
        f"{script} is not installed on this PATH nor in {scripts_dir()}: install the generated package "
        f"first ({sys.executable} -m pip install <package directory>), or pass --command with the full "
        "path of its script (or e.g. 'uvx --from /abs/path/to/package " + script + "')",
        False,
    )


def _full_path_note(found: str) -> str:
    return (
        f"command: {Path(found).absolute()} (written in full: a client started from "
        "the desktop does not read your shell's PATH)"
    )


def profile_report(
    server: ServerSpec, client_title: str, profile: Profile, spec: str | Path, mapping: Path
) -> list[str]:
    """What `profile` finds in the tools the server would serve with it, and what to regenerate."""
    served = contract(server, profile)
    report = lint_tools(served, profile=profile, server_name=server.name)
    lines = [
        f"{client_title}: {f.tool + ' ' if f.tool else ''}{f.message}"
        for f in report.findings
        if f.check.startswith(profile.name) and f.level >= Level.WARNING
    ]
    if served != contract(server):
        lines.append(
            f"the {profile.name} profile changes the served schemas; generate with it so the server serves "
            f"what {client_title} accepts: mcpgen generate {shlex.quote(str(spec))} -m {shlex.quote(str(mapping))} "
            f"--profile {profile.name} --out <package directory>"
        )
    return lines


def discovery_offer(server: ServerSpec, client: str, client_title: str) -> str | None:
    """With discovery on, a client that loads every tool sees only the two meta-tools: say what
    `discovery: none` would cost it, so the choice is the user's."""
    if not server.discovery or client not in LOADS_EVERYTHING:
        return None
    everything = [t for t in contract(server) if META_KEY not in (t.get("_meta") or {})]
    counter, _ = load_counter()
    tokens = f", {counter.count(definition_text(everything)):,} tokens" if counter is not None else ""
    search, call = meta_tool_names(server.name)
    return (
        f"discovery is on: {client_title} lists only {search} and {call}, "
        f"and calls every other tool through {call}. To list all {len(everything)} tools "
        f"instead{tokens}, set `discovery: none` under `server:` in the mapping and regenerate"
    )


def print_config(text: str, where: str, notes: list[str]) -> None:
    for note in notes:
        say(note, err=True)
    say(where, err=True)
    say(text)
