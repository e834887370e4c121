"""Preview, then apply (S1 preview, then apply): `<tool>_preview` computes the change and hands out an opaque id,
`<tool>_apply(preview_id)` makes exactly that change, once.

A preview id is `pv.<nonce>.<signature>`: the nonce is random (unguessable), the signature an HMAC
over the nonce, the tool and the caller (tamper-evident, and bound to whoever previewed it when the
transport knows the caller). The id is a name, not a permission: apply still checks the caller (S3 handles).
Guard rules (S2 guard rails as errors) are checked against the current value when the preview is made.

An apply claims its preview in the store, with who holds the claim and since when. Whatever the
claim's holder had not recorded when it stopped (a crash, a kill, a timeout) is an unknown outcome
(E4 unknown outcome is not retry), reported as such for as long as the record exists, and ahead of the preview's expiry: the API
may have made the change. A claim is waited for only while its holder may still be running it.

Once the request is sent, a store that fails never hides the API's answer: the apply answers it (saying
that it could not be recorded), and its process keeps the outcome and records it at its next call. A
signed id whose record is gone (a store that lost its data) is an unknown outcome, never "nothing was
changed": the server cannot know whether an apply of it was sent.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import os
import secrets
import socket
import time
from collections.abc import Callable, Mapping
from typing import Any

import anyio

from .config import UnitConversion
from .errors import Recovery, ToolError, quoted
from .routing import Action, Execute, Guard, Preview, Read, Tool, Unit
from .store import (
    RETAIN_S,
    SIGNING_KEY_ENV,
    PreviewRecord,
    PreviewStore,
    Status,
    StoreUnavailable,
    open_store,
)

_POLL_S = 0.05
# Who holds a claim: host, pid, and a nonce for this run, so that a restarted server that got the
# same pid (pid 1 in a container) tells its predecessor's claims from its own.
_HOST = socket.gethostname()
_RUN = secrets.token_hex(6)
OWNER = f"{_HOST} {os.getpid()} {_RUN}"
# The most outcomes a process keeps for the store (one per apply it ran while the store was down).
_KEPT_MAX = 10_000
_NOT_RECORDED = (
    "The change was made: the API's answer is above. This server could not record it in its preview "
    "store just now, so do not preview and apply this change again; applying this same preview_id "
    "again is safe (it is never sent twice)."
)


# (unit, current record, field) -> the field's value, in the argument's unit when it has one.
Current = Callable[[Unit | None, dict[str, Any], str], Any]


class Previews:
    def __init__(
        self, package: str, apply_limit_s: float, units: UnitConversion | None = None
    ):
        """`units`: conversion.py, in a package with units of its own (T5 parameter names)."""
        self.package = package
        # How long an apply may hold its claim; an older claim counts as cut off.
        self.apply_limit_s = apply_limit_s
        self._current: Current = (
            units.current_in_agent_units if units is not None else _as_recorded
        )
        self._store: PreviewStore | None = None
        # Outcomes of this process's applies the store could not take when they ended: answered from
        # here, and written to the store at the next call (the ids in `_unrecorded`).
        self._kept: dict[str, PreviewRecord] = {}
        self._unrecorded: set[str] = set()

    def store(self) -> PreviewStore:
        if self._store is None:
            # Opened at the first preview, never at start-up (E3 which kind of recovery).
            self._store = open_store(self.package)
        return self._store

    async def preview(
        self, tool: Tool, values: dict[str, Any], subject: str, read: Read
    ) -> dict[str, Any]:
        action = tool.actions[0]
        preview: Preview = action.preview  # type: ignore[assignment]
        read_args = {
            p.arg: values[p.arg] for p in preview.read.params if p.arg in values
        }
        current = _record(
            await read(preview.read, read_args),
            [g.current for g in preview.guards] + list(preview.compared.values()),
        )
        for guard in preview.guards:
            _check_guard(guard, values, current, preview.approval, self._current)
        store = self.store()
        await self._record_kept(store)
        preview_id = _issue_id(await store.signing_key(), tool.name, subject)
        expires_at = time.time() + preview.ttl_minutes * 60
        await store.put(
            PreviewRecord(
                id=preview_id,
                tool=tool.name,
                subject=subject,
                payload={"action": action.name, "arguments": values},
                expires_at=expires_at,
            )
        )
        units = {p.arg: p.unit for p in action.params if p.unit is not None}
        changes, unchanged = _compare(
            preview.compared, values, current, self._current, units
        )
        until = _utc(expires_at)
        shown: dict[str, Any] = {
            "preview_id": preview_id,
            "expires_at": until,
            "valid_minutes": preview.ttl_minutes,
            "target": {k: v for k, v in values.items() if k not in preview.compared},
            "changes": changes,
            "impact": [_impact(c) for c in changes] or ["no field changes value"],
            "next_step": f"Nothing has changed yet. To make exactly this change, call {tool.name}_apply with "
            f"this preview_id before {until}. To change something else, preview again.",
        }
        if unchanged:
            shown["unchanged"] = (
                unchanged  # set by the change to the value they already have
            )
        return shown

    async def apply(
        self, tool: Tool, preview_id: Any, subject: str, execute: Execute
    ) -> dict[str, Any]:
        store = self.store()
        if not isinstance(preview_id, str) or not _signed_by(
            await store.signing_key(), preview_id, tool.name, subject
        ):
            raise _unverified(tool)
        await self._record_kept(store)
        kept = self._kept.get(preview_id)
        if kept is None and await store.claim(preview_id, time.time(), OWNER):
            return await self._execute(tool, preview_id, subject, store, execute)
        record = kept or await self._settled(store, await store.get(preview_id))
        if record is None:
            raise _record_gone(tool)  # signed by this server: it may have been applied
        if record.subject != subject or record.tool != tool.name:
            raise _unknown(tool, "is unknown to this server")
        if record.status == "done" and record.result is not None:
            return (
                record.result
            )  # the first apply's result: one id, one effect (S1 preview, then apply)
        if record.status in ("applying", "unknown"):
            raise _outcome_unknown(
                tool, record
            )  # expired or not: the API may have it (E4 unknown outcome is not retry)
        if record.expires_at <= time.time():
            raise ToolError(
                f"preview_id expired at {_utc(record.expires_at)}; nothing was changed.",
                f"Call {tool.name}_preview again to see the current values, then apply the new preview_id.",
                Recovery.FIX_INPUT,
            )
        raise ToolError(
            f"the apply of this preview that was running at the same time failed: {record.error}",
            f"The preview is valid until {_utc(record.expires_at)}; call {tool.name}_apply with the same "
            "preview_id again when the problem is solved.",
            Recovery.RETRY_LATER,
        )

    async def _execute(
        self,
        tool: Tool,
        preview_id: str,
        subject: str,
        store: PreviewStore,
        execute: Execute,
    ) -> dict[str, Any]:
        ended = _Ending(tool.name, subject, time.time())
        try:
            action, arguments, ended.expires_at = _planned(
                tool, await store.get(preview_id), subject
            )
        except BaseException as exc:
            # Nothing was sent: the preview stays as it was, for the next apply.
            why = (
                exc.what
                if isinstance(exc, ToolError)
                else "its record could not be read"
            )
            with anyio.CancelScope(shield=True):
                await self._settle(store, preview_id, ended.as_record("pending", why))
            raise
        try:
            # The same key on every apply of one preview: a retry after a timeout stays one change (E4 unknown outcome is not retry).
            result = await execute(action, arguments, _idempotency_key(preview_id))
        except ToolError as exc:
            # CHECK_OUTCOME: it may have taken effect, so this id is never sent again (E4 unknown outcome is not retry).
            unknown = exc.recovery is Recovery.CHECK_OUTCOME
            record = ended.as_record("unknown" if unknown else "pending", exc.what)
            recorded = await self._settle(store, preview_id, record)
            exc.how += (
                f" If the change is not there, call {tool.name}_preview again."
                if unknown
                else f" The preview stays valid until {_utc(ended.expires_at)}: apply the same "
                "preview_id again once that is done."
            )
            if not recorded:
                exc.how += " (This server could not record this outcome in its preview store just now.)"
            raise
        except BaseException as exc:
            # Cut off mid-call (cancelled, or a failure of the server's own): the request may
            # have reached the API, so it is never sent again, exactly as after a timeout
            # (E4 unknown outcome is not retry).
            with anyio.CancelScope(shield=True):
                await self._settle(
                    store, preview_id, ended.as_record("unknown", _cut_off(exc))
                )
            raise
        if not await self._settle(
            store, preview_id, ended.as_record("done", "", result)
        ):
            return {**result, "not_recorded": _NOT_RECORDED}
        return result

    async def _settle(
        self, store: PreviewStore, preview_id: str, record: PreviewRecord
    ) -> bool:
        """Record how an apply ended; True when the store took it. When it cannot, this process
        answers for the id itself and records it at its next call: the API's answer is never lost
        to a store that failed after the request was sent."""
        try:
            if await _write(store, preview_id, record):
                return True
            self._keep(
                preview_id, record, unrecorded=False
            )  # the store lost it: never writable
        except StoreUnavailable:
            self._keep(preview_id, record)
        return False

    def _keep(
        self, preview_id: str, record: PreviewRecord, *, unrecorded: bool = True
    ) -> None:
        now = time.time()
        for old, kept in list(self._kept.items()):
            if kept.expires_at + RETAIN_S < now or len(self._kept) >= _KEPT_MAX:
                del self._kept[old]
                self._unrecorded.discard(old)
        self._kept[preview_id] = record
        if unrecorded:
            self._unrecorded.add(preview_id)

    async def _record_kept(self, store: PreviewStore) -> None:
        """Writes the outcomes the store could not take, while it takes them. A finished apply stays
        answered from here too: a store that came back empty has lost its record."""
        for preview_id in list(self._unrecorded):
            record = self._kept.get(preview_id)
            if record is None or preview_id not in self._unrecorded:
                continue  # written by another call of this process meanwhile
            try:
                await _write(store, preview_id, record)
            except StoreUnavailable:
                return
            self._unrecorded.discard(preview_id)
            if record.status != "done":
                self._kept.pop(preview_id, None)  # the store answers for it again

    async def _settled(
        self, store: PreviewStore, record: PreviewRecord | None
    ) -> PreviewRecord | None:
        """Wait while the apply holding the claim may still be running, then the record as it is."""
        while (
            record is not None
            and record.status == "applying"
            and time.time() < record.claimed_at + self.apply_limit_s
            and not _owner_gone(record.owner)
        ):
            await anyio.sleep(_POLL_S)
            record = await store.get(record.id)
        return record


class _Ending:
    """What is known of an apply under way, for the record of how it ended."""

    def __init__(self, tool: str, subject: str, expires_at: float):
        self.tool, self.subject, self.expires_at = tool, subject, expires_at

    def as_record(
        self, status: Status, error: str, result: dict[str, Any] | None = None
    ) -> PreviewRecord:
        return PreviewRecord(
            id="",
            tool=self.tool,
            subject=self.subject,
            payload={},
            expires_at=self.expires_at,
            status=status,
            result=result,
            error=error,
            owner=OWNER,
        )


async def _write(store: PreviewStore, preview_id: str, record: PreviewRecord) -> bool:
    """False when the claim's record is gone (only its holder settles it, so nothing else moved it)."""
    if record.status == "done" and record.result is not None:
        return await store.finish(preview_id, record.result)
    return await store.release(preview_id, record.error, status=record.status)


