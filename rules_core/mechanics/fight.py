"""The fight: the exact odds of a fight between two sides, round by round.

Each side attacks the other's combatants one at a time, in the order given, until each
drops; every attack has the attack mechanic's odds and damage under the system's rules,
with what the text changes from round to round (the escalation die). A side's state is
one position (targets down and damage on the current one); the chain over both sides'
positions (rules_core.mechanics.fight_chain) is followed exactly for a number of rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules_core.citations import Sources
from rules_core.errors import RulesError
from rules_core.mechanics.attacks import AttackSetup, attack
from rules_core.mechanics.fight_chain import Attacks, Chain, Line, work
from rules_core.mechanics.situations import resolve
from rules_core.rules.fight import NotFollowed
from rules_core.steps import Step, Steps, finish
from rules_core.systems import System

SIDES = (("party", "Party"), ("opponents", "Opponents"))
# The exact chain's size: hit-point states of one side times the other's (its table, in
# memory), and the work of following it (rules_core.mechanics.fight_chain.work, in words of
# big-int arithmetic). Five characters of 60 hit points against six of 40 over 10 rounds is
# 1,160M to 2,277M units by system (its damage table); in the browser's Python (Pyodide
# under Node) 1.3 to 2.4 s, 1.5 times CPython. Beyond the limit an answer would take longer,
# more on a phone and on a loaded machine (2 to 3 times, seen on that one): refused, saying
# how many rounds can be answered.
MAX_STATES = 200_000
MAX_WORK = 2_300_000_000
# The rules of the data that change a fight round by round and that the fight follows, each
# by the key it reads (hooks/content/rules_schema.py's PER_ROUND lists them all; the rest a
# system's rules.yml names under fight.not_followed).
FOLLOWED = {"attack.escalation": "attack.escalation.by_round"}


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


# The label of a combatant without a name, by its place on its side: "Opponent 3".
_NOUNS = {"party": "Party member", "opponents": "Opponent"}


def _labels(
    party_line: Line, party: Sequence[Combatant],
    opponent_line: Line, opponents: Sequence[Combatant],
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
    line: Line
    situations: tuple[str, ...]
    escalates: bool


def escalation_by_round(system: System, rounds: int) -> tuple[int, ...] | None:
    """The escalation die in each round of a fight (1-based, round 1 first), or None where
    the text has no die or does not say how it grows in a fight."""
    escalation = system.attack.escalation if system.defines("attack") else None
    if escalation is None or escalation.by_round is None:
        return None
    return tuple(escalation.in_round(r) or 0 for r in range(1, rounds + 1))


def _escalation_said(values: Sequence[int], ignored_by: str | None) -> str:
    """The die a side's attacks add, round by round, short enough for a phone's dock:
    "Escalation die: +0 in round 1, then one more a round to +6 in round 7, and +6 to round
    10" (any other run of values said round by round)."""
    if ignored_by:
        return f"Escalation die: counted as 0 ({ignored_by}) in every round"
    top = 0  # the last round (0-based) of the climb by one a round from round 1
    while top + 1 < len(values) and values[top + 1] == values[top] + 1:
        top += 1
    if all(value == values[top] for value in values[top:]):
        said = f"+{values[0]} in round 1"
        if top:
            said += f", then one more a round to +{values[top]} in round {top + 1}"
        if top + 1 < len(values):
            said += f", and +{values[top]} to round {len(values)}"
        return f"Escalation die: {said}"
    rounds = ", ".join(f"+{value} in round {r}" for r, value in enumerate(values, start=1))
    return f"Escalation die: {rounds}"


def _refuse_if_too_big(
    party: Line, opponents: Line, rounds: Sequence[Sequence[Attacks]], attacks: int
) -> None:
    """A fight bigger than the limits, refused with what can be answered."""
    states = (party.total + 1) * (opponents.total + 1)
    by_round = work(states, rounds)
    if by_round[-1] <= MAX_WORK:
        return
    answerable = sum(1 for done in by_round if done <= MAX_WORK)
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
        _Side("party", party, Line.of(party), party_situations, True),
        _Side("opponents", opponents, Line.of(opponents), opponent_situations, opponents_escalate),
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
    turns: dict[str, list[Attacks]] = {}
    for acting, other in (sides, sides[::-1]):
        added = by_round if by_round is not None and acting.escalates else (0,) * rounds
        kernels: dict[int, Attacks] = {}
        for value in sorted(set(added)):
            tables = _damage_tables(
                system, acting.combatants, other.combatants, acting.situations, value, sources,
                whys.setdefault(acting.name, []),
            )  # fmt: skip
            kernels[value] = Attacks(acting.combatants, acting.line, other.line, tables)
        turns[acting.name] = [kernels[value] for value in added]
        if by_round is not None and acting.escalates:
            ignored = resolve(system, acting.situations, None, Sources()).ignores_escalation
            whys[acting.name].append(_escalation_said(added, ignored))
    escalation = system.attack.escalation
    if by_round is not None and escalation is not None and escalation.by_round is not None:
        sources.cite(escalation.cite)
        sources.rest_on(escalation.by_round)
    order = ("party", "opponents") if party_first else ("opponents", "party")
    in_rounds = [[turns[side][r] for side in order] for r in range(rounds)]
    attacks = sum(c.count * c.attacks for c in (*party, *opponents))
    _refuse_if_too_big(party_line, opponent_line, in_rounds, attacks)
    ignored_rules = system.not_followed
    chain = Chain(party_line.total, opponent_line.total)
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
