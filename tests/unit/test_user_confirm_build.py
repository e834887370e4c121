"""What the build decides for confirm: user (P4 ask what the model cannot know): the fallback confirm
argument, the hint, and which runtime modules a package carries. Pure: no package is installed."""

from __future__ import annotations

from pathlib import Path

import yaml

from mcpgen import generate
from tests.support.paths import SPECS

ADS = SPECS / "ads"


def _ads_with(tmp_path: Path, change: dict[str, object] | None) -> Path:
    """specs/ads/mapping.yaml, its delete action (#/tools/1/actions/3) set to `change` (None: no confirmation rule)."""
    mapping = yaml.safe_load((ADS / "mapping.yaml").read_text(encoding="utf-8"))
    delete = mapping["tools"][1]["actions"][3]
    delete.pop("confirm", None)
    delete.pop("confirm_param", None)
    delete.update(change or {})
    out = tmp_path / "mapping.yaml"
    out.write_text(yaml.safe_dump(mapping), encoding="utf-8")
    return out


def _delete(result: object):  # type: ignore[no-untyped-def]
    tool = next(t for t in result.server.tools if t.name == "ads_campaign_change")  # type: ignore[attr-defined]
    return next(a for a in tool.actions if a.name == "delete"), tool


def test_the_ads_delete_is_confirmed_by_the_user_with_the_confirm_argument_as_fallback() -> None:
    # specs/ads/mapping.yaml #/tools/1/actions/3: confirm: user, confirm_param: CONFIRM_DELETE
    result = generate(ADS / "ads.openapi.yaml", ADS / "mapping.yaml")
    assert result.ok, result.diagnostics
    delete, tool = _delete(result)
    assert delete.confirm_user and delete.confirm_value == "CONFIRM_DELETE"
    assert tool.hints.destructive
    assert "elicitation" not in result.server.runtime_left_out
    assert "store" not in result.server.runtime_left_out


def test_confirm_user_alone_gets_a_default_fallback_value(tmp_path: Path) -> None:
    result = generate(ADS / "ads.openapi.yaml", _ads_with(tmp_path, {"confirm": "user"}))
    assert result.ok, result.diagnostics
    delete, _ = _delete(result)
    assert delete.confirm_value == "CONFIRM_DELETE"


def test_a_package_without_confirm_user_leaves_elicitation_out(tmp_path: Path) -> None:
    result = generate(ADS / "ads.openapi.yaml", _ads_with(tmp_path, {"confirm_param": "CONFIRM_DELETE"}))
    assert result.ok, result.diagnostics
    delete, _ = _delete(result)
    assert not delete.confirm_user
    assert "elicitation" in result.server.runtime_left_out
