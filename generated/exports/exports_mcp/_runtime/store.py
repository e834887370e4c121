"""Where previews live between `<tool>_preview` and `<tool>_apply` (S1 preview, then apply; S3 handles),
and the tasks that follow an API's jobs (tasks.py).

SQLite by default: one file, nothing to set up. With `MCP_STORE_URL=redis://host:port/0` previews
live in Redis, so several replicas of an HTTP server share them. `MCP_STORE_URL=sqlite:///path/file`
names another SQLite file. Either way, claiming a preview for apply is one atomic step
(pending -> applying, recording who claimed it and when), so one preview id causes at most one
upstream change however many applies arrive at once.

Preview ids, requestStates and task handles are signed with `MCP_SIGNING_KEY` when it is set (every
replica needs the same one), else with a key the store keeps: a store that loses its data (a Redis
without persistence, restarted) then loses the key too, and every id issued before stops verifying.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

import anyio.to_thread

from .errors import Recovery, ToolError

STORE_URL_ENV = "MCP_STORE_URL"
SIGNING_KEY_ENV = "MCP_SIGNING_KEY"
_MIN_KEY_CHARS = 32
# Records outlive their preview by a day, so a late second apply still gets the first result.
RETAIN_S = 86_400.0

# 'unknown': an apply timed out, so whether it took effect is not known; it is never sent again (E4 unknown outcome is not retry).
Status = Literal["pending", "applying", "done", "unknown"]
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True, kw_only=True)
class PreviewRecord:
    id: str
    tool: str
    # Who previewed it; '' when the transport has no caller identity (stdio).
    subject: str
    payload: dict[str, Any]  # the action and its arguments, exactly what apply sends
    expires_at: float  # epoch seconds
    status: Status = "pending"
    result: dict[str, Any] | None = None  # the first apply's result
    error: str = ""  # the last failed apply's message
    claimed_at: float = 0.0  # epoch seconds of the latest claim; 0 when never claimed
    owner: str = ""  # who made that claim (preview.OWNER of its process)


# A task's state as the Tasks extension names it (tasks.py); the last three are terminal.
TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskRecord:
    """A job the API runs for one call, followed by tasks/get from any replica sharing the store."""

    id: str
    tool: str
    subject: str  # who started it; '' without caller identity (stdio)
    job: dict[
        str, Any
    ]  # how to read its status: {"url": ...} or {"action": ..., "args": {...}}
    created_at: float  # epoch seconds
    expires_at: float
    status: TaskStatus = "working"
    message: str = ""
    result: dict[str, Any] | None = None  # the CallToolResult, once completed
    updated_at: float = 0.0


class PreviewStore(Protocol):
    async def signing_key(self) -> bytes: ...
    async def put(self, record: PreviewRecord) -> None: ...
    async def get(self, preview_id: str) -> PreviewRecord | None: ...
    async def claim(self, preview_id: str, now: float, owner: str) -> bool: ...
    # finish and release return False when the claim is not there to settle: its record is gone.
    async def finish(self, preview_id: str, result: dict[str, Any]) -> bool: ...
    async def release(
        self, preview_id: str, error: str, status: Status = "pending"
    ) -> bool: ...
    async def put_task(self, record: TaskRecord) -> None: ...
    async def get_task(self, task_id: str) -> TaskRecord | None: ...
    async def update_task(self, record: TaskRecord) -> None: ...
    # Small values kept until `expires_at` (epoch seconds): users' linked upstream tokens, encrypted
    # by their owner (oauth_user.py). `take_value` reads and removes in one step: one use only.
    async def put_value(self, name: str, value: str, expires_at: float) -> None: ...
    async def get_value(self, name: str) -> str | None: ...
    async def take_value(self, name: str) -> str | None: ...
    async def delete_value(self, name: str) -> None: ...
    # A lease on `name` for `seconds`, held by `owner`: True for exactly one owner at a time, across
    # every replica, until it is released or runs out (one refresh of a user's token at once).
    async def lease(self, name: str, owner: str, seconds: float) -> bool: ...
    async def release_lease(self, name: str, owner: str) -> None: ...


def open_store(package: str) -> PreviewStore:
    url = os.environ.get(STORE_URL_ENV, "").strip()
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisStore(url, prefix=f"{package}:previews")
    if url.startswith("sqlite:///"):
        return SqliteStore(Path(url.removeprefix("sqlite://")))
    if url:
        raise ToolError(
            f"{STORE_URL_ENV} is set to an address this server cannot use.",
            f"Ask the user to set {STORE_URL_ENV} to redis://host:port/db or sqlite:///path/to/file, "
            "or to unset it for the default SQLite file, and restart the server.",
            Recovery.NEEDS_HUMAN,
        )
    return SqliteStore(_default_sqlite_path(package))


class StoreUnavailable(ToolError):
    """The store could not be read or written: nothing this step should have recorded is recorded."""


def configured_signing_key() -> bytes | None:
    """The key `MCP_SIGNING_KEY` gives, or None when it is unset; a key too short to be secret is
    reported when a call needs it (E3 which kind of recovery)."""
    value = os.environ.get(SIGNING_KEY_ENV, "").strip()
    if not value:
        return None
    if len(value) < _MIN_KEY_CHARS:
        raise ToolError(
            f"{SIGNING_KEY_ENV} is set but shorter than {_MIN_KEY_CHARS} characters, too short to keep "
            "the ids this server hands out from being forged.",
            f"Ask the user to set {SIGNING_KEY_ENV} to a random value of at least {_MIN_KEY_CHARS} "
            "characters (openssl rand -hex 32), the same on every replica, and restart the server.",
            Recovery.NEEDS_HUMAN,
        )
    return value.encode()


def _unavailable(where: str, exc: Exception) -> ToolError:
    return StoreUnavailable(
        f"the preview store ({where}) is not available: {type(exc).__name__}.",
        f"Wait a few seconds and call again; if it keeps failing, ask the user to check {STORE_URL_ENV} "
        "and that the store is running and writable.",
        Recovery.RETRY_LATER,
    )


def _default_sqlite_path(package: str) -> Path:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / package / "previews.sqlite3"


class _SqliteValues:
    """SqliteStore's small values with an expiry (`PreviewStore.put_value`)."""

    _run: Callable[..., Any]

    async def put_value(self, name: str, value: str, expires_at: float) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM kept WHERE expires_at < ?", (time.time(),))
            db.execute(
                "INSERT OR REPLACE INTO kept (name, value, expires_at) VALUES (?, ?, ?)",
                (name, value, expires_at),
            )

        await self._run(work)

    async def get_value(self, name: str) -> str | None:
        def work(db: sqlite3.Connection) -> str | None:
            row = db.execute(
                "SELECT value FROM kept WHERE name = ? AND expires_at >= ?",
                (name, time.time()),
            ).fetchone()
            return str(row[0]) if row else None

        found: str | None = await self._run(work)
        return found

    async def take_value(self, name: str) -> str | None:
        def work(db: sqlite3.Connection) -> str | None:
            row = db.execute(
                "DELETE FROM kept WHERE name = ? RETURNING value, expires_at", (name,)
            ).fetchone()
            return str(row[0]) if row and row[1] >= time.time() else None

        found: str | None = await self._run(work)
        return found

    async def delete_value(self, name: str) -> None:
        await self._run(
            lambda db: db.execute("DELETE FROM kept WHERE name = ?", (name,))
        )

    async def lease(self, name: str, owner: str, seconds: float) -> bool:
        # One statement: inserted when absent, taken over when expired, else left (rowcount 0).
        def work(db: sqlite3.Connection) -> int:
            now = time.time()
            return int(
                db.execute(
                    "INSERT INTO kept (name, value, expires_at) VALUES (?, ?, ?) "
                    "ON CONFLICT (name) DO UPDATE SET value = excluded.value, "
                    "expires_at = excluded.expires_at WHERE kept.expires_at < ?",
                    (f"lease:{name}", owner, now + seconds, now),
                ).rowcount
            )

        taken: int = await self._run(work)
        return taken == 1

    async def release_lease(self, name: str, owner: str) -> None:
        await self._run(
            lambda db: db.execute(
                "DELETE FROM kept WHERE name = ? AND value = ?",
                (f"lease:{name}", owner),
            )
        )