def _planned(
    tool: Tool, record: PreviewRecord | None, subject: str
) -> tuple[Action, dict[str, Any], float]:
    """What a claimed preview sends, and when it expires; raises ToolError when it cannot be sent."""
    if record is None or record.subject != subject or record.tool != tool.name:
        raise _unknown(tool, "is unknown to this server")  # the signature says so too
    action = tool.action(record.payload["action"])
    if action is None:  # the contract changed since the preview
        raise _unknown(tool, "was made for an action this server no longer has")
    return action, dict(record.payload["arguments"]), record.expires_at


def _owner_gone(owner: str) -> bool:
    """True only when the process that holds a claim is known to have ended: it ran on this host
    and its pid is not running, or it is this pid in an earlier run. Other hosts' claims age out."""
    host, _, rest = owner.partition(" ")
    pid, _, run = rest.partition(" ")
    if host != _HOST or not pid.isdigit() or os.name != "posix":
        return False
    if int(pid) == os.getpid():
        return run != _RUN
    try:
        os.kill(int(pid), 0)  # signal 0: asks whether the process exists, sends nothing
    except ProcessLookupError:
        return True
    except OSError:  # it exists under another user, or cannot be asked
        return False
    return False


# What an apply cut off mid-call records; `_outcome_unknown` tells the next apply.
_CANCELLED = (
    "was cancelled (the client stopped it, timed out or disconnected, or the server shut down) "
    "after its request may have reached the API"
)
_INTERRUPTED = "was interrupted by a failure of the server's own after its request may have reached the API"


