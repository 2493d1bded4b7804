"""Dice expressions: terms (dice, keep, constants, dW, X x Level) and their distribution."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rules_core.dice.counts import convolve, dice_sum_counts
from rules_core.dice.distribution import Distribution, keep
from rules_core.dice.limits import (
    MAX_COMBINED_TABLE_BITS,
    MAX_DICE,
    MAX_KEEP_DICE,
    MAX_TABLE_BITS,
    MAX_TERMS,
    DiceError,
)

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
                tuple(dice_sum_counts([(self.sides, self.count)])),
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
                shape = (term.count, term.sides, term.keep, term.keep_highest, term.sign)
                keeps[shape] = keeps.get(shape, 0) + 1
        parts: list[tuple[int, Sequence[int], int, int]] = []
        if plain:
            dice = sorted(plain.items())
            rolls = math.prod(sides**count for sides, count in dice)
            parts.append((sum(plain.values()), dice_sum_counts(dice), rolls, 1))
        for (count, sides, kept, highest, sign), times in keeps.items():
            group = keep(count, sides, kept, highest)
            if sign < 0:
                group = -group
            parts.append((group.offset, group.counts, group.total, times))
        parts += [(group.offset, group.counts, group.total, 1) for group in multiplied]
        if not parts:
            return Distribution.constant(constant)
        offset, counts, total = convolve(parts)
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
