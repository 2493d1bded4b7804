"""Fight odds: the exact chance the party wins a fight, round by round, and who drops.

Each side attacks the other's combatants one at a time, in the order given, until each
drops; every attack has the attack calculator's odds and damage under the system's rules.
The answer is a Markov chain over the hit points left on each side, followed exactly for
a number of rounds you choose: what is still undecided after them is said, never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from html import escape
from itertools import accumulate
from typing import Any, ClassVar, Self

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, percent, sourced_lines
from rules_core.charts import bar_chart, grouped_bar_chart
from rules_core.citations import Sources
from rules_core.fields import Field, Requires
from rules_core.mechanics import fight as mechanics
from rules_core.mechanics.fight import SIDES, Combatant
from rules_core.numbers import counted
from rules_core.requests import WHOLE, InputErrors, Request, system_field
from rules_core.rules.fight import NotFollowed
from rules_core.steps import Steps, finish
from rules_core.systems import get_system

RULE = Requires(("attack",), "attack", "attack rolls")
# The escalation die round by round: the party's attacks add it; the opponents' where asked.
ESCALATION = Requires(
    ("attack", "escalation", "by_round"),
    "escalation",
    "an escalation die that grows round by round",
)
# A counted row still missing a value, left out of the fight: its row, the values missing,
# and its name ("" for none).
type LeftOut = tuple[int, tuple[str, ...], str]
NAME_LENGTH = 40  # a combatant's name: enough for "Captain Aldric the Bold", short on a phone


@cache
def combatant_fields(row: int) -> tuple[Field, ...]:
    group = f"Combatant {row}"
    # What the form starts from: four characters against five weaker opponents. (An address
    # holds only what differs from these: changing them would change every link shared.)
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
        # Plain text the answer shows instead of "Opponent 3" (a row of 3 "Orc": "Orc 1"..,
        # numbered on across the side's other rows of that name; "Orc (party)" where the
        # other side has one of that name too), and the messages about its row.
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
    opponents_escalate: bool = False
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
            Field("opponents_escalate", "The opponents' attacks add the escalation die too",
                  "check", option="--opponents-escalate", requires=ESCALATION, more=True),
        )  # fmt: skip

    @classmethod
    def row_fields(cls, row: int) -> tuple[Field, ...]:
        return combatant_fields(row)

    # The row's values that have no default, in the order a missing one is said.
    NEEDED: ClassVar[tuple[str, ...]] = ("side", "bonus", "damage", "defense", "hp")
    # The values that, typed in a row not counted, make it one the GM is entering.
    TYPED: ClassVar[tuple[str, ...]] = ("bonus", "damage", "defense", "hp")
    # Each counted row that lacks a value, left out of the fight: (row, the values missing,
    # its name or "").
    left_out: tuple[LeftOut, ...] = ()

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        # A GM fills a party in row by row: a counted row still missing a value is left
        # out (said with the answer), so the complete rows are answered meanwhile; so is a
        # row typed in but not counted, so that no row is dropped without a word.
        combatants = []
        left_out: list[LeftOut] = []
        row = 1
        while cls.ROW_KEY.format(row=row) in values:
            count = values[f"c{row}_count"]
            given = {
                name: values[f"c{row}_{name}"]
                for name in ("side", "bonus", "damage", "attacks", "defense", "hp")
            }
            called = values.get(f"c{row}_name") or ""
            missing = tuple(name for name in cls.NEEDED if given[name] is None)
            if not count:
                typed = called or any(given[name] is not None for name in cls.TYPED)
                if typed:
                    left_out.append((row, ("count",), called))
            elif missing:
                left_out.append((row, missing, called))
            else:
                combatants.append(
                    Combatant(
                        count=count, **{**given, "attacks": given["attacks"] or 1}, name=called
                    )
                )
            row += 1
        sides = {combatant.side for combatant in combatants}
        for side, _ in SIDES:
            if side not in sides:
                # Not a value refused, a fight not yet complete: what would give the side
                # one, and beside every value the left-out rows lack, what it counts (an
                # encounter's monsters linked here lack them all).
                said = _no_side(side, values, left_out, combatants)
                raise InputErrors({WHOLE: said}, notes=_notes(left_out))
        return cls(
            values["system"],
            values["first"],
            values["rounds"],
            values["party_situations"] or (),
            values["opponent_situations"] or (),
            bool(values["opponents_escalate"]),
            tuple(combatants),
            tuple(left_out),
        )

    def notes(self) -> dict[str, str]:
        return _notes(self.left_out)


def _label(name: str) -> str:
    """A row value's label, as the form shows it, in lower case."""
    return next(f.label for f in combatant_fields(1) if f.name == f"c1_{name}").lower()


