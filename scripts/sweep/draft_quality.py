"""How usable `mcpgen init`'s draft is before anyone edits it, on large real specs: the service name, the
sign-in operations it drafts as agent actions, the machine-made parameter names it writes, and where
on-demand discovery ranks the right tool for a plain task phrase.

    .venv/bin/python scripts/sweep/draft_quality.py            # the table of scripts/sweep/README.md
    .venv/bin/python scripts/sweep/draft_quality.py --show     # and each counted operation or name

Measures, per spec:
- *plumbing left out*: operations the draft leaves out as authentication plumbing (deliberately unmapped);
- *sign-in drafted*: operations whose path or operationId says login, logout, sign-in, authenticate, or
  verifying/introspecting a token, that the draft still makes agent actions;
- *machine names*: parameter renames that end in a counter (`_2`) or in the type word the draft adds
  on a type clash (`_number`, `_text`, `_value`, `_flag`, `_object`, `_list`) that the spec's name lacks;
- *rank*: for every drafted action whose operation has a summary, that summary ("Send an email") is the
  query of the generated server's own `search_tools` (templates/runtime/discovery.py, run on the
  built contract), and the rank of the tool holding that action is taken: median, share at rank 1,
  share within the 5 shown by default; plus the rank of one named phrase per spec.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for entry in (ROOT, ROOT / "templates"):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

from runtime.discovery import Discovery  # noqa: E402

from mcpgen.authoring.draft import init_mapping  # noqa: E402
from mcpgen.build.contract import contract  # noqa: E402
from mcpgen.build.server import build_server  # noqa: E402
from mcpgen.load.mapping import load_mapping  # noqa: E402
from mcpgen.load.openapi import load_spec  # noqa: E402
from mcpgen.names import snake_case  # noqa: E402

CORPUS = ROOT / ".cache" / "corpus" / "package" / "api"
SHARED = (ROOT / ".." / "shared" / "specs").resolve()
SPEC_CACHE = ROOT / ".cache" / "specs"
# (label, file, where to look, a plain task phrase, the operation that does it)
SPECS = (
    ("SendGrid", "sendgrid.com.json", (CORPUS,), "send an email", "POST /mail/send"),
    ("Zoom", "zoom.us.json", (CORPUS,), "create a meeting", "POST /users/{userId}/meetings"),
    ("DigitalOcean", "digitalocean.com.json", (CORPUS,), "create a droplet", "POST /v2/droplets"),
    ("Dracoon", "dracoon.team.json", (CORPUS,), "create a room", "POST /v4/nodes/rooms"),
    ("Jellyfin", "jellyfin.local.json", (CORPUS,), "create a playlist", "POST /Playlists"),
    ("Vimeo", "vimeo.com.json", (CORPUS,), "upload a video", "POST /me/videos"),
    ("GitHub", "github.json", (SHARED, SPEC_CACHE), "create an issue", "POST /repos/{owner}/{repo}/issues"),
    ("Stripe", "stripe.json", (SHARED, SPEC_CACHE), "refund a charge", "POST /v1/refunds"),
)
# The last literal path word(s) of a sign-in endpoint ('/v4/auth/login', '/Users/AuthenticateByName',
# '/auth/token/verify'): not '/login_links' (Stripe makes a link for a person) nor a report of sign-ins.
SIGN_IN = re.compile(
    r"(^|_)(login|logout|log_in|log_out|signin|signout|sign_in|sign_out|authenticate(_by_name|_with_\w+)?)$"
    r"|(verify|validate|introspect)_(access_)?token$|token_(verify|validate|introspect|info)$"
)
_TYPE_WORDS = ("number", "text", "value", "flag", "object", "list")


@dataclass(frozen=True, slots=True)
class Measured:
    label: str
    service: str
    operations: int
    tools: int
    plumbing: int
    sign_in: tuple[str, ...]
    machine: tuple[str, ...]
    ranks: tuple[int, ...]
    named_rank: int | None


def sign_in_words(method: str, path: str, operation: str) -> bool:
    """The path's literal segments (no parameters), as words, end the way a sign-in endpoint's do."""
    literal = [s for s in re.split(r"[/#]", path.split("?")[0]) if s and not s.startswith("{")]
    return bool(literal) and bool(SIGN_IN.search(snake_case("/".join(literal[-2:]))))


def machine_made(key: str, name: str) -> bool:
    spec_name = snake_case(key.split(".")[-1])
    if re.search(r"_\d+$", name) and not re.search(r"\d$", spec_name):
        return True
    return any(name.endswith(f"_{w}") and not spec_name.endswith(w) for w in _TYPE_WORDS)


def rank_of(discovery: Discovery, query: str, tool: str) -> int | None:
    found = discovery.search({"query": query, "limit": 10})["tools"]
    names = [t["name"] for t in found]
    if tool in names:
        return names.index(tool) + 1
    # Past the first ten: score the whole catalog the same way, unlimited.
    everything = _all_ranked(discovery, query)
    return everything.index(tool) + 1 if tool in everything else None


def _all_ranked(discovery: Discovery, query: str) -> list[str]:
    """Every catalog tool the query matches, best first, as search_tools scores them (no limit)."""
    return list(dict.fromkeys(entry.tool["name"] for entry in discovery.ranked(query)))


def measure(label: str, path: Path, phrase: str, operation: str) -> Measured:
    spec = load_spec(path, display_path=path.name)
    text, draft = init_mapping(spec, spec_label=path.name)
    with tempfile.TemporaryDirectory() as work:
        mapping = Path(work) / "mapping.yaml"
        mapping.write_text(text, encoding="utf-8")
        built = build_server(spec, load_mapping(mapping), spec_file=path.name, mapping_file="mapping.yaml")
    assert built.server is not None, label
    server = built.server
    discovery = Discovery(contract(server))
    holder = {f"{a.method} {a.path}": f"{server.name}_{t.name}" for t in draft.tools for a in t.actions}
    served = {t["name"] for t in discovery.catalog}
    ranks = []
    for tool in draft.tools:
        for action in tool.actions:
            name = f"{server.name}_{tool.name}"
            if action.summary and name in served:
                found = rank_of(discovery, action.summary, name)
                ranks.append(found if found is not None else len(served) + 1)
    named = holder.get(operation)
    return Measured(
        label=label,
        service=server.name,
        operations=draft.operation_count,
        tools=len(draft.tools),
        plumbing=sum(1 for u in draft.unmapped if u.deliberate),
        sign_in=tuple(
            f"{a.method} {a.path} ({a.operation})"
            for t in draft.tools
            for a in t.actions
            if sign_in_words(a.method, a.path, a.operation)
        ),
        machine=tuple(
            f"{t.name}.{a.name}: {p.key} -> {p.name}"
            for t in draft.tools
            for a in t.actions
            for p in a.params
            if machine_made(p.key, p.name)
        ),
        ranks=tuple(ranks),
        named_rank=rank_of(discovery, phrase, named) if named in served else None,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list each counted operation and name")
    args = parser.parse_args(argv)
    print(
        "| spec | service | operations | tools | plumbing left out | sign-in drafted | machine names "
        "| median rank | rank 1 | top 5 | named phrase: rank |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    shown: list[str] = []
    for label, file_name, dirs, phrase, operation in SPECS:
        path = next((d / file_name for d in dirs if (d / file_name).is_file()), None)
        if path is None:
            print(f"| {label} | not found: {file_name} | | | | | | | | | |")
            continue
        m = measure(label, path, phrase, operation)
        ranks = m.ranks or (0,)
        print(
            f"| {label} | `{m.service}` | {m.operations:,} | {m.tools} | {m.plumbing} | {len(m.sign_in)} | "
            f"{len(m.machine)} | {statistics.median(ranks):g} | {sum(r == 1 for r in ranks) / len(ranks):.0%} | "
            f'{sum(r <= 5 for r in ranks) / len(ranks):.0%} | "{phrase}": {m.named_rank} |'
        )
        shown += [f"{label} sign-in: {s}" for s in m.sign_in] + [f"{label} name: {n}" for n in m.machine]
    if args.show:
        print("\n".join(shown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
