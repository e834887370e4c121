"""One piece of work run in a forked child while the caller does its own: `mcpgen diff` builds the two
sides of a SPEC::MAPPING pair at once, on two cores, instead of one after the other.

A fork inherits the loaded inputs as they are (nothing is pickled on the way in); only the result comes
back, pickled through a pipe. When the child cannot give it (no fork on this platform, one core, the
work raised, the child died), `result` returns None and the caller does the work itself, so any error
is met the ordinary way, in the caller's process, with its ordinary message.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Generic, TypeVar

T = TypeVar("T")


def can_fork_work() -> bool:
    """Linux only (macOS's system libraries are not safe to use in a forked child), with a second core
    this process may use (its affinity, not what the machine has)."""
    return (
        sys.platform == "linux"
        and "fork" in multiprocessing.get_all_start_methods()
        and len(os.sched_getaffinity(0)) > 1
    )


class Beside(Generic[T]):
    """`work` started in a forked child at once; `result()` waits for it."""

    def __init__(self, work: Callable[[], T]) -> None:
        context = multiprocessing.get_context("fork")
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(target=_run, args=(work, send), daemon=True)
        self._process.start()
        send.close()  # the child's end: the parent holds only its own, so a dead child reads as EOF

    def result(self) -> T | None:
        try:
            payload = self._receive.recv_bytes()
        except EOFError:  # the work raised or the child died: the caller does it again itself
            return None
        finally:
            self._receive.close()
            self._process.join()
        value: T = pickle.loads(payload)  # noqa: S301 - from our own forked child, over our own pipe
        return value

    def cancel(self) -> None:
        """Stops the child when the caller gives up (an error of the other side, Ctrl-C)."""
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self._receive.close()


def _run(work: Callable[[], object], send: Connection) -> None:
    with send:
        try:
            payload = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:  # noqa: BLE001 - not swallowed: the parent redoes the work and meets it itself
            return  # closed unsent: the parent reads EOF
        send.send_bytes(payload)
