"""The fight's exact chain, on packed counts: a side as the other's target is one position,
its combatants in order as blocks of positions; the chain's table over both sides'
positions is followed turn by turn, each attack a few big-int operations per target
position (rules_core.mechanics.fight builds the turns and reads the answer).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from rules_core.steps import Step, Steps

# The work of following the chain (work(), in words of big-int arithmetic: each operation of
# a turn on an int of the table, its slots times the words of the denominator then, plus
# what Python spends on any operation, _PER_OPERATION words' worth; turning the table over,
# _TURN_OVER words a state and word; sorting out down attackers, _SORTING operations a
# target position; up to 4 times as much where a block's ints are more than the processor's
# cache holds, _CACHE_WORDS). The weights were fitted to fights of one die and of many dice
# with critical hits, long and short blocks, in CPython on a shared machine, where a unit
# then took 0.4 to 0.6 ns (rules_core.mechanics.fight.MAX_WORK is the limit).
_TURN_OVER = 8
_PER_OPERATION = 64
_SORTING = 4
_CACHE_WORDS = 1 << 19


class Row(Protocol):
    """What the chain reads of a row of combatants (rules_core.mechanics.fight.Combatant)."""

    @property
    def count(self) -> int: ...

    @property
    def attacks(self) -> int: ...

    @property
    def hp(self) -> int: ...


# ---------------------------------------------------------------------- the chain
#
# A side, as the other side's target, is one position x in [0, H], H its total hit points:
# its combatants in order, each a block of positions as long as its hit points. x is the
# damage taken by the combatant under attack (x minus its block's start) after every
# earlier one dropped; an attack that drops it ends at the next block's start (damage
# beyond its hit points is lost), and x = H means the whole side is down. So the
# combatants still standing are those from x's block on: one number says who attacks.


@dataclass(frozen=True)
class Line:
    """A side's combatants in the order they are attacked, as blocks of positions."""

    rows: tuple[int, ...]  # each combatant's row in its side's list of Combatant
    starts: tuple[int, ...]  # each block's first position; then the side's total H
    block: tuple[int, ...]  # the block of each position 0..H (H: len(rows))

    @classmethod
    def of(cls, side: Sequence[Row]) -> Line:
        rows = tuple(index for index, c in enumerate(side) for _ in range(c.count))
        starts = [0]
        for row in rows:
            starts.append(starts[-1] + side[row].hp)
        block = tuple(b for b, row in enumerate(rows) for _ in range(side[row].hp))
        return cls(rows, tuple(starts), (*block, len(rows)))

    @property
    def total(self) -> int:
        return self.starts[-1]


