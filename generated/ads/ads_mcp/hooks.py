"""Custom logic around the actions of Ads campaigns. This file is yours: edit it as you like.

`mcpgen generate` created it and never overwrites it. When the mapping gains an action, the next run
adds that action's two stubs here; when an action goes away, its hooks stay and the run warns about
them. Your own helpers and imports are kept as well.

For each action of each tool the server calls, when they are defined here:
- `before_<tool>__<action>(args)` gets the validated arguments (defaults applied, `action` left out)
  and returns the arguments to send upstream, which are sent as returned;
- `after_<tool>__<action>(result)` gets the upstream's answer as a dict and returns what the agent
  receives.
Either may be `async def`. To answer the agent with an actionable error instead, raise the
`ToolError` of `._runtime.errors`: it names what is wrong and how to recover (E1, E2).
"""

from __future__ import annotations

from typing import Any


def before_budget_change__set(args: dict[str, Any]) -> dict[str, Any]:
    """ads_budget_change, action `set` (PATCH /campaigns/{campaign_id}/budget): before the request is sent."""
    return args


def after_budget_change__set(result: dict[str, Any]) -> dict[str, Any]:
    """ads_budget_change, action `set` (PATCH /campaigns/{campaign_id}/budget): the result, before the agent sees it."""
    return result


def before_campaign_change__create(args: dict[str, Any]) -> dict[str, Any]:
    """ads_campaign_change, action `create` (POST /campaigns): before the request is sent."""
    return args


def after_campaign_change__create(result: dict[str, Any]) -> dict[str, Any]:
    """ads_campaign_change, action `create` (POST /campaigns): the result, before the agent sees it."""
    return result


def before_campaign_change__pause(args: dict[str, Any]) -> dict[str, Any]:
    """ads_campaign_change, action `pause` (POST /campaigns/{campaign_id}/pause): before the request is sent."""
    return args


def after_campaign_change__pause(result: dict[str, Any]) -> dict[str, Any]:
    """ads_campaign_change, action `pause` (POST /campaigns/{campaign_id}/pause): the result, before the agent sees it."""
    return result


def before_campaign_change__resume(args: dict[str, Any]) -> dict[str, Any]:
    """ads_campaign_change, action `resume` (POST /campaigns/{campaign_id}/resume): before the request is sent."""
    return args


def after_campaign_change__resume(result: dict[str, Any]) -> dict[str, Any]:
    """ads_campaign_change, action `resume` (POST /campaigns/{campaign_id}/resume): the result, before the agent sees it."""
    return result


def before_campaign_change__delete(args: dict[str, Any]) -> dict[str, Any]:
    """ads_campaign_change, action `delete` (DELETE /campaigns/{campaign_id}): before the request is sent."""
    return args


def after_campaign_change__delete(result: dict[str, Any]) -> dict[str, Any]:
    """ads_campaign_change, action `delete` (DELETE /campaigns/{campaign_id}): the result, before the agent sees it."""
    return result


def before_campaigns_find__list(args: dict[str, Any]) -> dict[str, Any]:
    """ads_campaigns_find, action `list` (GET /campaigns): before the request is sent."""
    return args


def after_campaigns_find__list(result: dict[str, Any]) -> dict[str, Any]:
    """ads_campaigns_find, action `list` (GET /campaigns): the result, before the agent sees it."""
    return result


def before_campaigns_find__search(args: dict[str, Any]) -> dict[str, Any]:
    """ads_campaigns_find, action `search` (GET /campaigns/search): before the request is sent."""
    return args


def after_campaigns_find__search(result: dict[str, Any]) -> dict[str, Any]:
    """ads_campaigns_find, action `search` (GET /campaigns/search): the result, before the agent sees it."""
    return result


def before_campaigns_find__get(args: dict[str, Any]) -> dict[str, Any]:
    """ads_campaigns_find, action `get` (GET /campaigns/{campaign_id}): before the request is sent."""
    return args


def after_campaigns_find__get(result: dict[str, Any]) -> dict[str, Any]:
    """ads_campaigns_find, action `get` (GET /campaigns/{campaign_id}): the result, before the agent sees it."""
    return result


def before_reports__campaign_stats(args: dict[str, Any]) -> dict[str, Any]:
    """ads_reports, action `campaign_stats` (GET /campaigns/{campaign_id}/stats): before the request is sent."""
    return args


def after_reports__campaign_stats(result: dict[str, Any]) -> dict[str, Any]:
    """ads_reports, action `campaign_stats` (GET /campaigns/{campaign_id}/stats): the result, before the agent sees it."""
    return result


def before_reports__account(args: dict[str, Any]) -> dict[str, Any]:
    """ads_reports, action `account` (GET /account): before the request is sent."""
    return args


def after_reports__account(result: dict[str, Any]) -> dict[str, Any]:
    """ads_reports, action `account` (GET /account): the result, before the agent sees it."""
    return result
