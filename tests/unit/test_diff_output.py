"""`mcpgen diff` output where reviewers read it (C1): a pull-request comment within a size budget, GitHub
Actions annotations, SARIF 2.1.0 checked against the official schema, an ignore list, and JSON exactly
as the standard encoder writes it.

The diffs come from GitHub's real spec edited as a release would (tests/github_edits.py: `github.json`,
edits at /paths/~1repos~1{owner}~1{repo}~1issues/get/parameters and /components/parameters/issue-number).
"""

from __future__ import annotations

import datetime
import json
from dataclasses import asdict, replace
from pathlib import Path

import jsonschema
import pytest

from mcpgen.contract.diff.compare import diff_contracts
from mcpgen.contract.diff.kinds import Impact
from mcpgen.contract.diff.model import ContractChange, ContractDiff, InputChange
from mcpgen.contract.format import format_json, format_markdown, format_text, markdown_text
from mcpgen.contract.ignore import apply_ignore_list, load_ignore_list
from mcpgen.contract.scanning import Place, escape_data, escape_property, format_annotations, format_sarif
from mcpgen.diagnostics import DiagnosticError
from tests.github_edits import variant
from tests.support.json_values import finite
from tests.support.paths import pinned_schema


@pytest.fixture(scope="module")
def release() -> ContractDiff:
    old, new = variant("base"), variant("release")
    return diff_contracts(old.lock, new.lock, old_sources=old.sources, new_sources=new.sources)


def _named(change: ContractChange) -> str:
    subject = f"{change.tool}.{change.action}" if change.action else change.tool
    return f"**`{subject}`**: {markdown_text(change.message)}"


def _at_lock(change: ContractChange) -> Place:
    return Place("generated/github/tools.lock.json", 7)


# --- markdown -------------------------------------------------------------------------------------


def test_markdown_puts_the_verdict_and_counts_first_and_collapses_unmapped_changes(
    release: ContractDiff,
) -> None:
    out = format_markdown(release, old_label="old", new_label="new")
    head, _, rest = out.partition("\n#### ")
    assert "Suggested version: **0.4.0**" in head
    assert (
        "| breaking | behaviour-affecting | deprecation | additive | input changes that changed no tool |"
        in head
    )
    table = [line for line in head.splitlines() if line.startswith("|")]
    assert len(table) == 3 and len({line.count("|") for line in table}) == 1  # every row as wide as the head
    unmapped = sum(1 for i in release.other_inputs if not i.used_by)
    assert f"({unmapped:,} in operations no tool maps)" in head
    # The contract changes come before any input change, and those sit in collapsed blocks.
    assert rest.index("Breaking") < rest.index("<details>")
    assert "<details><summary>" in out and out.count("<details>") == out.count("</details>")
    assert all(_named(c) in out for c in release.changes)


@pytest.mark.parametrize("budget", [1_400, 2_000, 3_000])
def test_markdown_keeps_within_its_budget_naming_every_contract_change(
    release: ContractDiff, budget: int
) -> None:
    full = format_markdown(release, old_label="old", new_label="new", budget=10**9)
    assert len(full) > 3_000  # else the budgets below would not bite
    out = format_markdown(release, old_label="old", new_label="new", budget=budget)
    assert len(out) <= budget
    assert all(_named(c) in out for c in release.changes)
    assert "see the JSON (`mcpgen diff --format json`)" in out
    # Whole lines only: every line of the cut comment is a line of the full one, or says what was left out.
    full_lines = set(full.splitlines())
    cut = [line for line in out.splitlines() if line not in full_lines]
    assert all("see the JSON" in line for line in cut), cut
    assert out.count("<details>") == out.count("</details>")


def test_markdown_can_leave_unmapped_changes_at_their_count(release: ContractDiff) -> None:
    out = format_markdown(release, old_label="old", new_label="new", unmapped="count", budget=10**9)
    assert "input changes in operations no tool maps</summary>" not in out
    assert "in operations no tool maps) |" in out