class Attacks:
    """One side's turn against the other, one attack at a time, on packed counts.

    Every attack's counts are scaled to one total per attack (whatever its target), and a
    combatant who is down makes its attacks as misses: every turn of a side has the same
    total, so the whole chain keeps one denominator and needs no division."""

    def __init__(
        self, attackers: Sequence[Row], attacker_line: Line, target_line: Line,
        tables: Mapping[tuple[int, int], tuple[tuple[int, ...], int]],
    ) -> None:  # fmt: skip
        self.target = target_line
        targets = sorted(set(target_line.rows))
        # Each attack, in order: the attacker positions in which its attacker stands (all
        # those before its block's end), its total, and per target row its damage counts.
        self.standing_below: list[int] = []
        self.totals: list[int] = []
        self.damage: list[dict[int, _Damage]] = []
        for block, row in enumerate(attacker_line.rows):
            for _ in range(attackers[row].attacks):
                total = math.lcm(*(tables[row, target][1] for target in targets))
                self.standing_below.append(attacker_line.starts[block + 1])
                self.totals.append(total)
                self.damage.append({
                    target: _Damage.of(tables[row, target][0], total // tables[row, target][1])
                    for target in targets
                })  # fmt: skip
        self.full_total = math.prod(self.totals)
        # What a turn costs, per target block (its length, and its operations per attacker
        # position and word of a slot): each attack's big-int operations on the block, and
        # sorting out its down attackers.
        self.blocks = tuple(
            (
                stop - start,
                sum(
                    per_target[row].operations(stop - start) + _SORTING * (stop - start)
                    for per_target in self.damage
                ),
            )
            for row, start, stop in zip(
                target_line.rows, target_line.starts, target_line.starts[1:], strict=False
            )
        )

    def turn(self, columns: list[int], width: int, at: Step) -> Steps[list[int]]:
        """The side's whole turn, yielding `at` after each attack. `columns[x]` packs, for
        the target side at position x, the counts of every attacker position y in bits
        y * width on; `width` holds the counts after the turn (they total self.full_total
        times those before)."""
        line = self.target
        end = line.total
        for k, total in enumerate(self.totals):
            standing_bits = self.standing_below[k] * width
            standing = (1 << standing_bits) - 1
            step = [0] * (end + 1)
            if columns[end]:  # the target side is down: nothing left to hit
                step[end] = columns[end] * total
            for block, row in enumerate(line.rows):
                start, stop = line.starts[block], line.starts[block + 1]
                hits = []
                for x in range(start, stop):
                    packed = columns[x]
                    if packed.bit_length() > standing_bits:
                        hit = packed & standing  # the attacker is down in the rest: a miss
                        step[x] += (packed ^ hit) * total
                        packed = hit
                    hits.append(packed)
                self.damage[k][row].land(hits, step, start)
            columns = step
            yield at
        return columns


@dataclass(frozen=True)
class _Damage:
    """One attack's counts of each damage against one target, applied to a target block.

    Dice make a damage table piecewise polynomial in the damage (a die's faces: equal
    counts; 2d8: a triangle; a critical hit that doubles the roll: the same on every other
    damage), so as a series it is a few terms over a product of factors (1 - z^s): the
    hits are summed over and over (`passes`, running sums of stride s) and the few terms
    applied to those sums, in whichever such form has the fewest big-int operations. The
    terms are grouped by coefficient (dice give many equal ones, as 1, -4, 6, -4, 1), so a
    group is additions and one multiplication. A miss (damage 0, most of the counts) is
    applied to the hits as they are: through the passes it would be several terms."""

    miss: int  # the count of damage 0
    # (coefficient > 0, damages whose sums it adds, damages whose sums it takes away)
    groups: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]
    passes: tuple[int, ...]  # the stride of each running sum, taken first
    reach: int  # the largest damage
    total: int  # the counts' total

    @classmethod
    def of(cls, counts: Sequence[int], scale: int) -> _Damage:
        return _damage_of(tuple(counts), scale)

    @property
    def cost(self) -> int:
        """Big-int operations per position hit: the passes, the miss, each group's sums
        and its multiplication, and the sums that find the drops and add to the step."""
        summed = sum(len(added) + len(taken) for _, added, taken in self.groups)
        multiplied = sum(_multiplication(coefficient) for coefficient, _, _ in self.groups)
        return len(self.passes) + (2 if self.miss else 0) + summed + multiplied + 3

    def operations(self, length: int) -> int:
        """Big-int operations of hits on every position of a block of `length`: as `cost`,
        but a term only where its damage lands within the block (a die's or a critical
        hit's far end is often beyond it), a group's multiplication where its first does."""
        done = length * (len(self.passes) + (2 if self.miss else 0) + 3)
        for coefficient, added, taken in self.groups:
            within = [length - d for d in (*added, *taken) if d < length]
            done += sum(within) + max(within, default=0) * _multiplication(coefficient)
        return done

    def land(self, hits: list[int], step: list[int], start: int) -> None:
        """Add to `step` where the hits on one target block (`hits[i]`: the target at
        position start + i) end: within it, or at its end (the next block's start)."""
        length = len(hits)
        reached = [i for i, hit in enumerate(hits) if hit]
        if not reached:
            return
        first = reached[0]
        # Landing at i: sum of count(d) hits[i - d] over d, which is sum of coefficient(d)
        # summed[i - d]; nothing lands beyond the last hit's reach.
        window = hits[first : min(length, reached[-1] + self.reach + 1)]
        summed = list(window)
        for stride in self.passes:
            for i in range(stride, len(summed)):
                summed[i] += summed[i - stride]
        miss = self.miss
        landed_in_block = 0
        for i, hit in enumerate(window):
            landed = miss * hit if miss and hit else 0
            for coefficient, added, taken in self.groups:
                part = 0
                for d in added:
                    if d > i:
                        break
                    part += summed[i - d]
                for d in taken:
                    if d > i:
                        break
                    part -= summed[i - d]
                if part:
                    landed += part if coefficient == 1 else coefficient * part
            if landed:
                step[start + first + i] += landed
                landed_in_block += landed
        # The rest drops the target: all at the block's end (each hit totals self.total).
        dropped = self.total * sum(window) - landed_in_block
        if dropped:
            step[start + length] += dropped


