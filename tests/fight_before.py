"""The fight chain as it was before its counts were packed into big ints (commit b36bd46):
one Python multiply-add per pair of positions, each turn's kernel memoised. Kept as the
oracle the packed chain must equal, fraction for fraction, on every fight this answers.
Since then it follows the escalation die round by round as the packed chain does, reading
the rules data itself (`_escalation`), so that the chain's kernels are checked per round.

The fight chain: the exact odds of a fight between two sides, round by round.

Each side attacks the other's combatants one at a time, in the order given, until each
drops; every attack has the attack mechanic's odds and damage under the system's rules.
A side's state is one position (targets down and damage on the current one); the chain
over both sides' positions is followed exactly for a number of rounds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules_core.citations import Sources
from rules_core.errors import RulesError
from rules_core.mechanics.attacks import AttackSetup, attack
from rules_core.mechanics.fight import Combatant, FightResult
from rules_core.systems import System

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


class _Turns:
    """One side's turn against the other: from where the target side stands and who of
    the attacking side still stands, where the target side may end up, in whole counts.

    Every attack's counts are scaled to one total per attack (whatever its target), and a
    combatant who is down makes its attacks as misses: every turn of a side has the same
    total, so the whole chain keeps one denominator and needs no division."""

    def __init__(
        self, attackers: Sequence[Combatant], attacker_line: _Line, target_line: _Line,
        tables: Mapping[tuple[int, int], tuple[tuple[int, ...], int]],
    ) -> None:  # fmt: skip
        self.target = target_line
        # The attacks of each attacking combatant, in order: (its row, the attack's total).
        self.sequence: list[int] = []
        self.first_attack: list[int] = []
        for row in attacker_line.rows:
            self.first_attack.append(len(self.sequence))
            self.sequence += [row] * attackers[row].attacks
        self.first_attack.append(len(self.sequence))
        targets = sorted(set(target_line.rows))
        self.totals = [
            math.lcm(*(tables[row, target][1] for target in targets)) for row in self.sequence
        ]
        # Per attack and target row: counts of each damage (scaled), and of "at least d".
        self.counts: list[dict[int, tuple[tuple[int, ...], tuple[int, ...]]]] = []
        for row, total in zip(self.sequence, self.totals, strict=True):
            per_target = {}
            for target in targets:
                counts, own_total = tables[row, target]
                scale = total // own_total
                scaled = tuple(count * scale for count in counts)
                tails = [0] * (len(scaled) + 1)
                for d in range(len(scaled) - 1, -1, -1):
                    tails[d] = tails[d + 1] + scaled[d]
                per_target[target] = (scaled, tuple(tails))
            self.counts.append(per_target)
        self.full_total = math.prod(self.totals)
        # A turn of the combatants from the k-th on: the attacks of those down, as misses.
        self.scale = [
            math.prod(self.totals[: self.first_attack[k]]) for k in range(len(self.first_attack))
        ]
        self._memo: dict[tuple[int, int], list[tuple[int, int]]] = {}

    def after(self, standing_from: int, x: int) -> list[tuple[int, int]]:
        """(position, count) after one turn of the attackers from `standing_from` on,
        the target side at x; counts total self.full_total."""
        key = (standing_from, x)
        found = self._memo.get(key)
        if found is not None:
            return found
        end_of_side = self.target.total
        now = {x: self.scale[standing_from]}
        for k in range(self.first_attack[standing_from], len(self.sequence)):
            total = self.totals[k]
            step: dict[int, int] = {}
            for position, mass in now.items():
                if position == end_of_side:
                    step[position] = step.get(position, 0) + mass * total
                    continue
                block = self.target.block[position]
                counts, tails = self.counts[k][self.target.rows[block]]
                room = self.target.starts[block + 1] - position  # damage that drops it
                if room < len(tails):
                    end = self.target.starts[block + 1]
                    step[end] = step.get(end, 0) + mass * tails[room]
                for d in range(min(room, len(counts))):
                    if counts[d]:
                        step[position + d] = step.get(position + d, 0) + mass * counts[d]
            now = step
        found = sorted(now.items())
        self._memo[key] = found
        return found


def _labels(line: _Line, noun: str) -> tuple[str, ...]:
    """Each combatant by its place in the order it is attacked: "Opponent 3"."""
    return tuple(f"{noun} {place}" for place in range(1, len(line.rows) + 1))


def _damage_tables(
    system: System, attackers: Sequence[Combatant], targets: Sequence[Combatant],
    situations: tuple[str, ...], sources: Sources, why: list[str], escalation: int = 0,
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


def _escalation(system: System, rounds: int, escalates: bool) -> list[int]:
    """The escalation die a side adds in each round, read from the rules data as the text
    has it: none in round 1, then 1 in round `from_round`, one more each round, up to max."""
    entry = (system.rules.get("attack") or {}).get("escalation")
    by_round = entry.get("by_round") if entry else None
    if not escalates or by_round is None:
        return [0] * rounds
    first, most = by_round["from_round"], entry["max"]
    return [0 if r < first else min(most, r - first + 1) for r in range(1, rounds + 1)]


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
    sources = Sources()
    party_line, opponent_line = _Line.of(party), _Line.of(opponents)
    # Its limits (20,000 states, 1.2M states x rounds x attacks) are left out: as an
    # oracle it follows any fight it is given.
    party_why: list[str] = []
    opponents_why: list[str] = []
    party_attacks = [
        _Turns(
            party, party_line, opponent_line,
            _damage_tables(system, party, opponents, party_situations, sources, party_why, added),
        )
        for added in _escalation(system, rounds, True)
    ]  # fmt: skip
    opponent_attacks = [
        _Turns(
            opponents, opponent_line, party_line,
            _damage_tables(
                system, opponents, party, opponent_situations, sources, opponents_why, added
            ),
        )
        for added in _escalation(system, rounds, opponents_escalate)
    ]  # fmt: skip
    party_end, opponent_end = party_line.total, opponent_line.total
    width = opponent_end + 1
    # The chain, flat: index p * width + o (party position p, opponents' o) -> count over
    # `denominator`. Lists, not dicts: the turns below are the whole cost of an answer.
    now = [0] * ((party_end + 1) * width)
    now[0] = 1
    denominator = 1
    ended = [0] * len(now)  # where decided fights stopped, over `denominator`
    wins: dict[str, list[Fraction]] = {"party": [], "opponents": []}
    down_by: list[list[Fraction]] = [[] for _ in opponent_line.rows]
    party_down_by: list[list[Fraction]] = [[] for _ in party_line.rows]

    def turn(side: str, r: int) -> Fraction:
        """One side's turn in every undecided fight in round r (0-based); the chance it
        wins the fight now."""
        nonlocal now, denominator
        party_acts = side == "party"
        attacks, acting = (
            (party_attacks[r], party_line) if party_acts else (opponent_attacks[r], opponent_line)
        )
        stride = 1 if party_acts else width  # one position of the target side, in the index
        step = [0] * len(now)
        after = attacks.after
        for index, mass in enumerate(now):
            if mass:
                p, o = divmod(index, width)
                attacker, target = (p, o) if party_acts else (o, p)
                base = index - target * stride
                for position, count in after(acting.block[attacker], target):
                    step[base + position * stride] += mass * count
        now, denominator = step, denominator * attacks.full_total
        for index, mass in enumerate(ended):
            if mass:
                ended[index] = mass * attacks.full_total
        # The fights this turn won: the other side all down.
        decided = (
            range(opponent_end, len(now), width)
            if party_acts
            else range(party_end * width, len(now))
        )
        won = 0
        for index in decided:
            if now[index]:
                won += now[index]
                ended[index] += now[index]
                now[index] = 0
        return Fraction(won, denominator)

    order = ("party", "opponents") if party_first else ("opponents", "party")
    for r in range(rounds):
        won = dict.fromkeys(order, Fraction(0))
        for side in order:
            if any(now):
                won[side] = turn(side, r)
        wins["party"].append(won["party"])
        wins["opponents"].append(won["opponents"])
        standing = [0] * width  # the opponents' positions, over every fight
        for index, mass in enumerate(now):
            if mass:
                standing[index % width] += mass
        for index, mass in enumerate(ended):
            if mass:
                standing[index % width] += mass
        for b in range(len(opponent_line.rows)):
            dropped_at = opponent_line.starts[b + 1]
            down_by[b].append(Fraction(sum(standing[dropped_at:]), denominator))
        # The party's positions, the same way: its position is the index over `width`.
        party_at = [0] * (party_end + 1)
        for table in (now, ended):
            for index, mass in enumerate(table):
                if mass:
                    party_at[index // width] += mass
        for b in range(len(party_line.rows)):
            dropped_at = party_line.starts[b + 1]
            party_down_by[b].append(Fraction(sum(party_at[dropped_at:]), denominator))
    final = [a + b for a, b in zip(now, ended, strict=True)]

    def dropped(line: _Line, position: Any) -> tuple[Fraction, ...]:
        at = [0] * (line.total + 1)
        for index, mass in enumerate(final):
            if mass:
                at[position(index)] += mass
        return tuple(
            Fraction(sum(at[line.starts[b + 1] :]), denominator) for b in range(len(line.rows))
        )

    party_wins = sum(wins["party"], Fraction(0))
    opponents_win = sum(wins["opponents"], Fraction(0))
    return FightResult(
        rounds=rounds,
        party_wins=party_wins,
        opponents_win=opponents_win,
        undecided=1 - party_wins - opponents_win,
        party_wins_in=tuple(wins["party"]),
        opponents_win_in=tuple(wins["opponents"]),
        party_drops=dropped(party_line, lambda index: index // width),
        opponent_drops=dropped(opponent_line, lambda index: index % width),
        opponent_down_by=tuple(tuple(by) for by in down_by),
        party_down_by=tuple(tuple(by) for by in party_down_by),
        party_labels=_labels(party_line, "Party member"),
        opponent_labels=_labels(opponent_line, "Opponent"),
        sources=sources,
        party_why=tuple(party_why),
        opponents_why=tuple(opponents_why),
    )
