"""Fight odds: the exact chance the party wins a fight, round by round, and who drops.

Each side attacks the other's combatants one at a time, in the order given, until each
drops; every attack has the attack calculator's odds and damage under the system's rules.
The answer is a Markov chain over the hit points left on each side, followed exactly for
a number of rounds you choose: what is still undecided after them is said, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from html import escape
from typing import Any, ClassVar, Self

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, answer, percent
from rules_core.charts import bar_chart
from rules_core.fields import Field, Requires
from rules_core.mechanics import fight as mechanics
from rules_core.mechanics.fight import SIDES, Combatant
from rules_core.requests import InputErrors, Request, system_field
from rules_core.systems import Sources, get_system

RULE = Requires(("attack",), "attack", "attack rolls")
NAME_LENGTH = 40  # a combatant's name: enough for "Captain Aldric the Bold", short on a phone


@cache
def combatant_fields(row: int) -> tuple[Field, ...]:
    group = f"Combatant {row}"
    # What the form starts from: four characters against five weaker opponents.
    examples = {
        1: ("party", "4", "6", "1d8+3", "16", "24"),
        2: ("opponents", "5", "4", "1d6+2", "14", "11"),
    }
    side, count, bonus, damage, defense, hp = examples.get(row, ("", "0", "", "", "", ""))
    # The fields a row needs first, those with a default or optional last: the command
    # line's --combatant SIDE:BONUS:DAMAGE:DEFENSE:HP[:COUNT][:ATTACKS][:NAME] leaves those out.
    return (
        Field(f"c{row}_side", "Side", "choice", example=side or "opponents", choices=SIDES,
              optional=True, option="--combatant", requires=RULE, group=group),
        Field(f"c{row}_bonus", "Attack bonus", "int", example=bonus, minimum=-100, maximum=100,
              optional=True, option="--combatant", requires=RULE, group=group),
        Field(f"c{row}_damage", "Damage", "dice", example=damage, optional=True,
              option="--combatant", requires=RULE, group=group),
        Field(f"c{row}_defense", "Defense", "int", example=defense, minimum=-100, maximum=200,
              optional=True, option="--combatant", requires=RULE, group=group),
        Field(f"c{row}_hp", "Hit points", "int", example=hp, minimum=1, maximum=1000,
              optional=True, option="--combatant", requires=RULE, group=group),
        Field(f"c{row}_count", "Count", "int", default="1", example=count or "0", minimum=0,
              maximum=20, optional=True, unset="0", option="--combatant", requires=RULE,
              group=group),
        Field(f"c{row}_attacks", "Attacks a round", "int", default="1", minimum=1, maximum=10,
              optional=True, option="--combatant", requires=RULE, group=group),
        # Plain text the answer shows instead of "Opponent 3" (a row of 3 "Orc": "Orc 1"..).
        Field(f"c{row}_name", "Name", "text", maximum=NAME_LENGTH, optional=True,
              option="--combatant", requires=RULE, group=group),
    )  # fmt: skip


@dataclass(frozen=True)
class FightRequest(Request):
    """A fight: the party and its opponents, who acts first, and the rounds to follow."""

    NAME: ClassVar[str] = "fight"
    TITLE: ClassVar[str] = "Fight odds"
    RULE: ClassVar[Requires | None] = RULE
    PRIMARY: ClassVar[str] = "c1_count"
    MAX_ROWS: ClassVar[int] = 12
    # The party and the encounter form's 4 monsters.
    FORM_ROWS: ClassVar[int] = 5
    ROW_KEY: ClassVar[str] = "c{row}_count"
    system: str
    first: str
    rounds: int
    party_situations: tuple[str, ...] = ()
    opponent_situations: tuple[str, ...] = ()
    combatants: tuple[Combatant, ...] = ()

    @classmethod
    def fields_before_rows(cls) -> tuple[Field, ...]:
        return (
            system_field(),
            Field("first", "Acts first", "choice", default="party", choices=SIDES,
                  option="--first", requires=RULE),
            Field("rounds", "Rounds to follow", "int", default="10", minimum=1, maximum=50,
                  option="--rounds", requires=RULE),
            Field("party_situations", "The party's attacks", "situations",
                  option="--party-situation", requires=RULE, more=True),
            Field("opponent_situations", "The opponents' attacks", "situations",
                  option="--opponent-situation", requires=RULE, more=True),
        )  # fmt: skip

    @classmethod
    def row_fields(cls, row: int) -> tuple[Field, ...]:
        return combatant_fields(row)

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        combatants = []
        errors: dict[str, str] = {}
        row = 1
        while cls.ROW_KEY.format(row=row) in values:
            count = values[f"c{row}_count"]
            if count:
                given = {
                    name: values[f"c{row}_{name}"]
                    for name in ("side", "bonus", "damage", "attacks", "defense", "hp")
                }
                for name, value in given.items():
                    if value is None and name != "attacks":
                        errors[f"c{row}_{name}"] = (
                            "Choose a side." if name == "side" else "Enter a value."
                        )
                if not any(f"c{row}_" in name for name in errors):
                    called = values.get(f"c{row}_name") or ""
                    combatants.append(
                        Combatant(
                            count=count, **{**given, "attacks": given["attacks"] or 1}, name=called
                        )
                    )
            row += 1
        sides = {combatant.side for combatant in combatants}
        for side, label in SIDES:
            if side not in sides and not errors:
                errors["c1_count"] = f"Give at least one combatant on each side ({label} has none)."
        if errors:
            raise InputErrors(errors)
        return cls(
            values["system"],
            values["first"],
            values["rounds"],
            values["party_situations"] or (),
            values["opponent_situations"] or (),
            tuple(combatants),
        )


def _model(first: str, rounds: int) -> list[str]:
    """The model, said with every answer: each assumption a GM could change."""
    acting = dict(SIDES)[first].lower()
    return [
        "Each side attacks the other's combatants one at a time, in the order of the rows "
        "(a row's count in turn), until each drops; damage beyond what drops one is lost.",
        "A combatant drops at 0 hit points and takes no further part: no healing, death "
        "saves, movement, conditions or other actions are followed.",
        f"Sides alternate, the {acting} first: each round every standing combatant of one "
        "side makes all its attacks, then the other side does.",
        "Each attack has the attack calculator's odds and damage for that attacker against "
        "that target's defense, with its side's situations.",
        f"The fight is followed for {rounds} rounds; one still going then is undecided.",
    ]


@dataclass(frozen=True)
class FightResult:
    """A fight as the page shows it: the fight chain's answer, and the figures read from it
    once for the page and the command line."""

    system: str
    odds: mechanics.FightResult
    expected_rounds: Fraction | None  # the mean length of the fights decided in time
    ends_in_round: tuple[Fraction, ...]  # round r (1-based): the chance the fight ends in it
    # Each opponent: the first round by whose end it is down in half the fights or more
    # (None: not within the rounds followed).
    opponents_down_in_half_by: tuple[int | None, ...]
    why: tuple[str, ...]  # what each side's situations do to its attacks, the side named
    sources: Sources

    @classmethod
    def of(cls, system: str, odds: mechanics.FightResult) -> FightResult:
        """The figures the page shows, read from the chain's answer."""
        half = Fraction(1, 2)
        return cls(
            system=system,
            odds=odds,
            expected_rounds=odds.expected_rounds,
            ends_in_round=tuple(
                p + o for p, o in zip(odds.party_wins_in, odds.opponents_win_in, strict=True)
            ),
            opponents_down_in_half_by=tuple(
                next((r for r, down in enumerate(by, start=1) if down >= half), None)
                for by in odds.opponent_down_by
            ),
            why=tuple(
                f"{side}: {line}"
                for side, lines in (
                    ("The party's attacks", odds.party_why),
                    ("The opponents' attacks", odds.opponents_why),
                )
                for line in lines
            ),
            sources=odds.sources,
        )

    def to_json(self) -> dict[str, Any]:
        odds, expected = self.odds, self.expected_rounds
        return {
            "system": self.system,
            "rounds": odds.rounds,
            "party_wins": str(odds.party_wins),
            "opponents_win": str(odds.opponents_win),
            "undecided": str(odds.undecided),
            "expected_rounds": None if expected is None else str(expected),
            "ends_in_round": [
                {"round": r, "party_wins": str(p), "opponents_win": str(o)}
                for r, (p, o) in enumerate(
                    zip(odds.party_wins_in, odds.opponents_win_in, strict=True), start=1
                )
            ],
            "party": [
                {"name": name, "drops": str(p)}
                for name, p in zip(odds.party_labels, odds.party_drops, strict=True)
            ],
            "opponents": [
                {"name": name, "drops": str(p), "down_by_round": [str(x) for x in by]}
                for name, p, by in zip(
                    odds.opponent_labels, odds.opponent_drops, odds.opponent_down_by,
                    strict=True,
                )
            ],
            "party_why": list(odds.party_why),
            "opponents_why": list(odds.opponents_why),
            **self.sources.to_json(),
        }  # fmt: skip