def _cut_off(exc: BaseException) -> str:
    return (
        _CANCELLED if isinstance(exc, anyio.get_cancelled_exc_class()) else _INTERRUPTED
    )


def _outcome_unknown(tool: Tool, record: PreviewRecord) -> ToolError:
    why = (
        record.error
        if record.error in (_CANCELLED, _INTERRUPTED)
        else f"got no answer in time ({record.error})"
        if record.status == "unknown"
        else "was cut off before the API's answer was recorded (the server running it stopped, "
        "or it is taking longer than an apply should)"
    )
    check = tool.actions[0].check_with or "a read tool"
    return ToolError(
        f"an earlier apply of this preview_id {why}, so whether the change was made is unknown; "
        "this id is not sent again.",
        f"Check the current state with {check} before anything else. If the change is not there, "
        f"call {tool.name}_preview again and apply the new preview_id.",
        Recovery.CHECK_OUTCOME,
    )


def _issue_id(key: bytes, tool: str, subject: str) -> str:
    nonce = secrets.token_urlsafe(18)
    return f"pv.{nonce}.{_signature(key, nonce, tool, subject)}"


def _signed_by(key: bytes, preview_id: str, tool: str, subject: str) -> bool:
    parts = preview_id.split(".")
    if len(parts) != 3 or parts[0] != "pv" or not parts[1]:
        return False
    expected = _signature(key, parts[1], tool, subject)
    return hmac.compare_digest(parts[2].encode(), expected.encode())


