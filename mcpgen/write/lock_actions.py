"""The few members of a tools.lock.json that regenerating reads again: per action, its name, method,
path, operationId and the names of its parameters.

GitHub's lock is 7 MB. Parsed whole, it became some 27 MB of objects, three times in a `generate`
over an earlier package (for the previous operationIds, and for hooks from both locks) while the
spec, the server and the rendered package were all still held. msgspec reads only these members,
into a few small records, and skips the rest of the text in C (7 ms where orjson took 27, 2 MB of
memory where it took 27). A file that is not the writer's shape (edited by hand, older, not JSON)
gives None: the caller then reads it the lenient way, member by member.
"""

from __future__ import annotations

import msgspec


class LockParam(msgspec.Struct, frozen=True):
    arg: str
    wire: str | None
    location: str = msgspec.field(name="in")


class LockAction(msgspec.Struct, frozen=True):
    name: str
    method: str
    path: str
    operationId: str | None  # noqa: N815 (the lock's own spelling)
    params: list[LockParam]


class LockTool(msgspec.Struct, frozen=True):
    name: str
    actions: list[LockAction]


class LockServer(msgspec.Struct, frozen=True):
    name: str


class LockActions(msgspec.Struct, frozen=True):
    server: LockServer
    tools: list[LockTool]


_DECODER = msgspec.json.Decoder(LockActions)


def read_lock_actions(text: bytes | str) -> LockActions | None:
    """The lock's actions, or None when the text is not a lock of the shape mcpgen writes."""
    try:
        return _DECODER.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