def run(request: FightRequest) -> Answer[FightResult]:
    system = get_system(request.system)
    party = [c for c in request.combatants if c.side == "party"]
    opponents = [c for c in request.combatants if c.side == "opponents"]
    odds = mechanics.fight(
        system,
        party,
        opponents,
        party_situations=request.party_situations,
        opponent_situations=request.opponent_situations,
        party_first=request.first == "party",
        rounds=request.rounds,
    )
    for note in _model(request.first, request.rounds):
        odds.sources.interpret(note)
    result = FightResult.of(system.slug, odds)
    within = f"within {odds.rounds} rounds"
    text = [
        f"{system.title}: {len(odds.party_labels)} against {len(odds.opponent_labels)}",
        f"  party wins {within}      {percent(odds.party_wins)}",
        f"  opponents win {within}   {percent(odds.opponents_win)}",
        f"  still fighting after {odds.rounds}   {percent(odds.undecided)}",
    ]
    if result.expected_rounds is not None:
        text.append(
            f"  rounds, fights decided {within}: {float(result.expected_rounds):.2f} on average"
        )
    text += [
        f"  {name} drops: {percent(p)}"
        for name, p in zip(odds.party_labels, odds.party_drops, strict=True)
    ]
    for name, p, by in zip(
        odds.opponent_labels, odds.opponent_drops, result.opponents_down_in_half_by, strict=True
    ):
        when = f", down by round {by} in half the fights or more" if by else ""
        text.append(f"  {name} drops: {percent(p)}{when}")
    text.append("  exact fractions: --json")
    if result.why:
        text += ["Why:", *(f"  {line}" for line in result.why)]
    return answer(result, text)


