"""The CLI's one way to print: text that came from input files never reaches the terminal as control codes."""

from __future__ import annotations

import typer

from mcpgen.diagnostics import terminal_safe


def say(text: str, *, err: bool = False, nl: bool = True) -> None:
    """typer.echo with every control character but newline and tab shown as a visible escape."""
    typer.echo(terminal_safe(text), err=err, nl=nl)
