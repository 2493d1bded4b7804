"""The median of several independent totals against one other total, exactly.

A group contest compares the median of the members' totals with the opponent's. With an
odd number of members the median is the middle total; with an even number, the mean of
the two middle ones. The chances come from counting, member by member, how many totals
lie below a value (a Poisson-binomial count), in whole numbers of equally likely
outcomes: no enumeration of every member's roll, no sampling.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import accumulate
from math import prod

from rules_core.dice.distribution import Distribution


class _Totals:
    """Members' totals as cumulative counts, each member's outcomes at or below a value."""

    def __init__(self, members: Sequence[Distribution]) -> None:
        self.members = members
        self.cumulative = [list(accumulate(member.counts)) for member in members]
        self.everything = prod(member.total for member in members)

    def at_most(self, i: int, value: int) -> int:
        member = self.members[i]
        index = value - member.offset
        if index < 0:
            return 0
        return self.cumulative[i][min(index, len(member.counts) - 1)]

    def split(self, low_value: int, high_value: int) -> list[int]:
        """ways[k]: outcomes where k members are <= low_value and every other member is
        > high_value (low_value <= high_value), a Poisson-binomial count."""
        ways = [1]
        for i, member in enumerate(self.members):
            low = self.at_most(i, low_value)
            high = member.total - self.at_most(i, high_value)
            ways = [
                (ways[k] * high if k < len(ways) else 0) + (ways[k - 1] * low if k else 0)
                for k in range(len(ways) + 1)
            ]
        return ways


def _median_above(totals: _Totals, value: int) -> int:
    """Outcomes (of the members) whose median is above `value`."""
    n = len(totals.members)
    middle = (n + 1) // 2  # the (lower) middle rank, counted from 1
    # The lower middle total above value: the median is above it, whatever the other.
    above = totals.everything - sum(totals.split(value, value)[middle:])
    if n % 2:
        return above
    # Even: the lower middle total a <= value and the upper one above 2 * value - a.
    lowest = min(member.offset for member in totals.members)
    for low in range(lowest, value + 1):
        high = 2 * value - low
        above += totals.split(low, high)[middle] - totals.split(low - 1, high)[middle]
    return above


def median_versus(
    members: Sequence[Distribution], opponent: Distribution
) -> tuple[Fraction, Fraction, Fraction]:
    """(P(median > opponent), P(equal), P(median < opponent)) for independent totals."""
    if not members:
        raise ValueError("a median needs at least one total")
    totals = _Totals(members)
    negated = _Totals([-member for member in members])
    everything = totals.everything * opponent.total
    win = lose = 0
    for index, count in enumerate(opponent.counts):
        if not count:
            continue
        value = opponent.offset + index
        win += count * _median_above(totals, value)
        lose += count * _median_above(negated, -value)  # the median below value
    win_chance, lose_chance = Fraction(win, everything), Fraction(lose, everything)
    return win_chance, 1 - win_chance - lose_chance, lose_chance
