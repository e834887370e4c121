"""Tool errors are results the model can act on (E1 tool errors are results): what went wrong, and which kind of recovery fits (E3 which kind of recovery)."""

from __future__ import annotations

import enum
import json
import traceback
from pathlib import Path
from typing import Any

# The most of one value an error message repeats: enough to find the mistake, never megabytes (E2 what, why, how).
MAX_QUOTED = 200
# The generated package: frames in it are named relative to it, others by file name only.
_PACKAGE = Path(__file__).resolve().parent.parent


class Recovery(enum.Enum):
    FIX_INPUT = "fix the input"
    RETRY_LATER = "wait and retry"
    NEEDS_PERMISSION = "needs credentials or permission"
    NEEDS_HUMAN = "needs a human"
    CHECK_OUTCOME = "check the outcome before doing anything else"


class ToolError(Exception):
    """Raised anywhere in a call; the server turns it into an `isError: true` result."""

    def __init__(self, what: str, how: str, recovery: Recovery):
        super().__init__(what)
        self.what = what
        self.how = how
        self.recovery = recovery

    def text(self) -> str:
        return f"Error: {self.what}\nNext step ({self.recovery.value}): {self.how}"


def quoted(value: Any) -> str:
    """A value from the agent as JSON, cut after MAX_QUOTED characters with its full length said."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= MAX_QUOTED:
        return text
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[:MAX_QUOTED]}... ({size} characters in all)"


def unexpected(exc: Exception, tool: str, action: Any) -> ToolError:
    """A failure the server did not foresee, named by its type only: no trace, no values (E5 no internals)."""
    during = f" while running action {quoted(action)}" if action is not None else ""
    return ToolError(
        f"{tool} failed unexpectedly{during} ({type(exc).__name__}).",
        "This needs a human: tell the user; the server's log (stderr) shows when and where it happened. "
        "Calling again will likely fail the same way.",
        Recovery.NEEDS_HUMAN,
    )


def origin(exc: BaseException) -> str:
    """Where an exception was raised, for the log: `file:line` of the innermost frame and of the
    innermost one in this package. Never its message, which may hold values or secrets (E5 no internals)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "an unknown place"
    own = [f for f in frames if Path(f.filename).resolve().is_relative_to(_PACKAGE)]
    where = _place(frames[-1])
    if own and own[-1] is not frames[-1]:
        where += f", called from {_place(own[-1])}"
    return where


def _place(frame: traceback.FrameSummary) -> str:
    path = Path(frame.filename).resolve()
    shown = path.relative_to(_PACKAGE) if path.is_relative_to(_PACKAGE) else path.name
    return f"{Path(shown).as_posix()}:{frame.lineno}"
