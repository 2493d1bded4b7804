"""The fight chain: the exact odds of a fight between two sides, round by round.

Each side attacks the other's combatants one at a time, in the order given, until each
drops; every attack has the attack mechanic's odds and damage under the system's rules.
A side's state is one position (targets down and damage on the current one); the chain
over both sides' positions is followed exactly for a number of rounds.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules_core.mechanics.attacks import AttackSetup, attack
from rules_core.mechanics.situations import resolve
from rules_core.rules.attack import attack_rules
from rules_core.rules.fight import NotFollowed, not_followed
from rules_core.steps import Step, Steps, finish
from rules_core.systems import RulesError, Sources, System

SIDES = (("party", "Party"), ("opponents", "Opponents"))
# The exact chain's size: hit-point states of one side times the other's (its table, in
# memory), and the work of following it (_work, in words of big-int arithmetic: each
# operation of a turn on an int of the table, its slots times the words of the denominator
# then, plus what Python spends on any operation, _PER_OPERATION words' worth; turning the
# table over, _TURN_OVER words a state and word; sorting out down attackers, _SORTING
# operations a target position; up to 4 times as much where a block's ints are more than
# the processor's cache holds, _CACHE_WORDS). The weights were fitted to fights of one die
# and of many dice with critical hits, long and short blocks, in CPython on a shared
# machine, where a unit then took 0.4 to 0.6 ns. Five characters of 60 hit points against
# six of 40 over 10 rounds is 1,160M to 2,277M units by system (its damage table); in the
# browser's Python (Pyodide under Node) 1.3 to 2.4 s, 1.5 times CPython. Beyond the limit
# an answer would take longer, more on a phone and on a loaded machine (2 to 3 times, seen
# on that one): refused, saying how many rounds can be answered.
MAX_STATES = 200_000
# The rules of the data that change a fight round by round and that the fight follows, each
# by the key it reads (hooks/content/rules_schema.py's PER_ROUND lists them all; the rest a
# system's rules.yml names under fight.not_followed).
FOLLOWED = {"attack.escalation": "attack.escalation.by_round"}
MAX_WORK = 2_300_000_000
_TURN_OVER = 8
_PER_OPERATION = 64
_SORTING = 4
_CACHE_WORDS = 1 << 19


@dataclass(frozen=True)
class Combatant:
    """One row of the form: a combatant, or `count` of the same."""

    side: str
    count: int
    bonus: int
    damage: str
    attacks: int
    defense: int
    hp: int
    # What the table calls it ("Mira", "Orc"); blank: its place in the order ("Opponent 3").
    name: str = ""


# ---------------------------------------------------------------------- the chain
#
# A side, as the other side's target, is one position x in [0, H], H its total hit points:
# its combatants in order, each a block of positions as long as its hit points. x is the
# damage taken by the combatant under attack (x minus its block's start) after every
# earlier one dropped; an attack that drops it ends at the next block's start (damage
# beyond its hit points is lost), and x = H means the whole side is down. So the
# combatants still standing are those from x's block on: one number says who attacks.


@dataclass(frozen=True)
class _Line:
    """A side's combatants in the order they are attacked, as blocks of positions."""

    rows: tuple[int, ...]  # each combatant's row in its side's list of Combatant
    starts: tuple[int, ...]  # each block's first position; then the side's total H
    block: tuple[int, ...]  # the block of each position 0..H (H: len(rows))

    @classmethod
    def of(cls, side: Sequence[Combatant]) -> _Line:
        rows = tuple(index for index, c in enumerate(side) for _ in range(c.count))
        starts = [0]
        for row in rows:
            starts.append(starts[-1] + side[row].hp)
        block = tuple(b for b, row in enumerate(rows) for _ in range(side[row].hp))
        return cls(rows, tuple(starts), (*block, len(rows)))

    @property
    def total(self) -> int:
        return self.starts[-1]


