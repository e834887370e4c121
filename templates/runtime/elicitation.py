"""The user confirms, and gives what the model cannot know (P4 ask what the model cannot know),
through the 2026-07-28 multi round-trip requests.

A `tools/call` of an action whose mapping says `confirm: user`, or that has `ask_user` parameters,
from a client that declared elicitation support, is answered with `resultType: "input_required"`:
one `elicitation/create` request asking the user (a yes, and a form field for each asked
parameter), and a `requestState`. The client asks the user and sends the same call again, with a
new JSON-RPC id, carrying `inputResponses` and that `requestState`; the user's values are sent
upstream, never values the model wrote.

The state is `el.<nonce>.<expiry>.<signature>`: an HMAC (the preview store's signing key, shared by
every replica that shares the store) over the nonce, expiry, tool, caller and the exact arguments.
No server keeps a session: any replica can take the retry. The nonce is recorded in the store when
the question is asked and claimed by the one retry that answers it, so a replayed state does nothing.
A client without elicitation support keeps the `confirm` argument (what works without it); an
asked parameter it cannot give, so such an action is an error result for it (dispatch.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import socket
import time
from collections.abc import Mapping
from typing import Any

from mcp.shared.exceptions import MCPError

from .errors import Recovery, ToolError
from .routing import Action
from .store import PreviewRecord, PreviewStore, open_store

STATE_TTL_S = 600  # how long the user has to answer
_INPUT_KEY = "user"  # the key of the one input request
INVALID_PARAMS = -32602
_EXPIRY = re.compile(r"[0-9]{1,12}")  # epoch seconds
# Who claimed a question's answer (as preview.py's claims say it), for the store's records.
_OWNER = f"{socket.gethostname()} {os.getpid()} {secrets.token_hex(6)}"


def client_can_elicit(capabilities: Any) -> bool:
    """Whether the client declared elicitation support on this request (its _meta clientCapabilities)."""
    return getattr(capabilities, "elicitation", None) is not None


def confirming_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments the user confirms: everything but a `confirm` value the model may have filled in."""
    return {k: v for k, v in arguments.items() if k != "confirm"}


