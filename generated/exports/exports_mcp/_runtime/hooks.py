"""Calls the package's own `hooks.py` around each action: custom logic without editing generated code.

`hooks.py` belongs to the package's author: mcpgen creates it once and afterwards adds stubs only when asked
(`mcpgen hooks add`).
For action `get` of tool `petstore_pets_find` the hooks are `before_pets_find__get(args)` and
`after_pets_find__get(result)` (mcpgen's `naming.hook_names` makes the same names). Either may be
missing, either may be `async def`; a ToolError raised in one becomes the call's error result (E1 tool errors are results).
A before-hook returns the arguments to send; it may add `"_headers": {name: value}` (request headers).
Any other key the action does not take is the hook's mistake and an error result, never dropped.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from types import ModuleType
from typing import Any

from .errors import Recovery, ToolError, origin

log = logging.getLogger("mcp_server")

HOOK_HEADERS = "_headers"  # the key a before-hook adds request headers under


class Hooks:
    def __init__(self, module: ModuleType | None, server_name: str):
        self.module = module
        self.server_name = server_name

    @classmethod
    def load(cls, package: str, server_name: str) -> Hooks:
        try:
            module = importlib.import_module(f"{package}.hooks")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.hooks":
                raise  # hooks.py exists but imports something missing: its author needs to know
            module = None  # a package generated before hooks existed
        return cls(module, server_name)

    async def before(
        self,
        tool: str,
        action: str,
        args: dict[str, Any],
        takes: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """`takes`: the arguments the action takes; a returned key outside them (and the arguments
        given) is an error naming it, so a typo never silently goes unsent."""
        given = set(args)  # before the hook runs: it may change `args` in place
        returned = await self._run("before", tool, action, args)
        name = self._name("before", tool, action)
        unknown = sorted(set(returned) - set(takes) - given - {HOOK_HEADERS})
        if unknown:
            raise _broken(
                name,
                f"returned {', '.join(unknown)}, which action {action} does not take "
                f"(request headers go under {HOOK_HEADERS!r})",
            )
        headers = returned.get(HOOK_HEADERS, {})
        if not isinstance(headers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
        ):
            raise _broken(
                name, f"returned {HOOK_HEADERS} that is not a dict of str to str"
            )
        return returned

    async def after(
        self, tool: str, action: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        return await self._run("after", tool, action, result)

    def _name(self, when: str, tool: str, action: str) -> str:
        return f"{when}_{tool.removeprefix(self.server_name + '_')}__{action}"

    async def _run(
        self, when: str, tool: str, action: str, value: dict[str, Any]
    ) -> dict[str, Any]:
        name = self._name(when, tool, action)
        hook = getattr(self.module, name, None)
        if hook is None:
            return value
        try:
            returned = hook(value)
            if inspect.isawaitable(returned):
                returned = await returned
        except ToolError:
            raise
        except Exception as exc:  # noqa: BLE001 - the author's code: a failure is a result (E1 tool errors are results)
            # Type and place only: the message may carry argument values or secrets (E5 no internals).
            log.error("hooks.%s raised %s at %s", name, type(exc).__name__, origin(exc))
            raise _broken(name, f"raised {type(exc).__name__}") from None
        if not isinstance(returned, dict):
            raise _broken(name, f"returned {type(returned).__name__}, not a dict")
        return returned


def _broken(name: str, what: str) -> ToolError:
    """The hook's author must fix it; message says what it did, never the values (E5 no internals)."""
    return ToolError(
        f"the server's custom hook {name} {what}.",
        "Tell the user that this server's hooks.py needs fixing; retrying will not help.",
        Recovery.NEEDS_HUMAN,
    )
