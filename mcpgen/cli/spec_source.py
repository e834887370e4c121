"""The spec argument every command takes: a file's path, or an https URL fetched with the options here."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcpgen.load.remote import RemoteOptions, is_url

# A str, not a Path: a Path would fold the URL's '//' into one slash.
SpecArg = Annotated[
    str,
    typer.Argument(
        help="Swagger 2.0 or OpenAPI 3.0/3.1 document, JSON or YAML: its path, or its https:// URL (fetched "
        "and kept in the user's cache; the lock records the URL and the sha256 of what was read).",
        show_default=False,
    ),
]
AllowHttpOpt = Annotated[
    bool,
    typer.Option(
        "--allow-http",
        help="Fetch a spec URL, and $refs of allowed hosts, over plain http too. Without it only https is "
        "fetched, and a redirect away from https is refused either way.",
    ),
]
RefRootsOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--allow-ref-root",
        metavar="DIR",
        help="Let the spec's $refs read files under DIR as well (repeatable). Without it they reach "
        "only files in the spec's own directory tree.",
        show_default=False,
    ),
]
RefHostsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-ref-host",
        metavar="HOST",
        help="Let the spec's $refs fetch documents from HOST (repeatable; https only unless --allow-http). "
        "Without it a $ref to the network is refused.",
        show_default=False,
    ),
]


def spec_input(text: str) -> Path | str:
    """A URL stays text (load_spec fetches it); anything else is a path."""
    return text if is_url(text) else Path(text)


def remote_options(allow_http: bool, ref_hosts: list[str] | None) -> RemoteOptions:
    return RemoteOptions(allow_http=allow_http, ref_hosts=tuple(h.lower() for h in ref_hosts or ()))
