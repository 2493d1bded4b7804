"""The bounds every dice expression and table is held to, and the errors that say so."""

from __future__ import annotations

# ------------------------------------------------------------------------ bounds

MAX_TEXT_LENGTH = 200
"""Characters in a dice expression."""
MAX_TERMS = 20
"""Numbers and dice groups in one expression."""
MAX_DICE = 200
"""Dice in one expression, all groups together (after ``x N`` / ``x Level``)."""
MAX_SIDES = 1000
"""Sides of one die (a die has 1 to MAX_SIDES sides; d1 is a valid die)."""
MAX_KEEP_DICE = 40
"""Dice in one group that keeps some of them (``NdXkhK``)."""
MAX_CONSTANT = 10**6
"""Absolute value of a number in an expression."""
MAX_LEVEL = 100
"""Highest level accepted for ``x Level``."""
MAX_TABLE_BITS = 150_000
"""Size of an expression's exact table: (possible totals) x (bits of the number of
rolls).  This is what the time depends on; it is set so that a calculator page answers
within about 100 ms in the browser's Python at the bound (about 10 ms in CPython).  For
example 100d6 (129,759) and 40d12 (63,504) are within it, 200d6 (517,517) is not."""
MAX_COMBINED_TABLE_BITS = 75_000
"""The same measure when the expression's table is a product of several tables: a
group that keeps dice combined with other dice (``4d6kh3+1d4``, ``4d6kh3+4d6kh3``).
Those are multiplied as big integers, which costs more than summing plain dice."""
MAX_WORK_BITS = 4 * MAX_TABLE_BITS
"""The same measure for the result of one `Distribution` operation (``+``,
``repeat_sum``, ``keep``, ...), which may combine several expressions."""
MAX_SPAN = 1_000_000
"""Values between the smallest and largest value of one `Distribution`."""


class DiceError(ValueError):
    """A dice expression or operation that is refused.

    The message is one sentence meant for the user, naming what is wrong.
    """


NOTATIONS = {
    "weapon-dice": "weapon dice (dW, [W])",
    "per-level": "a die times a count ('X x Level', d8 x Level, d8 x 3)",
    "multiply-die": "a rolled total times a number ('Multiply a Die', 10 x 1d6, 2d8 x 10)",
}
"""The notations beyond plain dice that a system's text may define, by name."""


class NotationError(DiceError):
    """An expression uses a notation that the caller's set of notations leaves out."""

    def __init__(self, notation: str, written: str) -> None:
        super().__init__(
            f"{written!r} is written in a notation not allowed here: {NOTATIONS[notation]}."
        )
        self.notation = notation
        self.written = written
