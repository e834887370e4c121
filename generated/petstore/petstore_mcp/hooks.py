"""Custom logic around the actions of Petstore. This file is yours: edit it as you like.

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


def before_orders__place(args: dict[str, Any]) -> dict[str, Any]:
    """petstore_orders, action `place` (POST /store/order): before the request is sent."""
    return args


def after_orders__place(result: dict[str, Any]) -> dict[str, Any]:
    """petstore_orders, action `place` (POST /store/order): the result, before the agent sees it."""
    return result


def before_orders__get(args: dict[str, Any]) -> dict[str, Any]:
    """petstore_orders, action `get` (GET /store/order/{orderId}): before the request is sent."""
    return args


def after_orders__get(result: dict[str, Any]) -> dict[str, Any]:
    """petstore_orders, action `get` (GET /store/order/{orderId}): the result, before the agent sees it."""
    return result


def before_orders__cancel(args: dict[str, Any]) -> dict[str, Any]:
    """petstore_orders, action `cancel` (DELETE /store/order/{orderId}): before the request is sent."""
    return args


def after_orders__cancel(result: dict[str, Any]) -> dict[str, Any]:
    """petstore_orders, action `cancel` (DELETE /store/order/{orderId}): the result, before the agent sees it."""
    return result


def before_orders__inventory(args: dict[str, Any]) -> dict[str, Any]:
    """petstore_orders, action `inventory` (GET /store/inventory): before the request is sent."""
    return args


def after_orders__inventory(result: dict[str, Any]) -> dict[str, Any]:
    """petstore_orders, action `inventory` (GET /store/inventory): the result, before the agent sees it."""
    return result


def before_pets_change__add(args: dict[str, Any]) -> dict[str, Any]:
    """petstore_pets_change, action `add` (POST /pet): before the request is sent."""
    return args


def after_pets_change__add(result: dict[str, Any]) -> dict[str, Any]:
    """petstore_pets_change, action `add` (POST /pet): the result, before the agent sees it."""
    return result


def before_pets_change__remove(args: dict[str, Any]) -> dict[str, Any]:
    """petstore_pets_change, action `remove` (DELETE /pet/{petId}): before the request is sent."""
    return args


def after_pets_change__remove(result: dict[str, Any]) -> dict[str, Any]:
    """petstore_pets_change, action `remove` (DELETE /pet/{petId}): the result, before the agent sees it."""
    return result


def before_pets_find__by_status(args: dict[str, Any]) -> dict[str, Any]:
    """petstore_pets_find, action `by_status` (GET /pet/findByStatus): before the request is sent."""
    return args


def after_pets_find__by_status(result: dict[str, Any]) -> dict[str, Any]:
    """petstore_pets_find, action `by_status` (GET /pet/findByStatus): the result, before the agent sees it."""
    return result


def before_pets_find__by_tags(args: dict[str, Any]) -> dict[str, Any]:
    """petstore_pets_find, action `by_tags` (GET /pet/findByTags): before the request is sent."""
    return args


def after_pets_find__by_tags(result: dict[str, Any]) -> dict[str, Any]:
    """petstore_pets_find, action `by_tags` (GET /pet/findByTags): the result, before the agent sees it."""
    return result


def before_pets_find__get(args: dict[str, Any]) -> dict[str, Any]:
    """petstore_pets_find, action `get` (GET /pet/{petId}): before the request is sent."""
    return args


def after_pets_find__get(result: dict[str, Any]) -> dict[str, Any]:
    """petstore_pets_find, action `get` (GET /pet/{petId}): the result, before the agent sees it."""
    return result