class SqliteStore(_SqliteValues):
    """Every operation opens its own connection in a worker thread; SQLite's locks make claim atomic
    across threads and processes sharing the file."""

    def __init__(self, path: Path):
        self.path = path
        self._ready = False
        # The directory is made once: one that goes away later (an unmounted disk) is not made
        # again, so no second, empty store appears in its place.
        self._opened = False

    def _connect(self) -> sqlite3.Connection:
        if not self._opened:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._opened = True
        connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        if not self._ready:
            # Idempotent, so two first calls at once are fine.
            connection.executescript(_SCHEMA)
            _add_missing_columns(connection)
            self._ready = True
        return connection

    async def _run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        def in_thread() -> _T:
            connection = self._connect()
            try:
                return work(connection)
            finally:
                connection.close()

        try:
            return await anyio.to_thread.run_sync(in_thread)
        except (sqlite3.Error, OSError) as exc:
            # A file that comes back empty gets its tables again (idempotent).
            self._ready = False
            raise _unavailable(str(self.path), exc) from None

    async def signing_key(self) -> bytes:
        configured = configured_signing_key()
        if configured is not None:
            return configured

        def work(db: sqlite3.Connection) -> bytes:
            db.execute(
                "INSERT OR IGNORE INTO settings (name, value) VALUES ('signing_key', ?)",
                (secrets.token_hex(32),),
            )
            (value,) = db.execute(
                "SELECT value FROM settings WHERE name = 'signing_key'"
            ).fetchone()
            return bytes.fromhex(value)

        return await self._run(work)

    async def put(self, record: PreviewRecord) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "DELETE FROM previews WHERE expires_at < ?", (time.time() - RETAIN_S,)
            )
            db.execute(
                "INSERT INTO previews (id, tool, subject, payload, expires_at, status, result, error) "
                "VALUES (?, ?, ?, ?, ?, 'pending', NULL, '')",
                (
                    record.id,
                    record.tool,
                    record.subject,
                    json.dumps(record.payload),
                    record.expires_at,
                ),
            )

        await self._run(work)

    async def get(self, preview_id: str) -> PreviewRecord | None:
        def work(db: sqlite3.Connection) -> PreviewRecord | None:
            row = db.execute(
                "SELECT id, tool, subject, payload, expires_at, status, result, error, claimed_at, owner "
                "FROM previews WHERE id = ?",
                (preview_id,),
            ).fetchone()
            if row is None:
                return None
            return PreviewRecord(
                id=row[0],
                tool=row[1],
                subject=row[2],
                payload=json.loads(row[3]),
                expires_at=row[4],
                status=row[5],
                result=json.loads(row[6]) if row[6] else None,
                error=row[7],
                claimed_at=row[8],
                owner=row[9],
            )

        return await self._run(work)

    async def claim(self, preview_id: str, now: float, owner: str) -> bool:
        # One UPDATE guarded by status: exactly one caller sees rowcount 1.
        claimed = await self._run(
            lambda db: (
                db.execute(
                    "UPDATE previews SET status = 'applying', claimed_at = ?, owner = ? "
                    "WHERE id = ? AND status = 'pending' AND expires_at > ?",
                    (now, owner, preview_id, now),
                ).rowcount
            )
        )
        return claimed == 1

    async def finish(self, preview_id: str, result: dict[str, Any]) -> bool:
        settled = await self._run(
            lambda db: (
                db.execute(
                    "UPDATE previews SET status = 'done', result = ? WHERE id = ? AND status = 'applying'",
                    (json.dumps(result), preview_id),
                ).rowcount
            )
        )
        return settled == 1

    async def release(
        self, preview_id: str, error: str, status: Status = "pending"
    ) -> bool:
        settled = await self._run(
            lambda db: (
                db.execute(
                    "UPDATE previews SET status = ?, error = ? WHERE id = ? AND status = 'applying'",
                    (status, error, preview_id),
                ).rowcount
            )
        )
        return settled == 1

    async def put_task(self, record: TaskRecord) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "DELETE FROM tasks WHERE json_extract(body, '$.expires_at') < ?",
                (time.time(),),
            )
            db.execute(
                "INSERT INTO tasks (id, body) VALUES (?, ?)",
                (record.id, json.dumps(_task_fields(record))),
            )

        await self._run(work)

    async def get_task(self, task_id: str) -> TaskRecord | None:
        def work(db: sqlite3.Connection) -> TaskRecord | None:
            row = db.execute(
                "SELECT body FROM tasks WHERE id = ?", (task_id,)
            ).fetchone()
            return _task_record(task_id, json.loads(row[0])) if row else None

        return await self._run(work)

    async def update_task(self, record: TaskRecord) -> None:
        # A terminal state is never overwritten: the first replica to see the end records it.
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "UPDATE tasks SET body = ? WHERE id = ? AND json_extract(body, '$.status') "
                "NOT IN ('completed', 'failed', 'cancelled')",
                (json.dumps(_task_fields(record)), record.id),
            )

        await self._run(work)