class UserConfirmations:
    def __init__(self, package: str):
        self.package = package
        self._store: PreviewStore | None = None

    def store(self) -> PreviewStore:
        if self._store is None:
            self._store = open_store(self.package)
        return self._store

    async def ask(
        self, tool: str, action: Action, arguments: dict[str, Any], subject: str
    ) -> dict[str, Any]:
        """The `input_required` result asking the user about exactly this call."""
        store = self.store()
        nonce = secrets.token_urlsafe(18)
        expires = int(time.time()) + STATE_TTL_S
        state = _state(
            await store.signing_key(), nonce, expires, tool, subject, arguments
        )
        await store.put(
            PreviewRecord(
                id=f"el.{nonce}",
                tool=tool,
                subject=subject,
                payload={"action": action.name},
                expires_at=expires,
            )
        )
        return {
            "resultType": "input_required",
            "inputRequests": {
                _INPUT_KEY: {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": _question(tool, action, arguments),
                        "requestedSchema": requested_schema(action),
                    },
                }
            },
            "requestState": state,
        }

    async def answered(
        self,
        tool: str,
        action: Action,
        arguments: dict[str, Any],
        subject: str,
        state: Any,
        responses: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        """The user's values for the action's asked parameters, once the user accepted (and said yes
        to a `confirm: user` action) for exactly this call; raises otherwise, having done nothing."""
        store = self.store()
        nonce = _verified_nonce(
            await store.signing_key(), state, tool, subject, arguments
        )
        if not await store.claim(f"el.{nonce}", time.time(), _OWNER):
            if await store.get(f"el.{nonce}") is None:
                # Signed, so issued here: its record went with a store that lost its data.
                raise _refused(
                    "this requestState's record is gone (the server's store lost its data), so "
                    "whether it was already answered cannot be told; an answer is used once.",
                    "call the tool again without requestState to ask the user again.",
                )
            raise _refused(
                "this requestState was already answered once; an answer is used once.",
                "call the tool again without requestState to ask the user again.",
            )
        answer = (responses or {}).get(_INPUT_KEY)
        content = _accepted(answer)
        if content is None or (
            action.confirm_user and content.get("confirm") is not True
        ):
            await store.finish(f"el.{nonce}", {"declined": True})
            raise _declined(action)
        await store.finish(f"el.{nonce}", {"answered": True})
        asked = {p.arg for p in action.asked}
        return {k: v for k, v in content.items() if k in asked}


def requested_schema(action: Action) -> dict[str, Any]:
    """The form the user fills in: a yes for `confirm: user`, then each asked parameter's field
    (built by the generator from the parameter's type, enum and description)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    if action.confirm_user:
        properties["confirm"] = {"type": "boolean", "title": f"Yes, {action.name} it"}
        required.append("confirm")
    for param in action.asked:
        properties[param.arg] = dict(param.ask_user or {})
        if param.arg in action.required:
            required.append(param.arg)
    return {"type": "object", "properties": properties, "required": required}


def _question(tool: str, action: Action, arguments: Mapping[str, Any]) -> str:
    shown = ", ".join(
        f"{k}={json.dumps(v)}"
        for k, v in sorted(arguments.items())
        if k not in ("action", "confirm")
    )
    said = f"{tool} wants to {action.name}" + (f": {shown}." if shown else ".")
    names = ", ".join(p.arg for p in action.asked)
    if action.confirm_user and names:
        return f"{said} This cannot be undone. Give {names} and confirm to go ahead."
    if action.confirm_user:
        return f"{said} This cannot be undone. Do you want to go ahead?"
    return f"{said} It needs you to give {names}; the assistant does not choose it."


def _accepted(answer: Any) -> Mapping[str, Any] | None:
    """The form's content of an accepted elicitation; None for decline, cancel or anything else."""
    if not isinstance(answer, Mapping) or answer.get("action") != "accept":
        return None
    content = answer.get("content")
    return content if isinstance(content, Mapping) else None


def _declined(action: Action) -> ToolError:
    names = ", ".join(p.arg for p in action.asked)
    what = (
        f"the user did not confirm {action.name}"
        if action.confirm_user
        else f"the user did not give {names} for {action.name}"
    )
    return ToolError(
        f"{what}; nothing was done.",
        f"Do not call {action.name} again unless the user asks for it.",
        Recovery.NEEDS_HUMAN,
    )


def _digest(arguments: Mapping[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _signature(
    key: bytes,
    nonce: str,
    expires: int,
    tool: str,
    subject: str,
    arguments: Mapping[str, Any],
) -> str:
    message = f"elicit\n{nonce}\n{expires}\n{tool}\n{subject}\n{_digest(arguments)}"
    digest = hmac.new(key, message.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def _state(
    key: bytes,
    nonce: str,
    expires: int,
    tool: str,
    subject: str,
    arguments: Mapping[str, Any],
) -> str:
    signature = _signature(key, nonce, expires, tool, subject, arguments)
    return f"el.{nonce}.{expires}.{signature}"


def _verified_nonce(
    key: bytes, state: Any, tool: str, subject: str, arguments: Mapping[str, Any]
) -> str:
    parts = state.split(".") if isinstance(state, str) else []
    # ASCII digits only: str.isdigit() also accepts '²', which int() refuses.
    if (
        len(parts) != 4
        or parts[0] != "el"
        or not parts[1]
        or not _EXPIRY.fullmatch(parts[2])
    ):
        raise _refused(
            "requestState is not one this server issued.",
            "send the requestState exactly as the server returned it, or call again without it.",
        )
    expected = _signature(key, parts[1], int(parts[2]), tool, subject, arguments)
    if not hmac.compare_digest(parts[3].encode(), expected.encode()):
        raise _refused(
            "requestState does not match this call: it was altered, issued to another caller, "
            "or issued for other arguments.",
            "retry with exactly the arguments of the call that returned it, or call again without "
            "requestState to ask the user about these arguments.",
        )
    if int(parts[2]) <= time.time():
        raise _refused(
            f"requestState expired {STATE_TTL_S // 60} minutes after the user was asked.",
            "call the tool again without requestState to ask the user again.",
        )
    return parts[1]


def _refused(what: str, fix: str) -> MCPError:
    """A requestState that fails its checks is a JSON-RPC error (the revision: servers MUST reject
    state that fails integrity verification); nothing was done."""
    return MCPError(
        code=INVALID_PARAMS,
        message=f"Invalid requestState: {what} Nothing was done. To fix: {fix}",
        data={"reason": "invalid_request_state"},
    )
