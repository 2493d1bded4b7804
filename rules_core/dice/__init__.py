"""Dice: exact distributions, dice expressions, and rolling.

A `Distribution` is a table of integer counts over a contiguous range of values:
``offset`` is the smallest value, ``counts[i]`` is the number of equally likely
outcomes that give ``offset + i`` and ``total`` is their sum.  Probabilities are
``Fraction(count, total)``.  Everything is exact integer arithmetic: no floats and
no simulation.

How the counts are computed (all pure Python, standard library only):

* Sums of dice.  The sum of ``n`` dice with ``s`` sides has the counts of the
  polynomial ``(1 + x + ... + x^(s-1))^n``.  For small and medium tables it is
  computed by Kronecker substitution: the polynomial is packed into one big
  integer with a fixed number of bytes per coefficient (enough for the largest
  count), raised to the ``n``-th power with Python's big-integer arithmetic and
  unpacked with ``int.to_bytes`` slices (or ``memoryview.cast`` for 1, 2, 4 or
  8-byte slots).  For large tables it uses ``(1 - x^s)^n / (1 - x)^n`` instead:
  the sparse numerator, then ``n`` prefix sums (``itertools.accumulate``) over the
  first half of the table, mirrored (the table is symmetric).  A cost estimate
  picks the faster of the two.  Several kinds of dice are summed together the
  same way.
* Keep highest / lowest ``k`` of ``n`` dice.  Condition on ``t``, the value of the
  ``k``-th highest die, and on ``a``, the number of dice above it: the kept total is
  ``k*t`` plus the sum of ``a`` dice uniform on ``1..s-t``, with a binomial weight
  for the arrangements.  Writing ``1 + ... + x^(m-1)`` as ``(1 - x^m) / (1 - x)``
  turns the whole table into ``sum_a P_a(x) / (1 - x)^a`` with sparse ``P_a``; it
  is evaluated by Horner's rule where dividing by ``1 - x`` is a prefix sum.  The
  work is about ``s*k`` small steps plus ``k`` passes over the table, never an
  enumeration of the ``s^n`` rolls.  Keep lowest is keep highest reflected.
* Sums of different distributions are Kronecker products of packed integers.

Bounds: the module constants MAX_TEXT_LENGTH, MAX_TERMS, MAX_DICE, MAX_SIDES,
MAX_KEEP_DICE, MAX_CONSTANT, MAX_LEVEL, MAX_TABLE_BITS, MAX_COMBINED_TABLE_BITS,
MAX_WORK_BITS and MAX_SPAN, each described in `limits` where it is defined (with examples
that tests/test_dice.py checks against the code).  ``DiceError`` is raised before any
heavy work.  benchmarks/bench_dice.py measures the time at the bounds.
"""

from rules_core.dice.distribution import Distribution, keep
from rules_core.dice.expressions import Expression, Term
from rules_core.dice.limits import (
    MAX_COMBINED_TABLE_BITS,
    MAX_CONSTANT,
    MAX_DICE,
    MAX_KEEP_DICE,
    MAX_LEVEL,
    MAX_SIDES,
    MAX_SPAN,
    MAX_TABLE_BITS,
    MAX_TERMS,
    MAX_TEXT_LENGTH,
    MAX_WORK_BITS,
    NOTATIONS,
    DiceError,
    NotationError,
)
from rules_core.dice.parsing import parse
from rules_core.dice.rolling import roll

__all__ = [
    "MAX_COMBINED_TABLE_BITS",
    "MAX_CONSTANT",
    "MAX_DICE",
    "MAX_KEEP_DICE",
    "MAX_LEVEL",
    "MAX_SIDES",
    "MAX_SPAN",
    "MAX_TABLE_BITS",
    "MAX_TERMS",
    "MAX_TEXT_LENGTH",
    "MAX_WORK_BITS",
    "NOTATIONS",
    "DiceError",
    "Distribution",
    "Expression",
    "NotationError",
    "Term",
    "keep",
    "parse",
    "roll",
]