def _task_fields(record: TaskRecord) -> dict[str, Any]:
    # Every field but the id, which is the row's key: derived, so a new field is stored without a second list.
    return {
        field.name: getattr(record, field.name)
        for field in dataclasses.fields(record)
        if field.name != "id"
    }


def _task_record(task_id: str, fields: dict[str, Any]) -> TaskRecord:
    return TaskRecord(id=task_id, **fields)


def _add_missing_columns(db: sqlite3.Connection) -> None:
    present = {row[1] for row in db.execute("PRAGMA table_info(previews)")}
    for name, declaration in _ADDED_COLUMNS.items():
        if name not in present:
            try:
                db.execute(f"ALTER TABLE previews ADD COLUMN {name} {declaration}")
            except sqlite3.OperationalError as exc:  # another process added it just now
                if "duplicate column" not in str(exc):
                    raise


_SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS previews (
    id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    subject TEXT NOT NULL,
    payload TEXT NOT NULL,
    expires_at REAL NOT NULL,
    status TEXT NOT NULL,
    result TEXT,
    error TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS kept (name TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at REAL NOT NULL);
"""
# Columns added after the first release: every file gets them here, older ones included.
_ADDED_COLUMNS = {
    "claimed_at": "REAL NOT NULL DEFAULT 0",
    "owner": "TEXT NOT NULL DEFAULT ''",
}

# pending -> applying only when the preview has not expired, recording when and by whom.
_CLAIM_SCRIPT = """
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'status', 'applying', 'claimed_at', ARGV[1], 'owner', ARGV[2])
return 1
"""

# Only the apply holding the claim may finish or release it.
_SETTLE_SCRIPT = """
if redis.call('HGET', KEYS[1], 'status') ~= 'applying' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], ARGV[2], ARGV[3])
return 1
"""


# A lease is released only by its holder: one that ran out and was taken over is the new holder's.
_RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


# A task's record is replaced only while it is not terminal (as SqliteStore.update_task).
_UPDATE_TASK_SCRIPT = """
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local status = cjson.decode(current)['status']
if status == 'completed' or status == 'failed' or status == 'cancelled' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EXAT', ARGV[2])
return 1
"""


class RedisStore:
    def __init__(self, url: str, prefix: str):
        try:
            import redis.asyncio as redis_asyncio
        except ModuleNotFoundError:
            raise ToolError(
                f"{STORE_URL_ENV} names a Redis server, but the redis client package is not installed.",
                "Ask the user to install this server with its redis extra (pip install '<package>[redis]') "
                "and restart it.",
                Recovery.NEEDS_HUMAN,
            ) from None
        from redis.exceptions import RedisError

        self._errors = (RedisError, OSError)
        # A store that stops answering fails the step in seconds, as one that refuses does.
        self._redis = redis_asyncio.from_url(
            url, decode_responses=True, socket_timeout=10, socket_connect_timeout=5
        )
        self._prefix = prefix
        self._claim = self._redis.register_script(_CLAIM_SCRIPT)
        self._settle = self._redis.register_script(_SETTLE_SCRIPT)
        self._update_task = self._redis.register_script(_UPDATE_TASK_SCRIPT)
        self._release = self._redis.register_script(_RELEASE_SCRIPT)

    def _key(self, preview_id: str) -> str:
        return f"{self._prefix}:{preview_id}"

    async def _guarded(self, work: Any) -> Any:
        try:
            return await work
        except self._errors as exc:
            raise _unavailable("Redis", exc) from None

    async def signing_key(self) -> bytes:
        configured = configured_signing_key()
        if configured is not None:
            return configured
        key: bytes = await self._guarded(self._signing_key())
        return key

    async def _signing_key(self) -> bytes:
        key = f"{self._prefix}:signing_key"
        await self._redis.set(key, secrets.token_hex(32), nx=True)
        return bytes.fromhex(str(await self._redis.get(key)))  # set just above

    async def put(self, record: PreviewRecord) -> None:
        await self._guarded(self._put(record))

    async def _put(self, record: PreviewRecord) -> None:
        key = self._key(record.id)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(
                key,
                mapping={
                    "tool": record.tool,
                    "subject": record.subject,
                    "payload": json.dumps(record.payload),
                    "expires_at": repr(record.expires_at),
                    "status": "pending",
                    "error": "",
                },
            )
            pipe.expireat(key, int(record.expires_at + RETAIN_S))
            await pipe.execute()

    async def get(self, preview_id: str) -> PreviewRecord | None:
        found = await self._guarded(self._redis.hgetall(self._key(preview_id)))
        if not found:
            return None
        return PreviewRecord(
            id=preview_id,
            tool=found["tool"],
            subject=found["subject"],
            payload=json.loads(found["payload"]),
            expires_at=float(found["expires_at"]),
            status=found["status"],
            result=json.loads(found["result"]) if found.get("result") else None,
            error=found.get("error", ""),
            claimed_at=float(found.get("claimed_at", 0)),
            owner=found.get("owner", ""),
        )

    async def claim(self, preview_id: str, now: float, owner: str) -> bool:
        claimed = await self._guarded(
            self._claim(keys=[self._key(preview_id)], args=[repr(now), owner])
        )
        return bool(claimed == 1)

    async def finish(self, preview_id: str, result: dict[str, Any]) -> bool:
        settled = await self._guarded(
            self._settle(
                keys=[self._key(preview_id)],
                args=["done", "result", json.dumps(result)],
            )
        )
        return bool(settled == 1)

    async def release(
        self, preview_id: str, error: str, status: Status = "pending"
    ) -> bool:
        settled = await self._guarded(
            self._settle(keys=[self._key(preview_id)], args=[status, "error", error])
        )
        return bool(settled == 1)

    def _task_key(self, task_id: str) -> str:
        return f"{self._prefix}:task:{task_id}"

    async def put_task(self, record: TaskRecord) -> None:
        await self._guarded(
            self._redis.set(
                self._task_key(record.id),
                json.dumps(_task_fields(record)),
                exat=int(record.expires_at),
            )
        )

    async def get_task(self, task_id: str) -> TaskRecord | None:
        found = await self._guarded(self._redis.get(self._task_key(task_id)))
        return _task_record(task_id, json.loads(found)) if found else None

    async def update_task(self, record: TaskRecord) -> None:
        await self._guarded(
            self._update_task(
                keys=[self._task_key(record.id)],
                args=[json.dumps(_task_fields(record)), int(record.expires_at)],
            )
        )

    def _value_key(self, name: str) -> str:
        return f"{self._prefix}:kept:{name}"

    async def put_value(self, name: str, value: str, expires_at: float) -> None:
        await self._guarded(
            self._redis.set(self._value_key(name), value, exat=int(expires_at) + 1)
        )

    async def get_value(self, name: str) -> str | None:
        found = await self._guarded(self._redis.get(self._value_key(name)))
        return str(found) if found is not None else None

    async def take_value(self, name: str) -> str | None:
        found = await self._guarded(self._redis.getdel(self._value_key(name)))
        return str(found) if found is not None else None

    async def delete_value(self, name: str) -> None:
        await self._guarded(self._redis.delete(self._value_key(name)))

    async def lease(self, name: str, owner: str, seconds: float) -> bool:
        key = self._value_key(f"lease:{name}")
        taken = await self._guarded(
            self._redis.set(key, owner, nx=True, px=max(1, int(seconds * 1000)))
        )
        return bool(taken)

    async def release_lease(self, name: str, owner: str) -> None:
        key = self._value_key(f"lease:{name}")
        await self._guarded(self._release(keys=[key], args=[owner]))
