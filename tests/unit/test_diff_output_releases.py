"""The pull-request comment for a real release fits GitHub's limit and still names every contract change.

GitHub's spec from @octokit/openapi 16.6.0 and 23.0.2 (`scripts/fetch_specs releases`:
github-16.6.0.json and github-23.0.2.json, the whole of /paths), each side with the mapping `mcpgen init`
drafts for it, generated; the two lock files are diffed, as `mcpgen diff OLD_DIR NEW_DIR` does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpgen.cli.init import run_init
from mcpgen.contract.diff import ContractDiff, diff_contracts
from mcpgen.contract.format import MARKDOWN_BUDGET, format_markdown, markdown_text
from mcpgen.pipeline import generate
from mcpgen.render.lockfile import LOCK_FILE
from tests.support.paths import release_spec

pytestmark = pytest.mark.slow  # init + generate of two GitHub releases: about 30 s on 2 cores


def _lock(spec: Path, work: Path) -> dict[str, object]:
    mapping = work / f"{spec.stem}.mapping.yaml"
    assert run_init(spec, mapping, name="github", force=True) == 0
    result = generate(spec, mapping)
    assert result.ok, [d.message for d in result.diagnostics if d.level.name == "ERROR"][:5]
    lock: dict[str, object] = json.loads(next(f.content for f in result.files if f.path == LOCK_FILE))
    return lock


@pytest.fixture(scope="module")
def github_release(tmp_path_factory: pytest.TempPathFactory) -> ContractDiff:
    work = tmp_path_factory.mktemp("github-releases")
    old = _lock(release_spec("github-16.6.0.json"), work)
    new = _lock(release_spec("github-23.0.2.json"), work)
    return diff_contracts(old, new)


def test_github_16_to_23_markdown_fits_a_pull_request_comment(github_release: ContractDiff) -> None:
    diff = github_release
    out = format_markdown(diff, old_label="16.6.0", new_label="23.0.2")
    full = format_markdown(diff, old_label="16.6.0", new_label="23.0.2", budget=10**9)
    assert len(full) > MARKDOWN_BUDGET  # the budget bites on this pair
    assert len(out) <= MARKDOWN_BUDGET
    assert len(diff.changes) > 500
    for change in diff.changes:
        subject = f"{change.tool}.{change.action}" if change.action else change.tool
        assert f"**`{subject}`**: {markdown_text(change.message)}" in out, change.id
    assert out.startswith("### Tool contract of `github`: ")
    assert "see the JSON (`mcpgen diff --format json`)" in out
    full_lines = set(full.splitlines())
    assert all(line in full_lines or "see the JSON" in line for line in out.splitlines())
