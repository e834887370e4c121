"""A hand-made pull request against a small jobs API, each edit one a reviewer must see classed right
(C1): a parameter renamed by the mapping, an enum narrowed for one action of a shared parameter, a body
field made required, a sentence changed, an operation deprecated by a vendor marker, a shown result
field's type changed, a unit changed, a constraint added for one action, a parameter deprecated.

Both sides are read as `mcpgen diff` reads them: SPEC::MAPPING (the specs compared value by value) and
the two lock files alone (the README's pull-request workflow); both must say the same.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mcpgen.cli.operands import file_places, load_operand
from mcpgen.contract.diff.compare import diff_contracts
from mcpgen.contract.diff.kinds import Impact
from mcpgen.contract.diff.model import ContractDiff
from mcpgen.contract.format import format_text
from mcpgen.contract.scanning import format_annotations

_REPOS = {"type": "array", "items": {"type": "integer"}, "description": "Repositories the job may read."}


def _state(values: list[str]) -> dict[str, Any]:
    return {"name": "state", "in": "query", "schema": {"type": "string", "enum": values}}


def _body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties} | ({"required": required} if required else {})
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _answer(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "OK", "content": {"application/json": {"schema": schema}}}}


JOB = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "duration": {"type": "integer", "description": "How long it ran, in seconds."},
    },
}

BEFORE: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Jobs", "version": "1.0.0"},
    "servers": [{"url": "https://jobs.example.test"}],
    "paths": {
        "/jobs": {
            "get": {
                "operationId": "listJobs",
                "summary": "List jobs",
                "parameters": [
                    _state(["open", "closed", "all"]),
                    {"name": "q", "in": "query", "schema": {"type": "string"}},
                    {"name": "sort", "in": "query", "schema": {"type": "string"}},
                    {
                        "name": "timeout",
                        "in": "query",
                        "description": "How long to wait, in seconds, max 60.",
                        "schema": {"type": "integer", "maximum": 60},
                    },
                ],
                "responses": _answer({"type": "array", "items": JOB}),
            },
            "post": {
                "operationId": "createJob",
                "summary": "Create a job",
                "requestBody": _body(
                    {
                        "name": {"type": "string", "description": "The job's name."},
                        "selected_repository_ids": _REPOS,
                        "priority": {"type": "integer"},
                    },
                    ["name"],
                ),  # fmt: skip
                "responses": _answer(JOB),
            },
        },
        "/jobs/search": {
            "get": {
                "operationId": "searchJobs",
                "summary": "Search jobs",
                "parameters": [_state(["open", "closed", "all"])],
                "responses": _answer({"type": "array", "items": JOB}),
            }
        },
        "/jobs/{job_id}": {
            "parameters": [{"name": "job_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "get": {
                "operationId": "getJob",
                "summary": "Get a job",
                "description": "Get one job by its id. The answer holds its name and how long it ran.",
                "x-code-samples": [{"lang": "shell", "source": "curl /jobs/1"}],
                "responses": _answer(JOB),
            },
            "put": {
                "operationId": "updateJob",
                "summary": "Update a job",
                "requestBody": _body({"name": {"type": "string"}, "selected_repository_ids": _REPOS}, []),
                "responses": _answer(JOB),
            },
            "delete": {
                "operationId": "cancelJob",
                "summary": "Cancel a job",
                "x-release-status": "PUBLIC",
                "responses": {"204": {"description": "Cancelled"}},
            },
        },
    },
}


def _after() -> dict[str, Any]:
    spec = copy.deepcopy(BEFORE)
    paths = spec["paths"]
    # an enum narrowed for one action: search no longer takes 'all'; list still does
    paths["/jobs/search"]["get"]["parameters"] = [_state(["open", "closed"])]
    # a body field made required
    paths["/jobs"]["post"]["requestBody"]["content"]["application/json"]["schema"]["required"] = [
        "name",
        "priority",
    ]
    # a sentence changed, beside edits that change no tool (a code sample, a text the mapping replaces)
    body = paths["/jobs"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    body["properties"]["name"]["description"] = "The job's name, as the list shows it."
    get = paths["/jobs/{job_id}"]["get"]
    get["description"] = "Get one job by its id. The answer holds its name, its state and how long it ran."
    get["x-code-samples"] = [{"lang": "shell", "source": "curl https://jobs.example.test/jobs/1"}]
    # an operation deprecated by a vendor marker, not `deprecated: true`
    paths["/jobs/{job_id}"]["delete"]["x-release-status"] = "DEPRECATED"
    # a shown result field's type changed (the shared record)
    job = copy.deepcopy(JOB)
    job["properties"]["id"] = {"type": "string"}
    for operation in (paths["/jobs"]["post"], get, paths["/jobs/{job_id}"]["put"]):
        operation["responses"] = _answer(job)
    for operation in (paths["/jobs"]["get"], paths["/jobs/search"]["get"]):
        operation["responses"] = _answer({"type": "array", "items": job})
    # a unit changed: a hook that kept sending 30 now asks for 30 ms
    listing = paths["/jobs"]["get"]["parameters"]
    listing[3] = {
        "name": "timeout",
        "in": "query",
        "description": "How long to wait, in milliseconds, max 60000.",
        "schema": {"type": "integer", "maximum": 60000},
    }
    # a parameter deprecated
    listing[2] = {"name": "sort", "in": "query", "deprecated": True, "schema": {"type": "string"}}
    # a constraint added for one action of a shared parameter
    update = paths["/jobs/{job_id}"]["put"]["requestBody"]["content"]["application/json"]["schema"]
    update["properties"]["selected_repository_ids"] = {**_REPOS, "minItems": 1}
    return spec


def _mapping(renamed: bool) -> str:
    rename = "\n        params:\n          q: {name: text}" if renamed else ""
    return f"""mcpgen: 1
