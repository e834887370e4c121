"""Custom logic around the actions of Deployments. This file is yours: edit it as you like.

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


def before_deployments_find__list(args: dict[str, Any]) -> dict[str, Any]:
    """deploy_deployments_find, action `list` (GET /services/{service}/deployments): before the request is sent."""
    return args


def after_deployments_find__list(result: dict[str, Any]) -> dict[str, Any]:
    """deploy_deployments_find, action `list` (GET /services/{service}/deployments): the result, before the agent sees it."""
    return result


def before_deployments_find__get(args: dict[str, Any]) -> dict[str, Any]:
    """deploy_deployments_find, action `get` (GET /deployments/{deployment_id}): before the request is sent."""
    return args


def after_deployments_find__get(result: dict[str, Any]) -> dict[str, Any]:
    """deploy_deployments_find, action `get` (GET /deployments/{deployment_id}): the result, before the agent sees it."""
    return result


def before_rollback__start(args: dict[str, Any]) -> dict[str, Any]:
    """deploy_rollback, action `start` (POST /deployments/{deployment_id}/rollback): before the request is sent."""
    return args


def after_rollback__start(result: dict[str, Any]) -> dict[str, Any]:
    """deploy_rollback, action `start` (POST /deployments/{deployment_id}/rollback): the result, before the agent sees it."""
    return result