def _multiplication(coefficient: int) -> int:
    """Operations of adding a sum times the coefficient: the addition alone for 1, else a
    multiplication as well, longer by each 30-bit digit of the coefficient beyond one."""
    return 1 if coefficient == 1 else 2 + (coefficient.bit_length() - 1) // 30


# Each stride of running sum tried, and at most how many times: 1 for the dice, 2 for a
# critical hit that doubles them.
_STRIDES = ((1, 6), (2, 4))


@functools.lru_cache(maxsize=256)
def _damage_of(counts: tuple[int, ...], scale: int) -> _Damage:
    """The form of the counts (times `scale`) with the fewest operations (see _Damage)."""
    scaled = [count * scale for count in counts]

    def times(series: list[int], stride: int) -> list[int]:
        """The series times (1 - z^stride)."""
        padded = [*series, *[0] * stride]
        return [padded[i] - (padded[i - stride] if i >= stride else 0) for i in range(len(padded))]

    def grouped(series: list[int]) -> tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]:
        by_size: dict[int, tuple[list[int], list[int]]] = {}
        for d, c in enumerate(series):
            if c:
                by_size.setdefault(abs(c), ([], []))[c < 0].append(d)
        return tuple(
            (size, tuple(added), tuple(taken)) for size, (added, taken) in sorted(by_size.items())
        )

    best: _Damage | None = None
    forms: list[tuple[tuple[int, ...], list[int]]] = [((), [0, *scaled[1:]])]
    for stride, most in _STRIDES:
        for passes, series in list(forms):
            for _ in range(most):
                series = times(series, stride)
                passes = (*passes, stride)
                forms.append((passes, series))
    for passes, series in forms:
        form = _Damage(scaled[0], grouped(series), passes, len(scaled) - 1, sum(scaled))
        if best is None or form.cost < best.cost:
            best = form
    assert best is not None
    return best


# ---------------------------------------------------------------------- packed counts
#
# The chain's counts are a table over (party position, opponents' position). It is kept as
# one Python int per position of the side about to be attacked, each holding the counts of
# every position of the attacking side in slots of `words` 64-bit words (slot y at bit
# y * 64 * words): an attack is then a few multiplications and additions of whole ints per
# target position, the arithmetic in C, instead of one per pair of positions. A slot holds
# any count of the chain as it is at most the denominator (the counts are never negative
# and total it); before each turn the table is turned over to the other side's positions,
# in slots wide enough for the denominator after that turn.