def _who(row: int, name: str) -> str:
    """A row in a sentence: by the name typed in it and its row, which tells apart two rows
    of one name ("Orc (row 2)"), else by its legend on the form ("Combatant 2")."""
    return f"{name} (row {row})" if name else f"Combatant {row}"


def _notes(left_out: Sequence[LeftOut]) -> dict[str, str]:
    """Beside each value a left-out row lacks, what counts it: short, as it stands in one
    narrow field ("Needed to count Orc (row 3).")."""
    return {
        f"c{row}_{name}": f"Needed to count {_who(row, called)}."
        for row, missing, called in left_out
        for name in missing
    }


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _fix(missing: tuple[str, ...]) -> str:
    """What a row lacks, as what to do: "choose its side and enter its hit points", or,
    typed in but not counted, "set its count"."""
    if missing == ("count",):
        return "set its count"
    values = [_label(name) for name in missing if name != "side"]
    fixes = ["choose its side"] if "side" in missing else []
    if values:
        fixes.append(f"enter its {_listed(values)}")
    return " and ".join(fixes)


def _left_out_line(row: int, missing: tuple[str, ...], name: str) -> str:
    return f"{_who(row, name)} is not counted yet: {_fix(missing)}."


# What a side with no combatant counted needs, in words: "Add an opponent"; and the side
# that has some, as the sentence saying who it has begins.
_ADD = {"party": "Add a party member", "opponents": "Add an opponent"}
_COUNTED = {"party": "The party", "opponents": "The opponents"}


