"""`Distribution`: exact integer counts over a contiguous range of values, and `keep`."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import repeat
from operator import add, mul

from rules_core.dice.counts import (
    check_work,
    convolve,
    dice_sum_counts,
    keep_highest_counts,
    pack,
    slot_bytes,
    trim,
    unpack,
)
from rules_core.dice.limits import MAX_KEEP_DICE, MAX_SIDES, MAX_SPAN, MAX_WORK_BITS, DiceError


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
        offset, counts = trim(self.offset, counts)
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
        check_work(sides, 1, f"d{sides}")
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
        check_work(high - low + 1, 1, "the distribution")
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
        offset, summed, total = convolve(
            [
                (self.offset, self.counts, self._total, 1),
                (other.offset, other.counts, other._total, 1),
            ]
        )
        return Distribution._make(offset, tuple(summed), total)

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
            check_work(length, 1 << bits, f"{n} copies")
        total = self._total**n
        if width == 1:
            return Distribution._make(n * self.offset, (total,), total)
        first = counts[0]
        if counts.count(first) == width:  # uniform: a die, scaled
            bound = first**n * width ** (n - 1)
            check_work(length, bound, f"{n} copies")
            result = dice_sum_counts([(width, n)])
            if first != 1:
                scale = first**n
                result = [count * scale for count in result]
        else:
            bound = max(counts) * self._total ** (n - 1)
            check_work(length, bound, f"{n} copies")
            size = slot_bytes(bound)
            result = unpack(pack(counts, size) ** n, length, size)
        return Distribution._make(n * self.offset, tuple(result), total)

    def scaled(self, factor: int) -> Distribution:
        """The distribution of ``factor * X`` (``factor`` >= 1): the same counts, spread out."""
        if isinstance(factor, bool) or not isinstance(factor, int) or factor < 1:
            raise DiceError(f"A scale factor is a whole number, at least 1, not {factor!r}.")
        if factor == 1:
            return self
        check_work((len(self.counts) - 1) * factor + 1, max(self.counts), "the multiplied roll")
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
        check_work(high - low + 1, self._total, "the mapped distribution")
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
        check_work(high - low + 1, scale, "the mixture")
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
    check_work(length, total, f"{n}d{sides} keeping {keep}")
    if sides == 1:
        counts = [1]
    elif keep == n:
        counts = dice_sum_counts([(sides, n)])
    elif keep == 1:
        counts = [v**n - (v - 1) ** n for v in range(1, sides + 1)]
    else:
        counts = keep_highest_counts(n, sides, keep)
    if not highest:
        counts.reverse()
    return Distribution._make(keep, tuple(counts), total)