def _signature(key: bytes, nonce: str, tool: str, subject: str) -> str:
    digest = hmac.new(
        key, f"{nonce}\n{tool}\n{subject}".encode(), hashlib.sha256
    ).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def _idempotency_key(preview_id: str) -> str:
    return hashlib.sha256(f"apply\n{preview_id}".encode()).hexdigest()[:32]


def _unverified(tool: Tool) -> ToolError:
    """An id whose signature does not verify. This call sent nothing; an earlier apply of an id
    issued under a signing key since lost may have, so the check comes first (E4 unknown outcome is not retry)."""
    check = tool.actions[0].check_with or "a read tool"
    return ToolError(
        "this preview_id is not one this server issued to you, as far as it can verify: it is "
        "unknown, altered, another caller's, or was issued before the server's signing key changed "
        f"(a restart without {SIGNING_KEY_ENV} and with a store that lost its data). This call sent "
        "nothing.",
        f"Call {tool.name}_preview with the change you want, then call {tool.name}_apply with the "
        "preview_id it returns. If an earlier apply of this preview_id went unanswered, first check "
        f"the current state with {check}.",
        Recovery.FIX_INPUT,
    )


def _record_gone(tool: Tool) -> ToolError:
    check = tool.actions[0].check_with or "a read tool"
    return ToolError(
        "this preview_id was issued by this server, but its record is gone (the preview store lost "
        "its data, or the record outlived its retention of a day), so whether an earlier apply of it "
        "made the change is unknown; this id is not sent again.",
        f"Check the current state with {check} before anything else. If the change is not there, "
        f"call {tool.name}_preview again and apply the new preview_id.",
        Recovery.CHECK_OUTCOME,
    )


def _unknown(tool: Tool, why: str) -> ToolError:
    return ToolError(
        f"this preview_id {why}; nothing was changed.",
        f"Call {tool.name}_preview with the change you want, then call {tool.name}_apply with the "
        "preview_id it returns.",
        Recovery.FIX_INPUT,
    )


def _record(body: Any, fields: list[str]) -> Any:
    """The record a preview's read answers: inside a one-key envelope (Hetzner's {"volume": {...}})
    when the fields the guards and the comparison read are not at its top (S2 guard rails as errors)."""
    if not isinstance(body, dict) or len(body) != 1:
        return body
    (inner,) = body.values()
    heads = {f.split(".")[0] for f in fields}
    return inner if isinstance(inner, dict) and not heads & body.keys() else body