def _no_side(
    side: str, values: dict[str, Any], left_out: list[LeftOut], counted: list[Combatant]
) -> str:
    """What a fight with a side missing needs: a left-out row of that side (or of no side
    yet) completed; else, of no row in particular (a row of the other side, or one not
    counted, may be the very row the GM is about to use), a row of that side. Then who is
    counted so far ("The party so far: Mira, Bram and 2 more.")."""
    add = _ADD[side]
    said = f"{add}: set a row's side to {dict(SIDES)[side]}."
    for row, missing, called in left_out:
        if values[f"c{row}_side"] in (side, None):
            said = f"{add}: to count {_who(row, called)}, {_fix(missing)}."
            break
    if not counted:
        return said
    named = [f"{c.name} ×{c.count}" if c.count > 1 else c.name for c in counted if c.name]
    unnamed = sum(c.count for c in counted if not c.name)
    so_far = _COUNTED[counted[0].side]
    if not named:
        return f"{said} {so_far} so far: {unnamed} counted."
    listed = _listed([*named, *([f"{unnamed} more"] if unnamed else [])])
    return f"{said} {so_far} so far: {listed}."


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
        f"The fight is followed for {counted(rounds, 'round')}; one still going then is undecided.",
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
    # The first round by whose end half the fights or more are decided, won by either side
    # (None: fewer than half within the rounds followed).
    half_decided_by: int | None
    # Each round (1-based): the number of combatants expected standing, party, opponents.
    standing_by_round: tuple[tuple[Fraction, Fraction], ...]
    why: tuple[str, ...]  # what each side's situations do to its attacks, the side named
    sources: Sources
    # The rows counted but still missing a value, left out: (row, the values missing, its
    # name or "").
    left_out: tuple[LeftOut, ...] = ()

    @classmethod
    def of(
        cls, system: str, odds: mechanics.FightResult, left_out: tuple[LeftOut, ...] = ()
    ) -> FightResult:
        """The figures the page shows, read from the chain's answer."""
        half = Fraction(1, 2)
        ends_in_round = tuple(
            p + o for p, o in zip(odds.party_wins_in, odds.opponents_win_in, strict=True)
        )
        return cls(
            system=system,
            odds=odds,
            expected_rounds=odds.expected_rounds,
            ends_in_round=ends_in_round,
            opponents_down_in_half_by=tuple(
                next((r for r, down in enumerate(by, start=1) if down >= half), None)
                for by in odds.opponent_down_by
            ),
            half_decided_by=next(
                (r for r, decided in enumerate(accumulate(ends_in_round), 1) if decided >= half),
                None,
            ),
            standing_by_round=tuple(
                (_standing(odds.party_down_by, r), _standing(odds.opponent_down_by, r))
                for r in range(odds.rounds)
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
            left_out=left_out,
        )

    @property
    def left_out_lines(self) -> tuple[str, ...]:
        """Each left-out row in a sentence: "Orc (row 3) is not counted yet: enter its hit
        points." ("Combatant 3 ..." unnamed)."""
        return tuple(_left_out_line(*row) for row in self.left_out)

    def to_json(self) -> dict[str, Any]:
        odds, expected = self.odds, self.expected_rounds
        return {
            "system": self.system,
            "rounds": odds.rounds,
            "party_wins": str(odds.party_wins),
            "opponents_win": str(odds.opponents_win),
            "undecided": str(odds.undecided),
            "expected_rounds": None if expected is None else str(expected),
            "half_decided_by": self.half_decided_by,
            "standing_by_round": [
                {"round": r, "party": str(p), "opponents": str(o)}
                for r, (p, o) in enumerate(self.standing_by_round, start=1)
            ],
            "ends_in_round": [
                {"round": r, "party_wins": str(p), "opponents_win": str(o)}
                for r, (p, o) in enumerate(
                    zip(odds.party_wins_in, odds.opponents_win_in, strict=True), start=1
                )
            ],
            "party": [
                {"name": name, "drops": str(p), "down_by_round": [str(x) for x in by]}
                for name, p, by in zip(
                    odds.party_labels, odds.party_drops, odds.party_down_by, strict=True
                )
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
            "left_out": [
                {"row": row, "missing": list(missing), "said": line}
                for (row, missing, _), line in zip(
                    self.left_out, self.left_out_lines, strict=True
                )
            ],
            "not_followed": [
                {
                    "label": entry.label,
                    "note": entry.note,
                    "citations": [citation.to_json() for citation in entry.cite],
                }
                for entry in odds.not_followed
            ],
            **self.sources.to_json(),
        }  # fmt: skip


def _standing(down_by: tuple[tuple[Fraction, ...], ...], index: int) -> Fraction:
    """The side's combatants expected standing at the end of round index + 1: each stands
    with the chance it is not down by then."""
    return sum((1 - by[index] for by in down_by), Fraction(0))


def _outcomes(odds: mechanics.FightResult) -> list[str]:
    """The fight's three outcomes, the likelier side's win first: "Opponents win 70.00%",
    "party wins 25.00%", "undecided 5.00%"."""
    party, opponents = html.percent(odds.party_wins), html.percent(odds.opponents_win)
    undecided = f"undecided {html.percent(odds.undecided)}"
    if odds.opponents_win > odds.party_wins:
        return [f"Opponents win {opponents}", f"party wins {party}", undecided]
    return [f"Party wins {party}", f"loses {opponents}", undecided]


def _how_long(result: FightResult) -> str:
    """When the fights end, in a few words: half of them decided by which round."""
    if result.half_decided_by is None:
        return f"over half still going after {counted(result.odds.rounds, 'round')}"
    return f"half over by round {result.half_decided_by}"


def run(request: FightRequest) -> Answer[FightResult]:
    return finish(steps(request))


def steps(request: FightRequest) -> Steps[Answer[FightResult]]:
    """`run` in steps, one after each attack: the page says how far it has got, and stops
    the work when the question changes before its answer."""
    system = get_system(request.system)
    party = [c for c in request.combatants if c.side == "party"]
    opponents = [c for c in request.combatants if c.side == "opponents"]
    odds = yield from mechanics.fight_steps(
        system,
        party,
        opponents,
        party_situations=request.party_situations,
        opponent_situations=request.opponent_situations,
        party_first=request.first == "party",
        rounds=request.rounds,
        opponents_escalate=request.opponents_escalate,
    )
    for note in _model(request.first, request.rounds):
        odds.sources.interpret(note)
    # Each rule of the text the fight does not follow is a reading the answer rests on;
    # the page and the text say it under "Not followed", with its sentences.
    not_followed = [entry.said for entry in odds.not_followed]
    for note in not_followed:
        odds.sources.interpret(note)
    result = FightResult.of(system.slug, odds, request.left_out)
    rounds = counted(odds.rounds, "round")
    within = f"within {rounds}"
    text = [
        f"{system.title}: {len(odds.party_labels)} against {len(odds.opponent_labels)}",
        *(f"  {line}" for line in result.left_out_lines),
        f"  party wins {within}      {percent(odds.party_wins)}",
        f"  opponents win {within}   {percent(odds.opponents_win)}",
        f"  still fighting after {rounds}   {percent(odds.undecided)}",
        f"  fights: {_how_long(result)} (won by either side)",
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
    if odds.not_followed:
        text.append("Not followed (rules of the text that change a fight):")
        for entry in odds.not_followed:
            text.append(f"  - {entry.label}: {entry.note}")
            text += [f"    {cited} ({cited.url}): “{cited.quote}”" for cited in entry.cite]
    return Answer(result, sourced_lines(text, result.sources.without(not_followed)))


def render(result: FightResult, request: FightRequest, base: str) -> html.Rendered:
    odds = result.odds
    rounds = counted(odds.rounds, "round")
    rows = [
        (f"Party wins within {rounds}", html.percent(odds.party_wins)),
        (f"Opponents win within {rounds}", html.percent(odds.opponents_win)),
        (f"Still fighting after {rounds}", html.percent(odds.undecided)),
    ]
    half = result.half_decided_by
    rows.append((
        "Half the fights over by",
        f"round {half}" if half else f"not within {rounds}",
    ))  # fmt: skip
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
    party_size, opponents_size = len(odds.party_labels), len(odds.opponent_labels)
    standing = grouped_bar_chart(
        [("Start", (str(party_size), str(opponents_size)))]
        + [
            (str(r), (str(p), str(o))) for r, (p, o) in enumerate(result.standing_by_round, start=1)
        ],
        series=("Party", "Opponents"),
        top=str(max(party_size, opponents_size)),
        caption=(
            f"Combatants expected standing after each round (at the start: party "
            f"{party_size}, opponents {opponents_size})"
        ),
        label="Round",
    )
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
        f"{digits} digits here): the command line prints them with --json. Half the fights "
        "over by round N: the first round by whose end the fights won, by either side, are "
        "half of all fights or more (the median length, the undecided counted as longer).</p>"
    )
    top = html.headline(*_outcomes(odds), _how_long(result))
    body = (
        standing
        + html.rows(rows)
        + exact
        + chart
        + _not_followed(odds.not_followed, base)
        + html.cited(result.sources.without(entry.said for entry in odds.not_followed), base)
    )
    return html.Rendered(top, body, (*result.left_out_lines, *result.why))


def _not_followed(entries: Sequence[NotFollowed], base: str) -> str:
    """The rules of the text that change a fight and that it does not follow, each with
    what it does instead and its sentences, linked."""
    if not entries:
        return ""
    items = "".join(
        f"<li><strong>{escape(entry.label)}</strong>: {escape(entry.note)}"
        f"<ul>{''.join(html.citation_item(cited, base) for cited in entry.cite)}</ul></li>"
        for entry in entries
    )
    return (
        '<div class="calc-sources calc-not-followed"><strong>Not followed here</strong>'
        f"<ul>{items}</ul></div>"
    )


CALCULATOR = Calculator(FightRequest, run, render, about=__doc__ or "", steps=steps)
