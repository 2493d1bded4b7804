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
MAX_WORK_BITS and MAX_SPAN, each described where it is defined below (with examples
that tests/test_dice.py checks against the code).  ``DiceError`` is raised before any
heavy work.  benchmarks/bench_dice.py measures the time at the bounds.
"""

from __future__ import annotations

import heapq
import math
import re
import sys
from array import array
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import accumulate, repeat
from operator import add, mul
from random import Random

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


# ----------------------------------------------------------- packed polynomials

_LITTLE_ENDIAN = sys.byteorder == "little"
# Slot sizes that memoryview.cast / array can read in one C call (native order).
_WORD_CODES: dict[int, str] = {}
if _LITTLE_ENDIAN:
    for _code in "BHIQ":
        _WORD_CODES.setdefault(array(_code).itemsize, _code)


def _slot_bytes(bound: int) -> int:
    """Bytes per packed coefficient so that every count up to ``bound`` fits."""
    size = max(1, (bound.bit_length() + 7) // 8)
    if size <= 8 and _WORD_CODES:
        for word in (1, 2, 4, 8):
            if size <= word and word in _WORD_CODES:
                return word
    return size


def _pack(counts: Sequence[int], size: int) -> int:
    """The integer sum(counts[i] << (8 * size * i)); each count must fit in a slot."""
    code = _WORD_CODES.get(size)
    if code is not None:
        return int.from_bytes(array(code, counts).tobytes(), "little")
    data = b"".join(map(int.to_bytes, counts, repeat(size), repeat("little")))
    return int.from_bytes(data, "little")


def _unpack(value: int, length: int, size: int) -> list[int]:
    """The ``length`` slots of a packed integer (the inverse of `_pack`)."""
    data = value.to_bytes(length * size, "little")
    code = _WORD_CODES.get(size)
    if code is not None:
        return memoryview(data).cast(code).tolist()
    from_bytes = int.from_bytes
    return [from_bytes(data[i : i + size], "little") for i in range(0, length * size, size)]


def _ones(length: int, size: int) -> int:
    """The packed polynomial 1 + x + ... + x^(length-1)."""
    return int.from_bytes((b"\x01" + bytes(size - 1)) * length, "little")


def _product(values: list[int]) -> int:
    """Product of integers, multiplying the two smallest first (balanced sizes)."""
    if len(values) == 1:
        return values[0]
    heap = [(value.bit_length(), index, value) for index, value in enumerate(values)]
    heapq.heapify(heap)
    index = len(values)
    while len(heap) > 1:
        _, _, first = heapq.heappop(heap)
        _, _, second = heapq.heappop(heap)
        value = first * second
        heapq.heappush(heap, (value.bit_length(), index, value))
        index += 1
    return heap[0][2]


def _check_work(length: int, bound: int, what: str) -> None:
    """Refuse a table of ``length`` counts up to ``bound`` that is too large."""
    if length > MAX_SPAN:
        raise DiceError(
            f"Too large to compute exactly: {what} would span {length:,} values "
            f"(at most {MAX_SPAN:,})."
        )
    bits = max(1, bound.bit_length())
    if length * bits > MAX_WORK_BITS:
        raise DiceError(
            f"Too large to compute exactly: {what} would need {length:,} counts of up to "
            f"{bits:,} bits (at most {MAX_WORK_BITS:,} bits in all)."
        )


# ----------------------------------------------------------------- dice sums


def _kronecker_is_faster(length: int, size: int, dice: int) -> bool:
    """Whether `pow` on packed integers beats prefix sums for a sum of ``dice`` dice.

    Costs in nanoseconds fitted on CPython 3.13 measurements (integer arithmetic):
    Karatsuba on the packed table grows like bits**1.5 here; the prefix-sum method
    does ``dice`` passes of big-integer additions over half the table.
    """
    bits = length * size * 8
    kronecker = 2000 + bits * math.isqrt(bits) * 38 // 1000
    prefix = dice * (800 + (length + 1) // 2 * (45 + size * 4 // 10))
    return kronecker <= prefix


def _dice_sum_counts(dice: Sequence[tuple[int, int]]) -> list[int]:
    """Counts of the sum of dice given as (sides, number) pairs, offset = all the dice.

    Sides and numbers are at least 1.  The table is symmetric.
    """
    dice = [(sides, number) for sides, number in dice if sides > 1]
    if not dice:
        return [1]
    if len(dice) == 1 and dice[0][1] == 1:
        return [1] * dice[0][0]
    length = 1 + sum(number * (sides - 1) for sides, number in dice)
    number_of_dice = sum(number for _, number in dice)
    total = math.prod(sides**number for sides, number in dice)
    # A count is at most max(coefficients of one die) * (rolls of all the others).
    size = _slot_bytes(total // max(sides for sides, _ in dice))
    if _kronecker_is_faster(length, size, number_of_dice):
        packed = _product([_ones(sides, size) ** number for sides, number in dice])
        return _unpack(packed, length, size)
    return _dice_sum_by_prefix_sums(dice, length, number_of_dice)


def _dice_sum_by_prefix_sums(
    dice: Sequence[tuple[int, int]], length: int, number: int
) -> list[int]:
    """prod (1 - x^s)^n / (1 - x)^N as power series mod x^half, then mirrored."""
    half = (length + 1) // 2
    row = [0] * half
    row[0] = 1
    for sides, count in dice:
        if sides >= half:
            continue  # (1 - x^s)^n is 1 modulo x^half
        new = row[:]
        coefficient = 1
        for j in range(1, count + 1):
            shift = j * sides
            if shift >= half:
                break
            coefficient = coefficient * (count - j + 1) // j
            signed = -coefficient if j & 1 else coefficient
            new[shift:] = map(add, new[shift:], map(mul, row[: half - shift], repeat(signed)))
        row = new
    for _ in range(number):
        row = list(accumulate(row))
    if length % 2:
        return row + row[-2::-1]
    return row + row[::-1]


# ----------------------------------------------------------------------- keep


def _keep_highest_counts(n: int, s: int, k: int) -> list[int]:
    """Counts of the sum of the highest ``k`` of ``n`` dice with ``s`` sides (1 < k < n).

    The offset is ``k``.  Let ``t`` be the value of the k-th highest die and ``a < k``
    the number of dice above it.  Then the kept total is ``k*t + a`` plus the sum of
    ``a`` dice uniform on ``0..m-1`` (``m = s - t``), and the number of such rolls is
    ``c_a(t) = C(n, a) * sum_{j <= n-k} C(n-a, j) (t-1)^j`` times the counts of that
    sum (``j`` dice below ``t``, the others equal to it).  With
    ``1 + ... + x^(m-1) = (1 - x^m) / (1 - x)`` the table is ``sum_a P_a / (1 - x)^a``,
    where ``P_a = sum_t c_a(t) x^(k(t-1)+a) (1 - x^m)^a`` is sparse: expanding
    ``(1 - x^m)^a`` term by term, the coefficient ``(-1)^i C(a, i) c_a(t)`` lands at
    ``a + i(s-1) + (t-1)(k-i)``, a strided slice over ``t``.  Horner's rule in
    ``1 / (1 - x)`` then needs only prefix sums.  All of it is modulo ``x^length``,
    which is exact since the table is a polynomial of degree ``length - 1``.
    """
    length = k * (s - 1) + 1
    below = n - k + 1  # j = 0 .. n-k dice below t
    direct = [below <= k - a for a in range(k)]  # else use t^(n-a) minus the rest
    # columns[j][t-1] = (t-1)^j for t = 1..s
    top = n if not all(direct) else below - 1
    columns = [[1] * s]
    for _ in range(top):
        columns.append(list(map(mul, columns[-1], range(s))))
    # pieces[a]: the strided slices of P_a, added onto the running Horner sum.
    pieces: list[list[tuple[slice, list[int]]]] = []
    for a in range(k):
        if direct[a]:
            terms = range(below)
            weights = [0] * s
        else:
            terms = range(below, n - a + 1)
            weights = [*columns[n - a][1:], s ** (n - a)]  # t^(n-a)
        for j in terms:
            factor = math.comb(n - a, j)
            if not direct[a]:
                factor = -factor
            weights = list(map(add, weights, map(mul, columns[j], repeat(factor))))
        choose = math.comb(n, a)
        if choose != 1:
            weights = list(map(mul, weights, repeat(choose)))
        slices = []
        for i in range(a + 1):
            start = a + i * (s - 1)
            stride = k - i
            if start >= length:
                break
            steps = min(s, (length - 1 - start) // stride + 1)
            window = slice(start, start + (steps - 1) * stride + 1, stride)
            coefficient = (-1) ** i * math.comb(a, i)
            values = weights[:steps]
            if coefficient != 1:
                values = list(map(mul, values, repeat(coefficient)))
            slices.append((window, values))
        pieces.append(slices)
    result = [0] * length
    for a in range(k - 1, -1, -1):
        if a < k - 1:
            result = list(accumulate(result))
        for window, values in pieces[a]:
            result[window] = map(add, result[window], values)
    return result


def keep(n: int, sides: int, keep: int, highest: bool) -> Distribution:
    """The sum of the highest (or lowest) ``keep`` of ``n`` dice with ``sides`` sides.

    Exact; the work grows with sides * keep and the table size, not with sides**n.
    At most MAX_KEEP_DICE dice and MAX_SIDES sides.
    """
    for name, value in (("number of dice", n), ("sides", sides), ("number to keep", keep)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise DiceError(f"The {name} must be a whole number, not {value!r}.")
    if n < 1 or sides < 1:
        raise DiceError(f"Cannot roll {n}d{sides}: a group needs at least one die of one side.")
    if not 1 <= keep <= n:
        raise DiceError(f"Cannot keep {keep} of {n}d{sides}: keep from 1 to {n} dice.")
    if n > MAX_KEEP_DICE:
        raise DiceError(
            f"Too many dice to keep from: {n}d{sides} (at most {MAX_KEEP_DICE} dice in a "
            "group with keep)."
        )
    if sides > MAX_SIDES:
        raise DiceError(f"Too many sides: d{sides} (at most d{MAX_SIDES}).")
    total = sides**n
    length = keep * (sides - 1) + 1
    _check_work(length, total, f"{n}d{sides} keeping {keep}")
    if sides == 1:
        counts = [1]
    elif keep == n:
        counts = _dice_sum_counts([(sides, n)])
    elif keep == 1:
        counts = [v**n - (v - 1) ** n for v in range(1, sides + 1)]
    else:
        counts = _keep_highest_counts(n, sides, keep)
    if not highest:
        counts.reverse()
    return Distribution._make(keep, tuple(counts), total)


# ---------------------------------------------------------------- distribution


def _trim(offset: int, counts: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    start = 0
    end = len(counts)
    while start < end and not counts[start]:
        start += 1
    while end > start and not counts[end - 1]:
        end -= 1
    return offset + start, tuple(counts[start:end])


def _convolve(parts: Sequence[tuple[int, Sequence[int], int, int]]) -> tuple[int, list[int], int]:
    """Sum of independent parts (offset, counts, total, times): one Kronecker product.

    A part with ``times > 1`` is added to itself that many times (a power).
    """
    if len(parts) == 1 and parts[0][3] == 1:
        offset, counts, total, _ = parts[0]
        return offset, list(counts), total
    offset = sum(part[0] * part[3] for part in parts)
    length = 1 + sum((len(part[1]) - 1) * part[3] for part in parts)
    total = math.prod(part[2] ** part[3] for part in parts)
    widest = max(parts, key=lambda part: len(part[1]))
    # Every count of every partial product is at most max(one copy of the widest part's
    # counts) * (the totals of all the other copies).
    bound = max(widest[1]) * (total // widest[2])
    _check_work(length, bound, "the sum")
    size = _slot_bytes(bound)
    packed = _product([_pack(counts, size) ** times for _, counts, _, times in parts])
    return offset, _unpack(packed, length, size), total


def _fraction(value: object, what: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | Fraction):
        raise DiceError(f"{what} must be a whole number or a Fraction, not {value!r}.")
    if value < 0:
        raise DiceError(f"{what} cannot be negative: {value}.")
    return Fraction(value)


@dataclass(frozen=True, eq=False)
class Distribution:
    """An exact distribution of integer values, as counts over a contiguous range.

    ``counts[i]`` is the number of equally likely outcomes giving ``offset + i``; the
    first and last counts are positive (zeros inside the range are allowed).  Two
    distributions are equal when they give every value the same probability.
    """

    offset: int
    counts: tuple[int, ...]
    _total: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.offset, bool) or not isinstance(self.offset, int):
            raise DiceError(f"A distribution's offset must be a whole number, not {self.offset!r}.")
        counts = tuple(self.counts)
        for count in counts:
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise DiceError(f"Counts must be whole numbers of at least 0, not {count!r}.")
        offset, counts = _trim(self.offset, counts)
        if not counts:
            raise DiceError("A distribution needs at least one value with a positive count.")
        object.__setattr__(self, "offset", offset)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "_total", sum(counts))

    @classmethod
    def _make(cls, offset: int, counts: tuple[int, ...], total: int) -> Distribution:
        """Trusted constructor: counts already trimmed, total already known."""
        self = object.__new__(cls)
        object.__setattr__(self, "offset", offset)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "_total", total)
        return self

    # -- construction

    @classmethod
    def constant(cls, value: int) -> Distribution:
        """Always ``value``."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise DiceError(f"A constant must be a whole number, not {value!r}.")
        return cls._make(value, (1,), 1)

    @classmethod
    def die(cls, sides: int) -> Distribution:
        """One die, uniform on 1..sides."""
        if isinstance(sides, bool) or not isinstance(sides, int) or sides < 1:
            raise DiceError(f"A die needs a whole number of sides, at least 1, not {sides!r}.")
        _check_work(sides, 1, f"d{sides}")
        return cls._make(1, (1,) * sides, sides)

    @classmethod
    def from_weights(cls, weights: Mapping[int, int | Fraction]) -> Distribution:
        """Values with relative weights (ints or Fractions), scaled to whole counts."""
        cleaned: dict[int, Fraction] = {}
        for value, weight in weights.items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise DiceError(f"Values must be whole numbers, not {value!r}.")
            weight = _fraction(weight, "A weight")
            if weight:
                cleaned[value] = weight
        if not cleaned:
            raise DiceError("A distribution needs at least one value with a positive weight.")
        low, high = min(cleaned), max(cleaned)
        _check_work(high - low + 1, 1, "the distribution")
        scale = math.lcm(*(weight.denominator for weight in cleaned.values()))
        counts = [0] * (high - low + 1)
        for value, weight in cleaned.items():
            counts[value - low] = weight.numerator * (scale // weight.denominator)
        divisor = math.gcd(*counts)
        counts = [count // divisor for count in counts]
        return cls._make(low, tuple(counts), sum(counts))

    # -- queries

    @property
    def min(self) -> int:
        return self.offset

    @property
    def max(self) -> int:
        return self.offset + len(self.counts) - 1

    @property
    def total(self) -> int:
        """The number of equally likely outcomes (the sum of the counts)."""
        return self._total

    def probability(self, value: int) -> Fraction:
        index = value - self.offset
        if 0 <= index < len(self.counts):
            return Fraction(self.counts[index], self._total)
        return Fraction(0)

    def at_least(self, n: int) -> Fraction:
        """P(X >= n)."""
        index = n - self.offset
        if index <= 0:
            return Fraction(1)
        if index >= len(self.counts):
            return Fraction(0)
        return Fraction(sum(self.counts[index:]), self._total)

    def at_most(self, n: int) -> Fraction:
        """P(X <= n)."""
        index = n - self.offset
        if index < 0:
            return Fraction(0)
        if index >= len(self.counts) - 1:
            return Fraction(1)
        return Fraction(sum(self.counts[: index + 1]), self._total)

    def mean(self) -> Fraction:
        weighted = sum(map(mul, range(len(self.counts)), self.counts))
        return self.offset + Fraction(weighted, self._total)

    def items(self) -> Iterator[tuple[int, Fraction]]:
        """(value, probability) in ascending order, values with probability 0 left out."""
        total = self._total
        for index, count in enumerate(self.counts):
            if count:
                yield self.offset + index, Fraction(count, total)

    # -- arithmetic

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Distribution):
            return NotImplemented
        if self.offset != other.offset or len(self.counts) != len(other.counts):
            return False
        if self._total == other._total:
            return self.counts == other.counts
        return list(map(mul, self.counts, repeat(other._total))) == list(
            map(mul, other.counts, repeat(self._total))
        )

    def __hash__(self) -> int:
        return hash((self.offset, len(self.counts)))

    def __add__(self, other: Distribution | int) -> Distribution:
        """The sum of two independent values (or a shift by a whole number)."""
        if isinstance(other, int):
            return Distribution._make(self.offset + other, self.counts, self._total)
        if not isinstance(other, Distribution):
            return NotImplemented
        if len(self.counts) == 1 or len(other.counts) == 1:
            small, large = (self, other) if len(self.counts) == 1 else (other, self)
            scale = small.counts[0]
            counts = large.counts if scale == 1 else tuple(c * scale for c in large.counts)
            return Distribution._make(
                large.offset + small.offset, counts, large._total * small._total
            )
        offset, counts, total = _convolve(
            [
                (self.offset, self.counts, self._total, 1),
                (other.offset, other.counts, other._total, 1),
            ]
        )
        return Distribution._make(offset, tuple(counts), total)

    def __radd__(self, other: int) -> Distribution:
        if isinstance(other, int):
            return self + other
        return NotImplemented

    def __neg__(self) -> Distribution:
        return Distribution._make(-self.max, self.counts[::-1], self._total)

    def __sub__(self, other: Distribution | int) -> Distribution:
        if isinstance(other, int):
            return self + (-other)
        if not isinstance(other, Distribution):
            return NotImplemented
        return self + (-other)

    def __rsub__(self, other: int) -> Distribution:
        if isinstance(other, int):
            return (-self) + other
        return NotImplemented

    def repeat_sum(self, n: int) -> Distribution:
        """The sum of ``n`` independent copies (Kronecker substitution and pow)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise DiceError(f"The number of copies must be a whole number, at least 0, not {n!r}.")
        if n == 0:
            return Distribution.constant(0)
        if n == 1:
            return self
        counts = self.counts
        width = len(counts)
        length = n * (width - 1) + 1
        # Refuse a huge n from a cheap estimate, before computing any big power.
        bits = max(counts).bit_length() + (n - 1) * self._total.bit_length()
        if length > MAX_SPAN or length * (bits - n) > MAX_WORK_BITS:
            _check_work(length, 1 << bits, f"{n} copies")
        total = self._total**n
        if width == 1:
            return Distribution._make(n * self.offset, (total,), total)
        first = counts[0]
        if counts.count(first) == width:  # uniform: a die, scaled
            bound = first**n * width ** (n - 1)
            _check_work(length, bound, f"{n} copies")
            result = _dice_sum_counts([(width, n)])
            if first != 1:
                scale = first**n
                result = [count * scale for count in result]
        else:
            bound = max(counts) * self._total ** (n - 1)
            _check_work(length, bound, f"{n} copies")
            size = _slot_bytes(bound)
            result = _unpack(_pack(counts, size) ** n, length, size)
        return Distribution._make(n * self.offset, tuple(result), total)

    def scaled(self, factor: int) -> Distribution:
        """The distribution of ``factor * X`` (``factor`` >= 1): the same counts, spread out."""
        if isinstance(factor, bool) or not isinstance(factor, int) or factor < 1:
            raise DiceError(f"A scale factor is a whole number, at least 1, not {factor!r}.")
        if factor == 1:
            return self
        _check_work((len(self.counts) - 1) * factor + 1, max(self.counts), "the multiplied roll")
        counts = [0] * ((len(self.counts) - 1) * factor + 1)
        counts[::factor] = self.counts
        return Distribution._make(self.offset * factor, tuple(counts), self._total)

    def map(self, f: Callable[[int], int]) -> Distribution:
        """The distribution of ``f(X)`` (for example ``max(0, x - 5)`` or ``x // 2``)."""
        mapped: dict[int, int] = {}
        for index, count in enumerate(self.counts):
            if count:
                value = f(self.offset + index)
                if not isinstance(value, int):
                    raise DiceError(f"map() needs whole-number results, not {value!r}.")
                value = int(value)
                mapped[value] = mapped.get(value, 0) + count
        low, high = min(mapped), max(mapped)
        _check_work(high - low + 1, self._total, "the mapped distribution")
        counts = [0] * (high - low + 1)
        for value, count in mapped.items():
            counts[value - low] = count
        return Distribution._make(low, tuple(counts), self._total)

    @staticmethod
    def mix(parts: Sequence[tuple[Fraction, Distribution]]) -> Distribution:
        """A mixture: with probability ``weight`` the value comes from that distribution.

        The weights (ints or Fractions) must add up to 1.
        """
        cleaned: list[tuple[Fraction, Distribution]] = []
        for weight, distribution in parts:
            weight = _fraction(weight, "A mixture weight")
            if not isinstance(distribution, Distribution):
                raise DiceError(f"Mixture parts must be distributions, not {distribution!r}.")
            if weight:
                cleaned.append((weight, distribution))
        weight_sum = sum((weight for weight, _ in cleaned), Fraction(0))
        if weight_sum != 1:
            raise DiceError(f"Mixture weights must add up to 1, not {weight_sum}.")
        low = min(distribution.min for _, distribution in cleaned)
        high = max(distribution.max for _, distribution in cleaned)
        scale = math.lcm(*(w.denominator * d._total for w, d in cleaned))
        _check_work(high - low + 1, scale, "the mixture")
        counts = [0] * (high - low + 1)
        for weight, distribution in cleaned:
            factor = weight.numerator * (scale // (weight.denominator * distribution._total))
            start = distribution.offset - low
            window = slice(start, start + len(distribution.counts))
            counts[window] = map(add, counts[window], map(mul, distribution.counts, repeat(factor)))
        divisor = math.gcd(*counts)
        if divisor > 1:
            counts = [count // divisor for count in counts]
        return Distribution._make(low, tuple(counts), scale // divisor)


# ------------------------------------------------------------------ expressions


@dataclass(frozen=True)
class Term:
    """One dice group or number of an expression, with its sign.

    A dice term has ``count`` >= 1 dice of ``sides`` sides (``keep`` of them kept,
    the highest or lowest, if ``keep`` is set); a number has ``count == 0`` and its
    value in ``constant`` (>= 0).  ``sign`` is +1 or -1.  ``is_weapon`` marks dice
    written dW / [W], ``per_level`` a count (or number) multiplied by the level,
    ``percentile`` dice written d%.  ``factor`` multiplies the group's rolled total
    (the 3d6 rules' "Multiply a Die": ``10 x 1d6`` is one d6 times 10, not 10d6).
    """

    sign: int = 1
    count: int = 0
    sides: int = 0
    constant: int = 0
    keep: int | None = None
    keep_highest: bool = True
    is_weapon: bool = False
    per_level: bool = False
    percentile: bool = False
    factor: int = 1

    @property
    def is_dice(self) -> bool:
        return self.count > 0

    @property
    def kept(self) -> int:
        """The number of dice that count toward the total."""
        return self.count if self.keep is None else self.keep

    @property
    def text(self) -> str:
        """The term without its sign, e.g. ``4d6kh3``, ``d%``, ``5``."""
        if not self.is_dice:
            return str(self.constant)
        if self.percentile:
            dice = "d%" if self.count == 1 else f"{self.count}d%"
        else:
            dice = f"{self.count}d{self.sides}"
        if self.keep is not None:
            dice += f"{'kh' if self.keep_highest else 'kl'}{self.keep}"
        return dice if self.factor == 1 else f"{dice}x{self.factor}"

    def _bounds(self) -> tuple[int, int]:
        if not self.is_dice:
            return self.constant, self.constant
        return self.kept * self.factor, self.kept * self.sides * self.factor

    def minimum(self) -> int:
        low, high = self._bounds()
        return low if self.sign > 0 else -high

    def maximum(self) -> int:
        low, high = self._bounds()
        return high if self.sign > 0 else -low

    def distribution(self) -> Distribution:
        """This term's own distribution, sign included."""
        if not self.is_dice:
            return Distribution.constant(self.sign * self.constant)
        if self.keep is None:
            result = Distribution._make(
                self.count,
                tuple(_dice_sum_counts([(self.sides, self.count)])),
                self.sides**self.count,
            )
        else:
            result = keep(self.count, self.sides, self.keep, self.keep_highest)
        result = result.scaled(self.factor)
        return result if self.sign > 0 else -result


def _render(terms: Sequence[Term]) -> str:
    pieces = []
    for index, term in enumerate(terms):
        if term.sign < 0:
            pieces.append("-" + term.text)
        else:
            pieces.append(term.text if index == 0 else "+" + term.text)
    return "".join(pieces)


def _check_limits(terms: Sequence[Term], text: str) -> None:
    """The expression-wide bounds (the per-group ones are checked while parsing)."""
    if len(terms) > MAX_TERMS:
        raise DiceError(
            f"Too many terms: {text} has {len(terms)} (at most {MAX_TERMS} numbers and dice "
            "groups)."
        )
    dice = 0
    length = 1
    rolls = 1
    tables = 0
    plain = False
    for term in terms:
        if not term.count:
            continue
        dice += term.count
        length += term.kept * (term.sides - 1) * term.factor
        rolls *= term.sides**term.count
        if term.factor != 1:
            tables += 1  # a multiplied roll is a table of its own
        elif term.keep is None:
            plain = plain or term.sides > 1
            continue
        if term.count > MAX_KEEP_DICE:
            raise DiceError(
                f"Too many dice to keep from: {term.text} (at most {MAX_KEEP_DICE} dice in a "
                "group with keep)."
            )
        tables += term.sides > 1
    if dice > MAX_DICE:
        raise DiceError(f"Too many dice: {text} rolls {dice} (at most {MAX_DICE} dice in all).")
    bits = max(1, rolls.bit_length())
    limit = MAX_TABLE_BITS if tables + plain < 2 else MAX_COMBINED_TABLE_BITS
    if length * bits > limit:
        combined = (
            ""
            if limit == MAX_TABLE_BITS
            else " for a group that keeps dice combined with other dice"
        )
        raise DiceError(
            f"Too large to compute exactly: {text} has {length:,} possible totals with counts "
            f"of up to {bits:,} bits ({length * bits:,} bits; at most {limit:,}{combined})."
        )


@dataclass(frozen=True)
class Expression:
    """A parsed dice expression: signed terms and the normalised text.

    ``text`` is canonical (``3d4+3``, ``2d20kh1``, ``-1d4+2``) with weapon dice and
    ``x Level`` already resolved, so parsing it again gives the same distribution.
    """

    terms: tuple[Term, ...]
    text: str
    notations: frozenset[str] = frozenset()  # the NOTATIONS the written text used

    def __str__(self) -> str:
        return self.text

    @classmethod
    def from_terms(
        cls, terms: Sequence[Term], notations: frozenset[str] = frozenset()
    ) -> Expression:
        """An expression of the given terms, checked against the bounds."""
        terms = tuple(terms)
        if not terms:
            raise DiceError("An expression needs at least one term.")
        text = _render(terms)
        _check_limits(terms, text)
        return cls(terms, text, notations)

    def dice_terms(self) -> tuple[Term, ...]:
        """The terms that roll dice."""
        return tuple(term for term in self.terms if term.is_dice)

    def minimum(self) -> int:
        return sum(term.minimum() for term in self.terms)

    def maximum(self) -> int:
        return sum(term.maximum() for term in self.terms)

    def distribution(self) -> Distribution:
        """The exact distribution of the total."""
        constant = 0
        plain: dict[int, int] = {}  # sides -> dice, added or subtracted
        keeps: dict[tuple[int, int, int, bool, int], int] = {}  # group -> times
        multiplied: list[Distribution] = []  # rolled totals times a number
        for term in self.terms:
            if not term.is_dice:
                constant += term.sign * term.constant
            elif term.factor != 1:
                multiplied.append(term.distribution())
            elif term.keep is None:
                plain[term.sides] = plain.get(term.sides, 0) + term.count
                if term.sign < 0:
                    # A sum of dice is symmetric: -S has the counts of S - (min + max).
                    constant -= term.count * (1 + term.sides)
            else:
                group = (term.count, term.sides, term.keep, term.keep_highest, term.sign)
                keeps[group] = keeps.get(group, 0) + 1
        parts: list[tuple[int, Sequence[int], int, int]] = []
        if plain:
            dice = sorted(plain.items())
            rolls = math.prod(sides**count for sides, count in dice)
            parts.append((sum(plain.values()), _dice_sum_counts(dice), rolls, 1))
        for (count, sides, kept, highest, sign), times in keeps.items():
            group = keep(count, sides, kept, highest)
            if sign < 0:
                group = -group
            parts.append((group.offset, group.counts, group.total, times))
        parts += [(group.offset, group.counts, group.total, 1) for group in multiplied]
        if not parts:
            return Distribution.constant(constant)
        offset, counts, total = _convolve(parts)
        return Distribution._make(offset + constant, tuple(counts), total)

    def with_dice_maximised(self) -> Expression:
        """Every dice term replaced by the number that makes the total its maximum.

        ``2d6+3`` becomes ``12+3`` (a critical hit that deals maximum damage). A
        subtracted dice term takes its lowest roll, so ``1d8-1d4`` becomes ``8-1``.
        """
        terms = tuple(
            Term(
                sign=term.sign,
                constant=term.kept * (term.sides if term.sign > 0 else 1) * term.factor,
            )
            if term.is_dice
            else term
            for term in self.terms
        )
        return Expression(terms, _render(terms))

    def doubled_dice(self) -> Expression:
        """Every dice group rolled twice, numbers unchanged: ``2d6+3`` becomes ``4d6+3``.

        A group that keeps some dice is repeated instead (``4d6kh3`` becomes
        ``4d6kh3+4d6kh3``), since keeping 6 of 8 dice is a different roll.  Raises
        DiceError if the doubled expression exceeds the bounds.
        """
        terms: list[Term] = []
        for term in self.terms:
            if not term.is_dice:
                terms.append(term)
            elif term.keep is None:
                terms.append(replace(term, count=2 * term.count))
            else:
                terms.extend((term, term))
        return Expression.from_terms(terms)


# ---------------------------------------------------------------------- parsing

_TRANSLATE = str.maketrans(
    {"\u2212": "-", "\u2013": "-", "\u00d7": "x"}
    | {chr(code): chr(code + 32) for code in range(ord("A"), ord("Z") + 1)}
)
_TOKEN = re.compile(r"\s*(?:([0-9]+)|([a-z]+)|(\[w\])|([-+*%])|(\S))")
_WORD = re.compile("level|lvl|kh|kl|k|d|x|w")
_HINT = "use numbers, dice such as 2d6 or 4d6kh3, + and -"

_Token = tuple[str, int, int, int]  # kind, number value, start, end


def _tokenize(text: str, lowered: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(lowered):
        match = _TOKEN.match(lowered, position)
        if match is None:  # only trailing space is left
            break
        number, word, weapon, symbol, other = match.groups()
        start = match.start(match.lastindex or 0)
        position = match.end()
        if number is not None:
            tokens.append(("num", int(number), start, position))
        elif word is not None:
            index = start
            while index < position:
                piece = _WORD.match(lowered, index, position)
                if piece is None:
                    raise DiceError(
                        f"Cannot read {text!r}: unknown word {text[start:position]!r} ({_HINT})."
                    )
                kind = {"lvl": "level", "k": "kh"}.get(piece.group(), piece.group())
                tokens.append((kind, 0, index, piece.end()))
                index = piece.end()
        elif weapon is not None:
            tokens.append(("[w]", 0, start, position))
        elif symbol is not None:
            tokens.append(({"*": "x"}.get(symbol, symbol), 0, start, position))
        else:
            raise DiceError(f"Cannot read {text!r}: unexpected {other!r} ({_HINT}).")
    return tokens


@dataclass
class _Factor:
    """A parsed factor of a term: a number (maybe times Level) or a dice group."""

    start: int
    value: int = 0
    dice: Term | None = None
    per_level: bool = False
    is_level: bool = False
    explicit: bool = False  # dice written with their count ("1d6"), not a die type ("d6")


class _Parser:
    def __init__(
        self,
        text: str,
        tokens: list[_Token],
        weapon_die: int | None,
        level: int | None,
        notations: frozenset[str] | None = None,
    ) -> None:
        self.text = text
        self.tokens = tokens
        self.index = 0
        self.weapon_die = weapon_die
        self.level = level
        self.notations = notations
        self.used: set[str] = set()

    def use(self, notation: str, start: int) -> None:
        """Refuse a notation outside the allowed set, naming what was written."""
        if self.notations is not None and notation not in self.notations:
            raise NotationError(notation, self.snippet(start) or " ".join(self.text.split()))
        self.used.add(notation)

    # -- helpers

    def peek(self) -> str | None:
        return self.tokens[self.index][0] if self.index < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def snippet(self, start: int) -> str:
        """The text from start to the last token taken, quoted in messages: any run of
        whitespace inside it (a tab, a line break) shown as one space, so a message is
        always one line."""
        end = self.tokens[self.index - 1][3] if self.index else start
        return " ".join(self.text[start:end].split())

    def shown(self, token: _Token) -> str:
        return self.text[token[2] : token[3]]

    def unexpected(self, token: _Token) -> DiceError:
        return DiceError(
            f"Unexpected {self.shown(token)!r} in {self.text!r}: expected a number or dice "
            "such as 2d6."
        )

    # -- grammar

    def parse(self) -> list[Term]:
        terms: list[Term] = []
        sign = 1
        if self.peek() in ("+", "-"):
            sign = -1 if self.take()[0] == "-" else 1
            self.expect_term_after(self.tokens[self.index - 1])
        while True:
            term = self.term(sign)
            terms.append(term)
            if len(terms) > MAX_TERMS:
                raise DiceError(
                    f"Too many terms in {self.text!r} (at most {MAX_TERMS} numbers and dice "
                    "groups)."
                )
            kind = self.peek()
            if kind is None:
                return terms
            token = self.take()
            if kind in ("+", "-"):
                sign = -1 if kind == "-" else 1
                self.expect_term_after(token)
                continue
            if kind in ("kh", "kl"):
                raise DiceError(
                    f"Keep ({self.shown(token)!r}) must follow dice, as in 4d6kh3, in "
                    f"{self.text!r}."
                )
            raise DiceError(f"Missing '+' or '-' before {self.shown(token)!r} in {self.text!r}.")

    def expect_term_after(self, operator: _Token) -> None:
        kind = self.peek()
        if kind is None:
            raise DiceError(
                f"Missing term after {self.shown(operator)!r} at the end of {self.text!r}."
            )
        if kind in ("+", "-"):
            raise DiceError(
                f"Missing term between {self.shown(operator)!r} and "
                f"{self.shown(self.tokens[self.index])!r} in {self.text!r}."
            )

    def term(self, sign: int) -> Term:
        start = self.tokens[self.index][2]
        factor = self.factor()
        while self.peek() == "x":
            times = self.take()
            if self.peek() is None:
                raise DiceError(
                    f"Missing number or Level after {self.shown(times)!r} in {self.text!r}."
                )
            factor = self.multiply(factor, self.factor(), start)
        if factor.is_level:
            self.use("per-level", start)
            factor.value = self.level_value()
            factor.per_level = True
        if factor.dice is not None:
            return factor.dice if sign > 0 else replace(factor.dice, sign=sign)
        if factor.value > MAX_CONSTANT:
            snippet = self.snippet(start)
            value = "" if snippet.isdigit() else f" gives {factor.value:,}"
            raise DiceError(f"Number too large: {snippet}{value} (at most {MAX_CONSTANT:,}).")
        return Term(sign=sign, constant=factor.value, per_level=factor.per_level)

    def level_value(self) -> int:
        if self.level is None:
            raise DiceError("Level needs a character level (for example --level 5).")
        return self.level

    def multiply(self, left: _Factor, right: _Factor, start: int) -> _Factor:
        if left.dice is not None and right.dice is not None:
            raise DiceError(f"Cannot multiply dice by dice: {self.snippet(start)}.")
        if left.dice is None and right.dice is not None:
            left, right = right, left
        for factor in (left, right):
            if factor.is_level:
                self.use("per-level", start)
                factor.value = self.level_value()
                factor.per_level = True
                factor.is_level = False
        per_level = right.per_level or (left.dice.per_level if left.dice else left.per_level)
        if right.per_level and (left.dice.per_level if left.dice else left.per_level):
            raise DiceError(f"Cannot multiply Level by Level: {self.snippet(start)}.")
        if left.dice is None:
            return _Factor(start, value=left.value * right.value, per_level=per_level)
        dice = left.dice
        if dice.keep is not None:
            raise DiceError(
                f"Cannot multiply a group that keeps dice: {self.snippet(start)} (write the "
                "groups out, as in 4d6kh3+4d6kh3)."
            )
        if left.explicit:  # "Multiply a Die": the rolled total times the number
            self.use("multiply-die", start)
            if right.value == 0:
                return _Factor(start, value=0, per_level=per_level)
            factor = dice.factor * right.value
            if factor > MAX_CONSTANT:
                raise DiceError(
                    f"Number too large: {self.snippet(start)} multiplies by {factor:,} "
                    f"(at most {MAX_CONSTANT:,})."
                )
            return _Factor(
                start, dice=replace(dice, factor=factor, per_level=per_level), explicit=True
            )
        self.use("per-level", start)  # a die type times a count, as in "X x Level"
        count = dice.count * right.value
        if count > MAX_DICE:
            raise DiceError(
                f"Too many dice: {self.snippet(start)} gives {count} (at most {MAX_DICE} dice "
                "in all)."
            )
        if count == 0:  # e.g. d8 x Level at level 0
            return _Factor(start, value=0, per_level=per_level)
        return _Factor(start, dice=replace(dice, count=count, per_level=per_level))

    def factor(self) -> _Factor:
        token = self.take()
        kind, value, start, _ = token
        if kind == "num":
            if self.peek() == "d":
                return self.dice(start, value, explicit=True)
            if self.peek() == "[w]":
                return self.weapon_bracket(start, value, explicit=True)
            return _Factor(start, value=value)
        if kind == "d":
            self.index -= 1
            return self.dice(start, 1)
        if kind == "[w]":
            self.index -= 1
            return self.weapon_bracket(start, 1)
        if kind == "level":
            return _Factor(start, is_level=True)
        raise self.unexpected(token)

    def weapon_bracket(self, start: int, count: int, explicit: bool = False) -> _Factor:
        self.take()  # [w]
        self.use("weapon-dice", start)
        sides = self.weapon_sides("[W]")
        return _Factor(start, dice=self.group(start, count, sides, weapon=True), explicit=explicit)

    def weapon_sides(self, written: str) -> int:
        if self.weapon_die is None:
            raise DiceError(f"{written} needs a weapon die (for example --weapon d8).")
        return self.weapon_die

    def dice(self, start: int, count: int, explicit: bool = False) -> _Factor:
        self.take()  # d
        kind = self.peek()
        percentile = weapon = False
        if kind == "num":
            sides = self.take()[1]
        elif kind == "%":
            self.take()
            sides, percentile = 100, True
        elif kind == "w":
            self.take()
            self.use("weapon-dice", start)
            sides, weapon = self.weapon_sides("dW"), True
        else:
            raise DiceError(
                f"Missing number of sides after 'd' in {self.snippet(start)!r} (for example 3d6)."
            )
        dice = self.group(start, count, sides, weapon, percentile)
        return _Factor(start, dice=dice, explicit=explicit)

    def group(
        self, start: int, count: int, sides: int, weapon: bool = False, percentile: bool = False
    ) -> Term:
        keep_count: int | None = None
        highest = True
        if self.peek() in ("kh", "kl"):
            highest = self.take()[0] == "kh"
            keep_count = self.take()[1] if self.peek() == "num" else 1
        snippet = self.snippet(start)
        if count < 1:
            raise DiceError(f"{snippet} rolls no dice: the number of dice must be at least 1.")
        if count > MAX_DICE:
            raise DiceError(f"Too many dice: {snippet} (at most {MAX_DICE} dice in all).")
        if sides < 1:
            raise DiceError(f"A die needs at least 1 side: {snippet}.")
        if sides > MAX_SIDES:
            raise DiceError(f"Too many sides: {snippet} (at most d{MAX_SIDES}).")
        if keep_count is not None:
            if keep_count < 1:
                raise DiceError(f"Cannot keep {keep_count} dice in {snippet}: keep at least 1.")
            if keep_count > count:
                raise DiceError(
                    f"Cannot keep {keep_count} dice in {snippet}: only {count} "
                    f"{'is' if count == 1 else 'are'} rolled."
                )
            if count > MAX_KEEP_DICE:
                raise DiceError(
                    f"Too many dice to keep from: {snippet} (at most {MAX_KEEP_DICE} dice in a "
                    "group with keep)."
                )
        return Term(
            count=count,
            sides=sides,
            keep=keep_count,
            keep_highest=highest,
            is_weapon=weapon,
            percentile=percentile,
        )


_SIMPLE_TERM = re.compile(r"\s*([-+]?)\s*(?:([0-9]*)d([0-9]+)(?:(k[hl]?)([0-9]+))?|([0-9]+))\s*")


def _parse_simple(lowered: str) -> list[Term] | None:
    """Fast path for the common shape: numbers, NdX and NdXkhK/klK joined by + and -.

    Returns None for anything else or anything out of bounds; the full parser then
    reads the text and words the error.
    """
    terms: list[Term] = []
    position = 0
    end = len(lowered)
    while position < end:
        match = _SIMPLE_TERM.match(lowered, position)
        if match is None or match.end() == position:
            return None
        sign_text, count_text, sides_text, keep_kind, keep_text, constant_text = match.groups()
        if terms and not sign_text:
            return None
        sign = -1 if sign_text == "-" else 1
        if constant_text is not None:
            value = int(constant_text)
            if value > MAX_CONSTANT:
                return None
            terms.append(Term(sign, 0, 0, value))
        else:
            count = int(count_text) if count_text else 1
            sides = int(sides_text)
            if not (1 <= count <= MAX_DICE and 1 <= sides <= MAX_SIDES):
                return None
            if keep_kind is None:
                terms.append(Term(sign, count, sides))
            else:
                kept = int(keep_text)
                if not 1 <= kept <= count <= MAX_KEEP_DICE:
                    return None
                terms.append(Term(sign, count, sides, 0, kept, keep_kind != "kl"))
        if len(terms) > MAX_TERMS:
            return None
        position = match.end()
    return terms or None


def parse(
    text: str,
    *,
    weapon_die: int | None = None,
    level: int | None = None,
    notations: Collection[str] | None = None,
) -> Expression:
    """Parse a dice expression such as ``3d4+3``, ``4d6kh3``, ``2dW+5`` or ``d8 x Level``.

    Grammar (case-insensitive; spaces allowed between parts; "−" and "–" are minus
    signs and "×" or "*" a times sign): a sum of terms joined by ``+`` and ``-``, with
    an optional leading sign.  A term is one of

    * a whole number (``3``);
    * ``NdX`` or ``dX`` (N defaults to 1), ``d%`` (one die 1..100: percentile dice,
      00 and 0 read as 100);
    * ``NdXkhK`` / ``NdXklK`` keeping the highest / lowest K dice (``kK`` is ``khK``,
      ``kh`` alone keeps 1);
    * ``NdW`` / ``dW`` or ``N[W]`` / ``[W]``: N weapon dice, with ``weapon_die`` sides;
    * a product with ``x``: a die type times a count is that many dice, ``d8 x 3``
      (3d8), ``d8 x Level`` / ``Level x d8`` (Level dice of type d8, the 3d6 rules'
      "X x Level"); dice written with their count times a number multiply the rolled
      total, ``10 x 1d6`` / ``2d8 x 10`` (the 3d6 rules' "Multiply a Die"); ``2 x Level``
      is a number, and so is ``Level``.

    ``notations`` limits the notations beyond plain dice to the named ones (keys of
    NOTATIONS): weapon dice, "per-level" (a die type times a count, or Level) and
    "multiply-die"; anything else raises NotationError.  None allows every notation.

    Raises DiceError, with a one-sentence message, for anything malformed or beyond
    the bounds (MAX_TEXT_LENGTH, MAX_TERMS, MAX_DICE, MAX_SIDES, MAX_KEEP_DICE,
    MAX_CONSTANT, MAX_LEVEL, MAX_TABLE_BITS, MAX_COMBINED_TABLE_BITS).
    """
    if not isinstance(text, str):
        raise DiceError(f"A dice expression must be text, such as 2d6+3, not {text!r}.")
    if len(text) > MAX_TEXT_LENGTH:
        raise DiceError(
            f"Dice expression too long: {len(text)} characters (at most {MAX_TEXT_LENGTH})."
        )
    if weapon_die is not None and (
        isinstance(weapon_die, bool)
        or not isinstance(weapon_die, int)
        or not 1 <= weapon_die <= MAX_SIDES
    ):
        raise DiceError(f"A weapon die has 1 to {MAX_SIDES} sides, not {weapon_die!r}.")
    if level is not None and (
        isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL
    ):
        raise DiceError(f"The level must be a whole number from 0 to {MAX_LEVEL}, not {level!r}.")
    lowered = text.translate(_TRANSLATE)
    terms = _parse_simple(lowered)
    if terms is None:  # anything else, and every error, goes through the full parser
        tokens = _tokenize(text, lowered)
        if not tokens:
            raise DiceError("Empty dice expression: write something such as 2d6+3.")
        allowed = None if notations is None else frozenset(notations)
        parser = _Parser(text, tokens, weapon_die, level, allowed)
        return Expression.from_terms(parser.parse(), frozenset(parser.used))
    return Expression.from_terms(terms)


# ---------------------------------------------------------------------- rolling


def roll(expr: Expression, rng: Random) -> tuple[int, list[list[int]]]:
    """Roll an expression with ``rng``: the total and the dice of each term.

    One list per term, in order (empty for a number).  A group that keeps dice lists
    its kept dice first, then the dropped ones (each in the order rolled), so the
    first ``term.keep`` entries are the ones that count.  A d% die is reported as its
    value 1..100.
    """
    total = 0
    dice: list[list[int]] = []
    for term in expr.terms:
        if not term.is_dice:
            total += term.sign * term.constant
            dice.append([])
            continue
        rolled = [rng.randint(1, term.sides) for _ in range(term.count)]
        if term.keep is None:
            dice.append(rolled)
            total += term.sign * sum(rolled) * term.factor
            continue
        direction = -1 if term.keep_highest else 1  # among equal dice the earlier is kept
        order = sorted(range(term.count), key=lambda i: (direction * rolled[i], i))
        chosen = set(order[: term.keep])
        kept = [rolled[i] for i in range(term.count) if i in chosen]
        dropped = [rolled[i] for i in range(term.count) if i not in chosen]
        dice.append(kept + dropped)
        total += term.sign * sum(kept)
    return total, dice