def _check_guard(
    guard: Guard,
    values: dict[str, Any],
    current: dict[str, Any],
    approval: str,
    in_agent_units: Current,
) -> None:
    """Refuse a rise of more than `max_increase_pct` over the current value (S2 guard rails as errors). A percentage of a
    current value of zero or below says nothing about the size of a rise, so such a rise is refused
    with that reason, never as "-100% above"; a value at or below the current one is no rise."""
    if guard.arg not in values:
        return
    new = values[guard.arg]
    old = in_agent_units(
        guard.unit, current, guard.current
    )  # T5 parameter names: in the argument's unit
    limit = f"+{guard.max_increase_pct:g}%"
    if not _is_number(old):
        got = f"no {guard.current}" if old is None else f"{guard.current} {quoted(old)}"
        raise ToolError(
            f"the current value of {guard.arg} is unknown (the API's record has {got}), so the limit "
            f"of {limit} cannot be checked.",
            approval,
            Recovery.NEEDS_HUMAN,
        )
    if new <= old:
        return
    if old <= 0:
        what = "zero" if old == 0 else "below zero"
        raise ToolError(
            f"{guard.arg} {quoted(new)} is a rise from the current {quoted(old)}, and the limit of {limit} "
            f"cannot be computed for a current value {what}: a percentage of it says nothing about the "
            "size of the rise, so this tool does not make it.",
            f"A rise from there needs approval: {approval} Setting {guard.arg} to the current value or "
            "less is not limited and can be previewed now.",
            Recovery.NEEDS_HUMAN,
        )
    if new <= old * (1 + guard.max_increase_pct / 100):
        return
    raise ToolError(
        f"{guard.arg} {quoted(new)} is {(new - old) / old * 100:.0f}% above the current {quoted(old)}; "
        f"changes of more than {limit} need approval and are not made by this tool.",
        approval,
        Recovery.NEEDS_HUMAN,
    )


def _field(record: dict[str, Any], path: str) -> Any:
    """`a.b` reads record['a']['b']; a missing field is None."""
    value: Any = record
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _as_recorded(unit: Unit | None, record: dict[str, Any], field: str) -> Any:
    """The current value as the API records it: in a package without units of its own, a unit is
    never set."""
    return _field(record, field)


def _compare(
    compared: Mapping[str, str],
    values: dict[str, Any],
    current: dict[str, Any],
    in_agent_units: Current,
    units: Mapping[str, Unit] | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """What the change sets, field by field, against the current record: only the fields it sets,
    an object argument (a partial update's patch) compared key by key, never the whole record.
    Returns the changes and the fields the change sets to the value they already have."""
    changes: list[dict[str, Any]] = []
    unchanged: list[str] = []
    pending = [
        (arg, field, values[arg]) for arg, field in compared.items() if arg in values
    ]
    while pending:  # bounded: every step goes one level into the (validated) arguments
        arg, field, after = pending.pop(0)
        before = in_agent_units((units or {}).get(arg), current, field)
        if isinstance(after, dict) and after and isinstance(before, dict | None):
            pending[:0] = [(f"{arg}.{k}", f"{field}.{k}", v) for k, v in after.items()]
        elif before == after and type(before) is type(after):
            unchanged.append(field)
        else:
            changes.append(_change(arg, field, before, after))
    return changes, unchanged


def _change(arg: str, field: str, before: Any, after: Any) -> dict[str, Any]:
    change: dict[str, Any] = {
        "parameter": arg,
        "field": field,
        "before": before,
        "after": after,
    }
    if _is_number(before) and _is_number(after):
        change["difference"] = after - before
        if before > 0:  # a percentage of zero or less says nothing
            change["difference_pct"] = round((after - before) / before * 100, 1)
    return change


def _impact(change: dict[str, Any]) -> str:
    """One line a person reads: `daily_budget: 100000 -> 110000 (+10%)`; a field the record lacks is
    "not set", and every value is JSON, cut short (never Python's None or a megabyte)."""
    before = "not set" if change["before"] is None else quoted(change["before"])
    after = "not set" if change["after"] is None else quoted(change["after"])
    what = f"{change['field']}: {before} -> {after}"
    if "difference_pct" in change:
        return f"{what} ({change['difference_pct']:+g}%)"
    return what


def _is_number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # a whole number past any float
        return False


def _utc(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