def test_text_can_leave_unmapped_changes_at_their_count(release: ContractDiff) -> None:
    out = format_text(release, old_label="old", new_label="new", unmapped="count")
    assert "[no tool maps this operation]" not in out
    assert "input changes in operations no tool maps (--unmapped list shows them)" in out


def test_a_line_break_in_input_text_stays_inside_its_list_item(release: ContractDiff) -> None:
    change = release.changes[0]
    odd = ContractDiff(**{**_fields(release), "changes": (_with(change, message="two\nlines"),)})
    out = format_markdown(odd, old_label="o", new_label="n")
    assert "two lines" in out and "\nlines" not in out


def test_markdown_keeps_angle_brackets_and_backticks_visible(release: ContractDiff) -> None:
    change = next(c for c in release.changes if c.code == "param-description-changed")
    odd = _with(change, message="type `array<object>` -> array<string>", before="a ` tick", after="b ` tick")
    out = format_markdown(
        ContractDiff(**{**_fields(release), "changes": (odd,)}), old_label="o", new_label="n"
    )
    # Inside a code span `<` shows as written; outside it is escaped, else GitHub strips it as a tag.
    assert "type `array<object>` -> array&lt;string&gt;" not in out
    assert "type `array<object>` -> array&lt;string>" in out
    assert "<br>``- a ` tick``" in out and "<br>``+ b ` tick``" in out


def _fields(diff: ContractDiff) -> dict[str, object]:
    return {name: getattr(diff, name) for name in diff.__dataclass_fields__}


def _with(change: ContractChange, **values: object) -> ContractChange:
    return ContractChange(**{**{n: getattr(change, n) for n in change.__dataclass_fields__}, **values})  # type: ignore[arg-type]


# --- annotations ----------------------------------------------------------------------------------


def test_workflow_command_escaping_follows_githubs_runner() -> None:
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a:b, c%\n") == "a%3Ab%2C c%25%0A"


def test_annotations_are_one_line_per_change_at_the_file_line(release: ContractDiff) -> None:
    out = format_annotations(release, _at_lock)
    lines = out.splitlines()
    assert len(lines) == len(release.changes) + 1
    commands = [line.split(" ", 1)[0] for line in lines[:-1]]
    assert commands == [
        {"breaking": "::error", "behaviour-affecting": "::warning", "additive": "::notice"}[c.impact.label]
        for c in release.changes
    ]
    for line, change in zip(lines, release.changes, strict=False):
        properties, _, message = line.partition(" ")[2].partition("::")
        assert properties.startswith("file=generated/github/tools.lock.json,line=7,title=")
        # A property holds no raw : or , of its own; the message no raw line break.
        title = properties.split("title=", 1)[1]
        assert ":" not in title and "," not in title
        assert message.endswith(f"[{change.id}]")
    assert lines[-1].startswith("::notice title=Tool contract of github::")


def test_annotations_mark_ignored_changes_as_notices(release: ContractDiff) -> None:
    first = release.changes[0]
    out = format_annotations(release, lambda c: None, ignored={first.id: "accepted in review"})
    line = out.splitlines()[0]
    assert line.startswith("::notice title=ignored ") and "(ignored: accepted in review)" in line
    assert "file=" not in line  # no place known: no file property at all


# --- SARIF ----------------------------------------------------------------------------------------