class _Attacks:
    """One side's turn against the other, one attack at a time, on packed counts.

    Every attack's counts are scaled to one total per attack (whatever its target), and a
    combatant who is down makes its attacks as misses: every turn of a side has the same
    total, so the whole chain keeps one denominator and needs no division."""

    def __init__(
        self, attackers: Sequence[Combatant], attacker_line: _Line, target_line: _Line,
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


@dataclass(frozen=True)
class FightResult:
    """Who wins a fight, round by round, and who drops."""

    rounds: int  # followed
    party_wins: Fraction
    opponents_win: Fraction
    undecided: Fraction
    # Round r (1-based) -> the chance the fight ends in it, won by the party / opponents.
    party_wins_in: tuple[Fraction, ...]
    opponents_win_in: tuple[Fraction, ...]
    party_drops: tuple[Fraction, ...]  # each party combatant, in order: drops by the end
    opponent_drops: tuple[Fraction, ...]
    # Each opponent: the chance it is down by the end of each round.
    opponent_down_by: tuple[tuple[Fraction, ...], ...]
    # Each party member: the same.
    party_down_by: tuple[tuple[Fraction, ...], ...]
    party_labels: tuple[str, ...]
    opponent_labels: tuple[str, ...]
    sources: Sources
    # Each side's attacks: what its situations do to them (the attack calculator's why).
    party_why: tuple[str, ...] = ()
    opponents_why: tuple[str, ...] = ()
    # The rules of the text that change a fight and that it does not follow, said.
    not_followed: tuple[NotFollowed, ...] = ()

    @property
    def expected_rounds(self) -> Fraction | None:
        """The mean length of the fights decided within the rounds followed."""
        decided = self.party_wins + self.opponents_win
        if not decided:
            return None
        weighted = sum(
            (r * (p + o) for r, (p, o) in enumerate(
                zip(self.party_wins_in, self.opponents_win_in, strict=True), start=1)),
            Fraction(0),
        )  # fmt: skip
        return weighted / decided


def _work(states: int, rounds: Sequence[Sequence[_Attacks]]) -> list[int]:
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


# The label of a combatant without a name, by its place on its side: "Opponent 3".
_NOUNS = {"party": "Party member", "opponents": "Opponent"}


def _labels(
    party_line: _Line, party: Sequence[Combatant],
    opponent_line: _Line, opponents: Sequence[Combatant],
) -> dict[str, tuple[str, ...]]:  # fmt: skip
    """Each side's combatants' labels, every one unique in the fight: a name numbered across
    every row of that name on its side when it names several ("Orc 1".."Orc 3" then "Orc 4"
    for a second row of Orcs), a row without a name by its place in the order it is
    attacked ("Opponent 3"). A name on both sides says its side on each: "Orc 1 (party)",
    "Orc (opponents)". A name that would still read as another combatant's label (a row
    named "Opponent 2") adds its place, "Opponent 2 (Opponent 5)", or, where the label is
    the other side's, its side: "Opponent 2 (party)"."""
    lines = {"party": (party_line, party), "opponents": (opponent_line, opponents)}
    names = {side: [of[row].name for row in line.rows] for side, (line, of) in lines.items()}
    on_both = set(names["party"]) & set(names["opponents"]) - {""}
    labels: dict[str, list[str]] = {}
    for side, noun in _NOUNS.items():
        labels[side] = []
        for place, name in enumerate(names[side], start=1):
            if not name:
                labels[side].append(f"{noun} {place}")
                continue
            # Several of a name: its number among them, those before it plus one.
            label = (
                f"{name} {names[side][:place].count(name)}" if names[side].count(name) > 1 else name
            )
            labels[side].append(f"{label} ({side})" if name in on_both else label)
    # A place label is unique in the fight, so only a name's label is changed, and one of a
    # place can only match a name typed as it is: each pass makes the clashing ones longer.
    while True:
        within = {
            side: {label for label in own if own.count(label) > 1} for side, own in labels.items()
        }
        across = set(labels["party"]) & set(labels["opponents"])
        if not across and not any(within.values()):
            break
        # Told apart on its side by its place, from the other side by its side.
        labels = {
            side: [
                label if not name
                else f"{label} ({_NOUNS[side]} {place})" if label in within[side]
                else f"{label} ({side})" if label in across
                else label
                for place, (label, name) in enumerate(zip(own, names[side], strict=True), 1)
            ]
            for side, own in labels.items()
        }  # fmt: skip
    return {side: tuple(own) for side, own in labels.items()}


def _damage_tables(
    system: System, attackers: Sequence[Combatant], targets: Sequence[Combatant],
    situations: tuple[str, ...], escalation: int, sources: Sources, why: list[str],
) -> dict[tuple[int, int], tuple[tuple[int, ...], int]]:  # fmt: skip
    """Per (attacker row, target row): the counts of each damage 0..max, and their total.
    `why` gets what the side's situations do to its attacks (the same for every pair)."""
    tables = {}
    for a, attacker in enumerate(attackers):
        for t, target in enumerate(targets):
            result = attack(
                system,
                AttackSetup(
                    bonus=attacker.bonus,
                    defense=target.defense,
                    damage=attacker.damage,
                    situations=situations,
                    escalation=escalation,
                ),
            )
            sources.include(result.sources)
            why[:] = why or result.why
            dealt = result.damage_per_attack
            assert dealt is not None  # a damage roll was given
            if dealt.min < 0:
                raise RulesError("Damage below 0 cannot be followed: check the damage roll.")
            counts = (0,) * dealt.offset + dealt.counts
            tables[a, t] = (counts, dealt.total)
    return tables


@dataclass(frozen=True)
class _Side:
    """One side as the chain follows it: its combatants in order, its situations, and
    whether the escalation die (where the text has one) is added to its attacks."""

    name: str  # "party" or "opponents"
    combatants: Sequence[Combatant]
    line: _Line
    situations: tuple[str, ...]
    escalates: bool


def escalation_by_round(system: System, rounds: int) -> tuple[int, ...] | None:
    """The escalation die in each round of a fight (1-based, round 1 first), or None where
    the text has no die or does not say how it grows in a fight."""
    rules = attack_rules(system)
    escalation = rules.escalation if rules else None
    if escalation is None or escalation.by_round is None:
        return None
    return tuple(escalation.in_round(r) or 0 for r in range(1, rounds + 1))


def _escalation_said(values: Sequence[int], ignored_by: str | None) -> str:
    """The die a side's attacks add, round by round: "Escalation die: +0 in round 1, +1 in
    round 2, +6 in rounds 7 to 10" (rounds of one value said together)."""
    if ignored_by:
        return f"Escalation die: counted as 0 ({ignored_by}) in every round"
    runs: list[tuple[int, int, int]] = []  # (value, first round, last round)
    for r, value in enumerate(values, start=1):
        if runs and runs[-1][0] == value:
            runs[-1] = (value, runs[-1][1], r)
        else:
            runs.append((value, r, r))
    said = ", ".join(
        f"+{value} in round {first}" if first == last else f"+{value} in rounds {first} to {last}"
        for value, first, last in runs
    )
    return f"Escalation die: {said}"


class _Chain:
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

    def turn(self, side: str, attacks: _Attacks, at: Step) -> Steps[Fraction]:
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


def _refuse_if_too_big(
    party: _Line, opponents: _Line, rounds: Sequence[Sequence[_Attacks]], attacks: int
) -> None:
    """A fight bigger than the limits, refused with what can be answered."""
    states = (party.total + 1) * (opponents.total + 1)
    work = _work(states, rounds)
    if work[-1] <= MAX_WORK:
        return
    answerable = sum(1 for done in work if done <= MAX_WORK)
    if answerable:
        raise RulesError(
            f"{len(rounds)} rounds is too long to follow this fight exactly: "
            f"{answerable} can be answered.",
            field="rounds",
        )
    raise RulesError(
        f"Too big to follow exactly, even for one round: {party.total} hit points "
        f"against {opponents.total}, with {attacks} attacks a round. Fewer combatants, hit "
        "points or attacks."
    )


def fight(
    system: System,
    party: Sequence[Combatant],
    opponents: Sequence[Combatant],
    *,
    party_situations: tuple[str, ...] = (),
    opponent_situations: tuple[str, ...] = (),
    party_first: bool = True,
    rounds: int = 10,
    opponents_escalate: bool = False,
) -> FightResult:
    """The fight followed exactly for `rounds` rounds."""
    return finish(
        fight_steps(
            system,
            party,
            opponents,
            party_situations=party_situations,
            opponent_situations=opponent_situations,
            party_first=party_first,
            rounds=rounds,
            opponents_escalate=opponents_escalate,
        )
    )


def fight_steps(
    system: System,
    party: Sequence[Combatant],
    opponents: Sequence[Combatant],
    *,
    party_situations: tuple[str, ...] = (),
    opponent_situations: tuple[str, ...] = (),
    party_first: bool = True,
    rounds: int = 10,
    opponents_escalate: bool = False,
) -> Steps[FightResult]:
    """`fight` in steps: a step after each attack, of rounds done (a long fight can say
    how far it has got, and be stopped between attacks). A refusal (too big to follow)
    comes before the first step.

    The system's rules that change from round to round are followed: the escalation die
    (added to the party's attacks, and the opponents' where `opponents_escalate`); those
    the text has that the fight does not follow are said (rules_core.rules.fight)."""
    sources = Sources()
    sides = (
        _Side("party", party, _Line.of(party), party_situations, True),
        _Side("opponents", opponents, _Line.of(opponents), opponent_situations, opponents_escalate),
    )
    party_line, opponent_line = sides[0].line, sides[1].line
    states = (party_line.total + 1) * (opponent_line.total + 1)
    if states > MAX_STATES:
        raise RulesError(
            f"Too big to follow exactly: {party_line.total} hit points against "
            f"{opponent_line.total} make {states:,} states (at most {MAX_STATES:,}). "
            "Fewer combatants or hit points."
        )
    by_round = escalation_by_round(system, rounds)
    if opponents_escalate and by_round is None:
        raise system.not_defined("escalation", "an escalation die that grows round by round")
    whys: dict[str, list[str]] = {}
    # Each side's attacks in each round: one kernel per value of the escalation die.
    turns: dict[str, list[_Attacks]] = {}
    for acting, other in (sides, sides[::-1]):
        added = by_round if by_round is not None and acting.escalates else (0,) * rounds
        kernels: dict[int, _Attacks] = {}
        for value in sorted(set(added)):
            tables = _damage_tables(
                system, acting.combatants, other.combatants, acting.situations, value, sources,
                whys.setdefault(acting.name, []),
            )  # fmt: skip
            kernels[value] = _Attacks(acting.combatants, acting.line, other.line, tables)
        turns[acting.name] = [kernels[value] for value in added]
        if by_round is not None and acting.escalates:
            ignored = resolve(system, acting.situations, None, Sources()).ignores_escalation
            whys[acting.name].append(_escalation_said(added, ignored))
    rules = attack_rules(system)
    if by_round is not None and rules is not None and rules.escalation is not None:
        sources.cite(rules.escalation.cite)
        assert rules.escalation.by_round is not None
        sources.rest_on(rules.escalation.by_round)
    order = ("party", "opponents") if party_first else ("opponents", "party")
    in_rounds = [[turns[side][r] for side in order] for r in range(rounds)]
    attacks = sum(c.count * c.attacks for c in (*party, *opponents))
    _refuse_if_too_big(party_line, opponent_line, in_rounds, attacks)
    ignored_rules = not_followed(system)
    chain = _Chain(party_line.total, opponent_line.total)
    wins: dict[str, list[Fraction]] = {"party": [], "opponents": []}
    drops_at = {one.name: one.line.starts[1:] for one in sides}
    down_by: dict[str, list[list[Fraction]]] = {
        one.name: [[] for _ in one.line.rows] for one in sides
    }
    for done, round_turns in enumerate(in_rounds):
        won = dict.fromkeys(order, Fraction(0))
        for side, kernel in zip(order, round_turns, strict=True):
            if any(chain.table):
                won[side] = yield from chain.turn(side, kernel, Step(done, rounds))
        for side in ("party", "opponents"):
            wins[side].append(won[side])
            for by, chance in zip(
                down_by[side], chain.mass_from(side, drops_at[side]), strict=True
            ):
                by.append(chance)
    party_wins = sum(wins["party"], Fraction(0))
    opponents_win = sum(wins["opponents"], Fraction(0))
    labels = _labels(party_line, party, opponent_line, opponents)
    return FightResult(
        rounds=rounds,
        party_wins=party_wins,
        opponents_win=opponents_win,
        undecided=1 - party_wins - opponents_win,
        party_wins_in=tuple(wins["party"]),
        opponents_win_in=tuple(wins["opponents"]),
        party_drops=tuple(chain.mass_from("party", drops_at["party"])),
        opponent_drops=tuple(chain.mass_from("opponents", drops_at["opponents"])),
        opponent_down_by=tuple(tuple(by) for by in down_by["opponents"]),
        party_down_by=tuple(tuple(by) for by in down_by["party"]),
        party_labels=labels["party"],
        opponent_labels=labels["opponents"],
        sources=sources,
        party_why=tuple(whys["party"]),
        opponents_why=tuple(whys["opponents"]),
        not_followed=ignored_rules,
    )