def _words(bound: int) -> int:
    """64-bit words a slot needs for counts up to `bound`."""
    return max(1, -(-bound.bit_length() // 64))


def _joined(packed: list[int], size: int) -> memoryview:
    """The ints, each `size` words, one after the other, as 64-bit words (a word is only
    moved whole, so the machine's byte order does not matter)."""
    return memoryview(b"".join(value.to_bytes(size * 8, "little") for value in packed)).cast("Q")


def _split(words: memoryview, size: int) -> list[int]:
    """Back from _joined: one int per `size` words."""
    data = words.cast("B")
    step = size * 8
    return [int.from_bytes(data[at : at + step], "little") for at in range(0, len(data), step)]


def _turn_over(columns: list[int], slots: int, words: int, new_words: int) -> list[int]:
    """The table indexed the other way: from one int per x (slot y of `words` words) to
    one int per y (slot x of `new_words` words, new_words >= words)."""
    xs = len(columns)
    source = _joined(columns, slots * words)
    target = memoryview(bytearray(xs * slots * new_words * 8)).cast("Q")
    # Word j of (x, y) is source[(x * slots + y) * words + j], target[(y * xs + x) * new + j]:
    # one strided copy per word of a slot and x (or y, whichever is fewer).
    if xs <= slots:
        for x in range(xs):
            for j in range(words):
                target[x * new_words + j :: xs * new_words] = source[
                    x * slots * words + j : (x + 1) * slots * words : words
                ]
    else:
        for y in range(slots):
            for j in range(words):
                target[y * xs * new_words + j : (y + 1) * xs * new_words : new_words] = source[
                    y * words + j :: slots * words
                ]
    return _split(target, xs * new_words)


def _unpack(packed: int, slots: int, words: int) -> list[int]:
    """Each slot of one packed int."""
    return _split(_joined([packed], slots * words), words)


def _mass_from(
    table: list[int], over_side: bool, slots: int, words: int, starts: Sequence[int],
) -> list[int]:  # fmt: skip
    """For each of `starts` (ascending), the counts of the table at that position of one
    side or beyond. `over_side`: the table's list is over that side's positions (else its
    slots are)."""
    if not over_side:
        at = _unpack(sum(table, 0), slots, words)
        return [sum(at[start:]) for start in starts]
    found = []
    beyond, x = 0, len(table)
    for start in reversed(starts):
        while x > start:
            x -= 1
            beyond += table[x]
        found.append(sum(_unpack(beyond, slots, words)))
    return found[::-1]


def work(states: int, rounds: Sequence[Sequence[Attacks]]) -> list[int]:
    """The work of following the chain to the end of each round (each round's turns, in
    order), in words of big-int arithmetic: per turn, its operations, each on an int of the
    table (a slot per attacker position, each as long as the denominator is then) and what
    Python spends on any operation, slower where a block's ints are more than the
    processor's cache holds (measured: up to 4 times), and turning the table over before it."""
    done, denominator, work = 0, 1, []
    for turns in rounds:
        for side in turns:
            denominator *= side.full_total
            words = _words(denominator)
            length = states // (side.target.total + 1) * words  # of an int of the table
            done += _TURN_OVER * states * words
            for block, operations in side.blocks:
                # A block's sums of ints beyond the cache: each word up to 4 times as long.
                beyond = min(3 * _CACHE_WORDS, block * length)
                done += (
                    operations * (length + _PER_OPERATION) * (_CACHE_WORDS + beyond) // _CACHE_WORDS
                )
        work.append(done)
    return work


class Chain:
    """The chain's counts as it is followed, turn by turn: a table over the positions of
    the side attacked next (see _turn_over) with counts over one `denominator`, and where
    the decided fights stopped. It starts with both sides at 0, the opponents attacked."""

    def __init__(self, party_end: int, opponent_end: int) -> None:
        self.ends = {"party": party_end, "opponents": opponent_end}
        self.attacked = "opponents"
        self.table = [1] + [0] * opponent_end
        self.words = 1
        self.denominator = 1
        # Where decided fights stopped, over `denominator`: those the party won by its
        # position (the opponents all down), those the opponents won by theirs.
        self.won_at = {side: [0] * (end + 1) for side, end in self.ends.items()}

    def slots(self) -> int:
        """The slots of each int of the table: the attacking side's positions."""
        return self.ends["opponents" if self.attacked == "party" else "party"] + 1

    def turn(self, side: str, attacks: Attacks, at: Step) -> Steps[Fraction]:
        """One side's turn in every undecided fight; the chance it wins the fight now."""
        self.denominator *= attacks.full_total
        new_words = _words(self.denominator)
        target = "opponents" if side == "party" else "party"
        if self.attacked != target:
            self.table = _turn_over(self.table, self.slots(), self.words, new_words)
            self.attacked = target
        # Else the first turn, the party's: the table's only count (1, in slot 0) reads
        # the same in slots of any width. After it the sides alternate.
        self.words = new_words
        self.table = yield from attacks.turn(self.table, 64 * self.words, at)
        for ended in self.won_at.values():
            for index, mass in enumerate(ended):
                if mass:
                    ended[index] = mass * attacks.full_total
        # The fights this turn won: the other side all down.
        won_at = _unpack(self.table[-1], self.slots(), self.words)
        self.table[-1] = 0
        ended = self.won_at[side]
        for index, mass in enumerate(won_at):
            ended[index] += mass
        return Fraction(sum(won_at), self.denominator)

    def mass_from(self, side: str, starts: Sequence[int]) -> list[Fraction]:
        """For each of `starts`, the chance the side is at that position or beyond, the
        decided fights with the rest."""
        in_play = _mass_from(self.table, self.attacked == side, self.slots(), self.words, starts)
        other = "opponents" if side == "party" else "party"
        own, decided = self.won_at[side], sum(self.won_at[other])
        return [
            Fraction(mass + sum(own[start:]) + decided, self.denominator)
            for mass, start in zip(in_play, starts, strict=True)
        ]