def test_sarif_is_valid_against_the_sarif_2_1_0_schema(release: ContractDiff) -> None:
    schema = json.loads(pinned_schema("sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    first = release.changes[0]
    log = json.loads(format_sarif(release, _at_lock, version="9.9.9", ignored={first.id: "accepted"}))
    jsonschema.Draft4Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, [e.message for e in errors[:5]]
    (run,) = log["runs"]
    assert len(run["results"]) == len(release.changes)
    rules = run["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in run["results"])
    located = run["results"][0]["locations"][0]["physicalLocation"]
    assert located == {
        "artifactLocation": {"uri": "generated/github/tools.lock.json"},
        "region": {"startLine": 7},
    }
    assert run["results"][0]["suppressions"] == [{"kind": "external", "justification": "accepted"}]
    assert {r["level"] for r in run["results"]} <= {"error", "warning", "note"}


def test_sarif_keeps_within_its_budget_most_severe_first(release: ContractDiff) -> None:
    schema = json.loads(pinned_schema("sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    full = format_sarif(release, _at_lock, version="1")
    text = format_sarif(release, _at_lock, version="1", budget=len(full) // 2)
    assert len(text) <= len(full) // 2
    log = json.loads(text)
    assert not list(jsonschema.Draft4Validator(schema).iter_errors(log))
    (run,) = log["runs"]
    kept = len(run["results"])
    assert 0 < kept < len(release.changes)
    assert run["properties"]["omittedResults"] == len(release.changes) - kept
    assert [r["properties"]["id"] for r in run["results"]] == [c.id for c in release.changes[:kept]]
    for result in run["results"]:  # the best two causes, and how many more the JSON has
        assert len(result["properties"]["causes"]) <= 2


def test_sarif_fingerprints_are_stable_and_distinct(release: ContractDiff) -> None:
    first = json.loads(format_sarif(release, _at_lock, version="1"))
    again = json.loads(format_sarif(release, lambda c: None, version="2"))
    prints = [r["partialFingerprints"] for r in first["runs"][0]["results"]]
    assert prints == [r["partialFingerprints"] for r in again["runs"][0]["results"]]
    assert len({p["mcpgenChange/v1"] for p in prints}) == len(prints)


# --- ignore list ----------------------------------------------------------------------------------

TODAY = datetime.date(2026, 12, 3)


def _ignore_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "diff-ignore.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_ignore_entries_by_id_and_by_pointer_with_expiry(release: ContractDiff, tmp_path: Path) -> None:
    required = next(c for c in release.changes if c.code == "param-required")
    described = [c for c in release.changes if c.code == "param-description-changed"]
    path = _ignore_file(
        tmp_path,
        f"ignore:\n"
        f"  - change: {required.id}\n    reason: milestone was always needed\n    until: 2027-01-31\n"
        f"  - pointer: /components/parameters/issue-number\n    reason: wording only\n"
        f"  - change: param-renamed:github_issues_find#author\n    reason: old\n    until: 2026-12-02\n",
    )
    applied = apply_ignore_list(load_ignore_list(path), release, today=TODAY)
    assert applied.changes == {
        required.id: "milestone was always needed",
        **{c.id: "wording only" for c in described},
    }
    (expired,) = applied.diagnostics
    assert expired.source is not None and (expired.source.file, expired.source.line) == (str(path), 9)
    assert "expired on 2026-12-02" in expired.message and "no longer ignores" in expired.message
    unmapped = [
        i for i in release.other_inputs if i.pointer.startswith("/components/parameters/issue-number")
    ]
    assert unmapped and all(applied.active.covers(i) for i in unmapped)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("- change: x\n", "`ignore:` list"),
        ("ignore:\n  - reason: why\n", "exactly one of `change:`"),
        ("ignore:\n  - change: x\n", "`reason:`"),
        ("ignore:\n  - pointer: paths\n    reason: r\n", "starts with /"),
        # "/" is under nothing but would prefix every pointer: it must not silence every change
        ("ignore:\n  - pointer: /\n    reason: r\n", "would ignore every change"),
        ("ignore:\n  - pointer: //\n    reason: r\n", "would ignore every change"),
        ("ignore:\n  - change: x\n    reason: r\n    until: soon\n", "write YYYY-MM-DD"),
        ("ignore:\n  - change: x\n    reason: r\n    expires: 2027-01-01\n", "unknown key expires"),
    ],
)
def test_a_malformed_ignore_list_says_where_and_what_to_write(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(DiagnosticError) as raised:
        load_ignore_list(_ignore_file(tmp_path, text))
    (problem,) = raised.value.diagnostics
    assert said in problem.message and problem.source is not None and problem.source.line is not None


# --- json -----------------------------------------------------------------------------------------


def _standard_json(diff: ContractDiff, ignored: dict[str, str]) -> str:
    """The document by the standard indented encoder: every edit once in `input_changes`, in the order
    first referred to, with the operations (and parts) and actions it reaches; causes and other inputs
    as positions in it, other inputs only when they explain no change."""
    edits: list[dict[str, object]] = []

    def refer(items: tuple[InputChange, ...]) -> list[int]:
        found: list[int] = []
        for item in items:
            same = [
                i
                for i, e in enumerate(edits)
                if (e["origin"], e["change"], e["pointer"], e["detail"], e["rule"])
                == (item.origin, item.change, item.pointer, item.detail, item.rule)
            ]
            if not same:
                edits.append({**asdict(item), "operations": {}, "used_by": set()})
            at = same[0] if same else len(edits) - 1
            edit = edits[at]
            if item.operation is not None and item.operation not in edit["operations"]:
                edit["operations"][item.operation] = item.part
            edit["used_by"] |= set(item.used_by)
            if at not in found:
                found.append(at)
        return found

    changes = []
    for c in diff.changes:
        data = {"id": c.id, **asdict(c), "impact": c.impact.label}
        del data["causes"]
        data["causes"] = refer(c.causes)
        changes.append(data | ({"ignored": {"reason": ignored[c.id]}} if c.id in ignored else {}))
    explained = len(edits)
    other = [at for at in refer(diff.other_inputs) if at >= explained]
    fields = ("origin", "change", "pointer", "detail", "rule", "operations", "used_by")
    document = {
        "old": {"label": "old", "version": diff.old_version},
        "new": {"label": "new", "version": diff.new_version},
        "server": diff.server,
        "impact": diff.impact.label if diff.impact else None,
        "counts": {i.label: diff.count(i) for i in sorted(Impact, reverse=True)},
        "suggested": {"bump": diff.bump, "version": diff.suggested_version, "reason": diff.bump_reason},
        "changes": changes,
        "input_changes": [
            {name: sorted(e[name]) if name == "used_by" else e[name] for name in fields} for e in edits
        ],
        "other_input_changes": other,
    }
    return json.dumps(finite(document), indent=2, ensure_ascii=False) + "\n"


def test_json_is_byte_for_byte_what_the_standard_encoder_writes_with_non_finite_numbers_as_null(
    release: ContractDiff,
) -> None:
    shared = InputChange(origin="spec", change="changed", pointer="/a~1b/ü", detail='"x" -> "y\\u001b"')
    odd = ContractChange(
        impact=Impact.BEHAVIOUR,
        code="action-fixed-changed",
        tool="t",
        action="a",
        message='tab\there, quote " and \x1b escape, ünïcode, \u2028',
        before={"nested": [1, 2.5, True, None, {}, [], {"k": ["v", {"deep": -0.0}]}], 3: "int key"},
        after=[float("inf"), 10**20, 1e-05, 2.5e-07, "", {"": None}],
        causes=(
            shared,
            replace(shared, used_by=("t.a", "t.b"), operation="GET /a", part="body.x"),
            replace(shared, used_by=("t.c",), operation="POST /b", part="requestBody"),
            shared,
        ),
    )
    edited = replace(
        release, changes=(*release.changes, odd), other_inputs=(*release.other_inputs, shared, shared)
    )
    ignored = {release.changes[0].id: "accepted in review"}
    assert format_json(edited, old_label="old", new_label="new", ignored=ignored) == _standard_json(
        edited, ignored
    )
    document = json.loads(format_json(edited, old_label="old", new_label="new"))
    (edit,) = [e for e in document["input_changes"] if e["pointer"] == shared.pointer]
    assert edit["operations"] == {"GET /a": "body.x", "POST /b": "requestBody"}  # one edit, both places
    assert edit["used_by"] == ["t.a", "t.b", "t.c"]
    assert document["input_changes"].index(edit) not in document["other_input_changes"]  # it explains one
    empty = replace(release, changes=(), other_inputs=())
    assert format_json(empty, old_label="old", new_label="new") == _standard_json(empty, {})
