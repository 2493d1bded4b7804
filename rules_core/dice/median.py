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
from math import prod

from rules_core.dice.distribution import Distribution


class _Totals:
    """Members' totals as cumulative counts: below(i, t) = outcomes of member i <= t."""

    def __init__(self, members: Sequence[Distribution]) -> None:
        self.members = members
        self.cumulative = []
        for member in members:
            running, sums = 0, []
            for count in member.counts:
                running += count
                sums.append(running)
            self.cumulative.append(sums)

    def at_most(self, i: int, value: int) -> int:
        member = self.members[i]
        index = value - member.offset
        if index < 0:
            return 0
        return self.cumulative[i][min(index, len(member.counts) - 1)]

    def above(self, i: int, value: int) -> int:
        return self.members[i].total - self.at_most(i, value)

    def exactly_low(self, low_value: int, high_value: int, wanted: int) -> int:
        """Outcomes where exactly `wanted` members are <= low_value and every other member
        is > high_value (low_value <= high_value)."""
        ways = [1]  # ways[k]: k members so far at or below low_value
        for i in range(len(self.members)):
            low, high = self.at_most(i, low_value), self.above(i, high_value)
            ways = [
                (ways[k] * high if k < len(ways) else 0) + (ways[k - 1] * low if k else 0)
                for k in range(len(ways) + 1)
            ]
        return ways[wanted] if wanted < len(ways) else 0

    def count_at_most(self, value: int, at_least: int) -> int:
        """Outcomes where at least `at_least` members are <= value."""
        ways = [1]
        for i in range(len(self.members)):
            low = self.at_most(i, value)
            high = self.members[i].total - low
            ways = [
                (ways[k] * high if k < len(ways) else 0) + (ways[k - 1] * low if k else 0)
                for k in range(len(ways) + 1)
            ]
        return sum(ways[at_least:])


def _median_above(totals: _Totals, value: int) -> int:
    """Outcomes (of the members) whose median is above `value`."""
    n = len(totals.members)
    middle = (n + 1) // 2  # the (lower) middle rank, counted from 1
    everything = prod(member.total for member in totals.members)
    # The lower middle total above value: the median is above it, whatever the other.
    above = everything - totals.count_at_most(value, middle)
    if n % 2:
        return above
    # Even: the lower middle total a <= value and the upper one above 2 * value - a.
    lowest = min(member.offset for member in totals.members)
    for low in range(lowest, value + 1):
        high = 2 * value - low
        at_low = totals.exactly_low(low, high, middle) - totals.exactly_low(low - 1, high, middle)
        above += at_low
    return above


def median_versus(
    members: Sequence[Distribution], opponent: Distribution
) -> tuple[Fraction, Fraction, Fraction]:
    """(P(median > opponent), P(equal), P(median < opponent)) for independent totals."""
    if not members:
        raise ValueError("a median needs at least one total")
    totals = _Totals(members)
    negated = _Totals([-member for member in members])
    everything = prod(member.total for member in members) * opponent.total
    win = lose = 0
    for index, count in enumerate(opponent.counts):
        if not count:
            continue
        value = opponent.offset + index
        win += count * _median_above(totals, value)
        lose += count * _median_above(negated, -value)  # the median below value
    win_chance, lose_chance = Fraction(win, everything), Fraction(lose, everything)
    return win_chance, 1 - win_chance - lose_chance, lose_chance