server:
  name: jobs
  version: 1.0.0
  description: Run and follow the team's jobs.
tools:
  - name: jobs
    title: Jobs
    description: Find, read, start, change and cancel jobs. Returns job records with id, name and duration.
    actions:
      - name: list
        operation: listJobs
        description: List jobs.{rename}
      - name: search
        operation: searchJobs
        description: Search jobs.
      - name: get
        operation: getJob
        response:
          concise: [id, name, duration]
      - name: create
        operation: createJob
        description: Start a job.
      - name: update
        operation: updateJob
        description: Change a job.
      - name: cancel
        operation: cancelJob
        description: Cancel a job.
"""


def _write(where: Path, side: str, spec: dict[str, Any], renamed: bool) -> str:
    (where / f"{side}.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
    (where / f"{side}.mapping.yaml").write_text(_mapping(renamed), encoding="utf-8")
    return f"{side}.json::{side}.mapping.yaml"


@pytest.fixture()
def pull_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    monkeypatch.chdir(tmp_path)  # operands relative to the current directory, as in CI
    old, new = _write(tmp_path, "old", BEFORE, False), _write(tmp_path, "new", _after(), True)
    return load_operand(old, tmp_path), load_operand(new, tmp_path)


def _subjects(diff: ContractDiff) -> dict[tuple[str, str | None, str | None], Impact]:
    return {(c.code, c.action, c.param): c.impact for c in diff.changes}


EXPECTED = {
    ("param-renamed", None, "text"): Impact.BREAKING,
    ("param-enum-value-removed", "search", "state"): Impact.BREAKING,
    ("param-required", "create", "priority"): Impact.BREAKING,
    ("param-description-changed", None, "name"): Impact.BEHAVIOUR,
    ("action-deprecated", "cancel", None): Impact.DEPRECATION,
    ("param-deprecated", "list", "sort"): Impact.DEPRECATION,
    ("param-unit-changed", "list", "timeout"): Impact.BREAKING,
    ("param-constraint-tightened", "update", "selected_repository_ids"): Impact.BREAKING,
}


def test_every_edit_of_the_pull_request_is_seen_and_classed(pull_request: tuple[Any, Any]) -> None:
    before, after = pull_request
    diff = diff_contracts(before.lock, after.lock, old_sources=before.sources, new_sources=after.sources)
    found = _subjects(diff)
    assert EXPECTED.items() <= found.items(), sorted(set(EXPECTED.items()) - set(found.items()))
    # the id of each action's records is a string now: every read of it is another thing
    typed = {a for (code, a, p), i in found.items() if code == "result-type-changed" and p == "id"}
    assert typed == {"list", "search", "get"} and all(
        i is Impact.BREAKING for (code, _, _), i in found.items() if code == "result-type-changed"
    )
    # no edit reads as additive: the bound 60 -> 60000 comes with the unit change that breaks
    unit = next(c for c in diff.changes if c.code == "param-unit-changed")
    assert (unit.before, unit.after) == ("seconds", "milliseconds")
    deprecated = next(c for c in diff.changes if c.code == "action-deprecated")
    assert "x-release-status: DEPRECATED" in deprecated.message
    assert diff.bump == "major"


def test_the_lock_files_alone_say_the_same(pull_request: tuple[Any, Any]) -> None:
    before, after = pull_request
    specs = diff_contracts(before.lock, after.lock, old_sources=before.sources, new_sources=after.sources)
    locks = diff_contracts(before.lock, after.lock)
    assert _subjects(locks) == _subjects(specs)


def test_the_first_cause_shown_is_the_edit_that_made_the_change(pull_request: tuple[Any, Any]) -> None:
    before, after = pull_request
    diff = diff_contracts(before.lock, after.lock, old_sources=before.sources, new_sources=after.sources)
    changes = {(c.code, c.param): c for c in diff.changes}
    sentence = changes[("param-description-changed", "name")]
    assert sentence.causes[0].pointer.endswith("/properties/name/description")
    # The tool description gained "priority" in what `create` needs: the required list made it, not
    # the reworded description of `get` that the mapping's description never shows.
    tool = changes[("tool-description-changed", None)]
    assert (
        tool.causes[0].pointer == "/paths/~1jobs/post/requestBody/content/application~1json/schema/required"
    )
    text = format_text(diff, old_label="old", new_label="new")
    for block in text.split("\n  jobs_jobs")[1:]:
        causes = [line for line in block.splitlines() if line.startswith("    <- ")]
        assert len(causes) <= 3, block  # the best two, then how many more the JSON lists
        assert "x-code-samples" not in "".join(causes)


def test_the_mapping_path_is_quoted_as_written(pull_request: tuple[Any, Any]) -> None:
    before, after = pull_request
    diff = diff_contracts(before.lock, after.lock, old_sources=before.sources, new_sources=after.sources)
    (rename,) = [c for c in diff.changes if c.code == "param-renamed"]
    line = _mapping(True).splitlines().index("          q: {name: text}") + 1
    assert f"(new.mapping.yaml line {line})" in rename.message, rename.message


def test_annotations_sit_on_the_line_of_their_tool_action_or_parameter(pull_request: tuple[Any, Any]) -> None:
    before, after = pull_request
    diff = diff_contracts(before.lock, after.lock, old_sources=before.sources, new_sources=after.sources)
    out = format_annotations(diff, file_places(after))
    lines = Path("new.mapping.yaml").read_text(encoding="utf-8").splitlines()

    def line_of(text: str) -> int:
        return next(n for n, line in enumerate(lines, 1) if line.strip() == text)

    def annotated(subject: str) -> int:
        found = next(line for line in out.splitlines() if f"contract change%3A {subject}::" in line)
        return int(found.split(",line=", 1)[1].split(",", 1)[0])

    assert annotated("jobs_jobs.cancel") == line_of("- name: cancel")
    assert annotated("jobs_jobs.update parameter selected_repository_ids") == line_of("- name: update")
    assert annotated("jobs_jobs.get result field id") == line_of("- name: get")
    assert annotated("jobs_jobs parameter text") == line_of("q: {name: text}")


def test_a_hook_that_reads_a_renamed_argument_is_warned_about(tmp_path: Path) -> None:
    # The pull request renames `q` to `text`: a before-hook that still reads args["q"] would get
    # nothing and silently stop filtering. `generate` names the hook, the line and the new name.
    from tests.unit.cli import run_cli

    _write(tmp_path, "old", BEFORE, False)
    _write(tmp_path, "new", _after(), True)
    out = tmp_path / "out"
    assert run_cli("generate", "old.json", "-m", "old.mapping.yaml", "-o", out, cwd=tmp_path).returncode == 0
    hooks = next(out.glob("*/hooks.py"))
    hooks.write_text(
        hooks.read_text(encoding="utf-8")
        + '\n\ndef before_jobs__list(args):\n    args["q"] = args.get("q", "").strip()\n    return args\n',
        encoding="utf-8",
    )
    line = (
        hooks.read_text(encoding="utf-8").splitlines().index('    args["q"] = args.get("q", "").strip()') + 1
    )
    done = run_cli("generate", "new.json", "-m", "new.mapping.yaml", "-o", out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert f"hooks.py:{line}" in said and "U006" in said, said
    assert "before_jobs__list reads argument 'q', which its action now calls 'text'" in said


def _diff(tmp_path: Path, after: dict[str, Any], mapping_extra: str = "") -> ContractDiff:
    old, new = _write(tmp_path, "old", BEFORE, False), _write(tmp_path, "new", after, False)
    if mapping_extra:
        for side in ("old", "new"):
            path = tmp_path / f"{side}.mapping.yaml"
            text = path.read_text(encoding="utf-8").replace(
                "  version: 1.0.0\n", f"  version: 1.0.0\n{mapping_extra}"
            )
            path.write_text(text, encoding="utf-8")
    before, now = load_operand(old, tmp_path), load_operand(new, tmp_path)
    return diff_contracts(before.lock, now.lock)


def test_words_that_say_deprecated_are_a_weaker_deprecation_of_their_own(tmp_path: Path) -> None:
    after = copy.deepcopy(BEFORE)
    after["paths"]["/jobs/search"]["get"]["summary"] = "Search jobs. Deprecated: use listJobs with q."
    (change,) = [c for c in _diff(tmp_path, after).changes if c.impact is Impact.DEPRECATION]
    assert (change.code, change.action) == ("action-deprecation-said", "search")
    assert "only its words say so" in change.message


def test_a_marker_the_mapping_names_is_read(tmp_path: Path) -> None:
    after = copy.deepcopy(BEFORE)
    after["paths"]["/jobs/search"]["get"]["x-retiring"] = "2027-01-01"
    unnamed = _diff(tmp_path, after)
    assert not [c for c in unnamed.changes if c.impact is Impact.DEPRECATION]
    named = _diff(tmp_path, after, "  deprecation_markers: [x-retiring]\n")
    (change,) = [c for c in named.changes if c.impact is Impact.DEPRECATION]
    assert (change.code, change.action) == ("action-deprecated", "search")
    assert "x-retiring: 2027-01-01" in change.message


def test_text_stays_within_its_budget_and_says_what_it_left_out(pull_request: tuple[Any, Any]) -> None:
    before, after = pull_request
    diff = diff_contracts(before.lock, after.lock, old_sources=before.sources, new_sources=after.sources)
    full = format_text(diff, old_label="old", new_label="new")
    cut = format_text(diff, old_label="old", new_label="new", budget=1_500)
    assert len(full) > 1_500 >= len(cut)
    assert "more contract changes did not fit: see the JSON" in cut
    assert all(line in full.splitlines() or "see the JSON" in line for line in cut.splitlines())


def test_a_change_inside_a_response_does_not_read_as_a_response_added(pull_request: tuple[Any, Any]) -> None:
    before, after = pull_request
    diff = diff_contracts(before.lock, after.lock, old_sources=before.sources, new_sources=after.sources)
    text = format_text(diff, old_label="old", new_label="new")
    assert "spec: response 200: changed at /paths/~1jobs~1{job_id}/get/responses/200/content" in text
    assert "added response 200" not in text and "changed response 200" not in text
