"""How far a long calculation has got, told to whoever shows it while it works.

A request is data (typed fields from a form or the command line) and cannot carry a
function: the web layer sets `reporter` for the duration of one call (rules_core.web's
`handle_json`) and a calculator that works in steps (the fight, round by round) hands it
to its mechanics. Unset, as on the command line, nothing is told.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

__all__ = ["Progress", "reporter"]

# Called with (steps done, steps in all); it only observes, the answer is the same without.
type Progress = Callable[[int, int], None]

reporter: ContextVar[Progress | None] = ContextVar("reporter", default=None)
