"""Tool errors are results the model can act on (E1): what went wrong, and which kind of recovery fits (E3)."""

from __future__ import annotations

import enum
from typing import Any


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


def unexpected(exc: Exception, tool: str, action: Any) -> ToolError:
    """A failure the server did not foresee, named by its type only: no trace, no values (E5)."""
    return ToolError(
        f"{tool} failed unexpectedly while running action {action!r} ({type(exc).__name__}).",
        "This needs a human: tell the user; the server's log (stderr) shows when it happened. "
        "Calling again will likely fail the same way.",
        Recovery.NEEDS_HUMAN,
    )