def render(result: FightResult, request: FightRequest, base: str) -> html.Rendered:
    odds = result.odds
    rounds = odds.rounds
    rows = [
        (f"Party wins within {rounds} rounds", html.percent(odds.party_wins)),
        (f"Opponents win within {rounds} rounds", html.percent(odds.opponents_win)),
        (f"Still fighting after {rounds} rounds", html.percent(odds.undecided)),
    ]
    if result.expected_rounds is not None:
        average = float(result.expected_rounds)
        rows.append(("Rounds, fights decided in that time", f"{average:.2f} on average"))
    rows += [
        (f"{escape(name)} drops", html.percent(p))
        for name, p in zip(odds.party_labels, odds.party_drops, strict=True)
    ]
    for name, p, by in zip(
        odds.opponent_labels, odds.opponent_drops, result.opponents_down_in_half_by, strict=True
    ):
        when = f" · down by round {by} in half the fights" if by else ""
        rows.append((f"{escape(name)} drops", html.percent(p) + when))
    chart = bar_chart(
        [(r, str(p)) for r, p in enumerate(result.ends_in_round, start=1)],
        caption="Chance the fight ends in each round",
        label="Round",
    )
    # The digits of the exact fraction's denominator (none for a whole 0 or 1).
    denominator = odds.party_wins.denominator
    digits = len(str(denominator)) if denominator > 1 else 0
    exact = (
        f'<p class="calc-interpretation">Each percentage is rounded from an exact fraction (up to '
        f"{digits} digits here): the command line prints them with --json.</p>"
    )
    top = html.headline(
        f"Party wins {html.percent(odds.party_wins)}",
        f"loses {html.percent(odds.opponents_win)}",
        f"undecided {html.percent(odds.undecided)}",
    )
    body = html.rows(rows) + exact + chart + html.cited(result.sources, base)
    return html.Rendered(top, body, result.why)


CALCULATOR = Calculator(FightRequest, run, render, about=__doc__ or "")
