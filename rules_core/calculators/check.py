"""Checks and saves: the chance a check or save meets its target, over rounds, in a contest,
a group check or an extended challenge, with the difficulties the text names."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, ClassVar, Self

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, answer, chance_line, percent
from rules_core.calculators.shared import escalation_field, mode_counts, mode_field
from rules_core.citations import Sources
from rules_core.errors import RulesError
from rules_core.fields import Field, Requires
from rules_core.mechanics import checks as mechanics
from rules_core.numbers import read_whole, shown
from rules_core.requests import InputErrors, Request, system_field
from rules_core.rules.checks import Difficulty
from rules_core.systems import System, get_system

CHECK_ADVANTAGE = Requires(
    ("checks", "advantage"), "advantage", "advantage and disadvantage dice for checks and saves"
)
SAVE_ESCALATION = Requires(("saves", "escalation"), "escalation", "an escalation bonus to saves")
CONTEST = Requires(("checks", "contest"), "contest", "contests (opposed checks)")
GROUP = Requires(("checks", "group"), "group", "group checks")
EXTENDED = Requires(("checks", "extended"), "extended", "extended challenges")
DIFFICULTIES = Requires(("checks", "difficulties"), "difficulties", "named difficulties")
ROLLS = (("save", "Saving throw"), ("check", "Check"))


def _bonuses(text: str | None) -> tuple[int, ...]:
    """'2, 0, -1' -> (2, 0, -1); the group field's own refusal otherwise."""
    if not text:
        return ()
    try:
        values = tuple(read_whole(part) for part in text.split(","))
    except ValueError:
        raise InputErrors(
            {"group": f"Give whole numbers separated by commas, e.g. 2, 0, -1, not {shown(text)}."}
        ) from None
    if len(values) >= mechanics.MAX_GROUP:
        raise InputErrors({"group": f"At most {mechanics.MAX_GROUP - 1} other members."})
    return values


@dataclass(frozen=True)
class CheckRequest(Request):
    """A check or a save, and the contests, group checks and challenges built on one."""

    NAME: ClassVar[str] = "check"
    TITLE: ClassVar[str] = "Checks and saves"
    PRIMARY: ClassVar[str] = "target"  # most refusals are about the target
    system: str
    roll: str = "save"  # save | check
    bonus: int = 0
    target: int | None = None
    mode: str = "normal"
    escalation: int | None = None
    rounds: int = 1
    versus: int | None = None  # the opponent's bonus: a contest
    group: tuple[int, ...] = ()  # the other members' bonuses: a group check
    successes: int | None = None  # needed: an extended challenge
    difficulty: str | None = None
    level: int | None = None

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            system_field(),
            Field(
                "roll",
                "Roll",
                "choice",
                default="check",
                example="save",
                choices=ROLLS,
                option="--save",
            ),
            Field(
                "bonus", "Bonus", "int", default="0", minimum=-100, maximum=100, option="--bonus"
            ),
            Field(
                "target",
                "Target (DC)",
                "int",
                example="10",
                minimum=-100,
                maximum=200,
                optional=True,
                option="--target",
                hint="A save whose target the text fixes keeps it (blank is fine)",
            ),
            mode_field("Advantage", CHECK_ADVANTAGE),
            escalation_field("Escalation die (Rally)", SAVE_ESCALATION),
            Field(
                "rounds",
                "Saves in a row",
                "int",
                default="1",
                minimum=1,
                maximum=100,
                option="--rounds",
                hint="Chance of at least one success, and rounds until a save ends effect ends",
            ),
            Field(
                "versus",
                "Opponent's bonus (contest)",
                "int",
                minimum=-100,
                maximum=100,
                optional=True,
                option="--versus",
                requires=CONTEST,
                more=True,
            ),
            Field(
                "group",
                "Other members' bonuses (group check)",
                "text",
                optional=True,
                option="--group",
                requires=GROUP,
                more=True,
                hint="e.g. 2, 0, -1; with an opponent's bonus, a group contest",
            ),
            Field(
                "successes",
                "Successes needed (extended challenge)",
                "int",
                minimum=1,
                maximum=100,
                optional=True,
                option="--successes",
                requires=EXTENDED,
                more=True,
            ),
            Field(
                "difficulty",
                "Named difficulty",
                "text",
                optional=True,
                option="--difficulty",
                requires=DIFFICULTIES,
                more=True,
                hint="Instead of a target: a name from the table below the answer",
            ),
            Field(
                "level",
                "Level (for difficulties by level)",
                "int",
                minimum=1,
                maximum=100,
                optional=True,
                option="--level",
                requires=DIFFICULTIES,
                more=True,
            ),
        )

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        group = _bonuses(values.pop("group", None))
        return super().from_values({**values, "group": group})

    def setup(self) -> mechanics.CheckSetup:
        advantage, disadvantage = mode_counts(self.mode)
        return mechanics.CheckSetup(
            kind=self.roll,
            bonus=self.bonus,
            target=self.target,
            difficulty=self.difficulty,
            level=self.level,
            advantage=advantage,
            disadvantage=disadvantage,
            escalation=self.escalation or 0,
            rounds=self.rounds,
        )


# What a check answer rests on: one roll (over rounds), an extended challenge, a group
# check, or a contest (one side's or a group's).
Odds = (
    mechanics.CheckResult
    | mechanics.ExtendedResult
    | mechanics.GroupResult
    | mechanics.ContestResult
)


@dataclass(frozen=True)
class CheckResult:
    """A check or save as the page shows it: the mechanic's odds, and what the answer adds."""

    system: str
    kind: str  # save, check, extended, group, contest or group-contest
    odds: Odds
    sources: Sources
    bonuses: tuple[int, ...] = ()  # a group contest's members, the first the asker's
    # The difficulties the text names for the roll, beside one roll or a challenge; None
    # for a group check or a contest.
    difficulties: tuple[Difficulty, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        beside: dict[str, Any] = {}
        if self.bonuses:
            beside["bonuses"] = list(self.bonuses)
        if self.difficulties is not None:
            beside["difficulties"] = [
                [row.label, row.value, list(row.levels) if row.levels else None]
                for row in self.difficulties
            ]
        return {"system": self.system, "kind": self.kind, **beside, **self.odds.to_json()}


def _difficulties_named(system: System, kind: str) -> tuple[Difficulty, ...]:
    """The named difficulties the text gives for the roll, shown beside the answer."""
    return tuple(mechanics.named_difficulties(system, kind))


def _contest_answer(
    system: System,
    kind: str,
    odds: mechanics.ContestResult,
    heading: str,
    outcomes: tuple[str, str],
    bonuses: tuple[int, ...] = (),
) -> Answer[CheckResult]:
    """A contest's answer, one side's or a group's: win, tie, lose and the tie rule."""
    result = CheckResult(system.slug, kind, odds, odds.sources, bonuses=bonuses)
    win, lose = outcomes
    text = [
        heading,
        chance_line(win, odds.win),
        chance_line("tie", odds.tie),
        chance_line(lose, odds.lose),
        f"  on a tie: {odds.tie_rule}",
    ]
    return answer(result, text)


def run(request: CheckRequest) -> Answer[CheckResult]:
    system = get_system(request.system)
    _refuse_mixed(request)
    if request.versus is not None and request.group:
        return _group_contest(system, request, request.versus)
    if request.versus is not None:
        return _contest(system, request, request.versus)
    if request.group:
        return _group_check(system, request)
    if request.successes is not None:
        return _extended(system, request, request.successes)
    return _single(system, request)


def _refuse_mixed(request: CheckRequest) -> None:
    """One kind of roll a request: a contest, a group check or an extended challenge (a
    contest and a group: a group contest), each of checks."""
    chosen = [
        name
        for name, given in (
            ("--versus", request.versus is not None),
            ("--group", bool(request.group)),
            ("--successes", request.successes is not None),
        )
        if given
    ]
    if len(chosen) > 1 and chosen != ["--versus", "--group"]:  # both: a group contest
        raise RulesError(
            f"Choose one of {' and '.join(chosen)}: a contest, a group check or "
            "an extended challenge."
        )
    if chosen and request.roll != "check":
        raise RulesError(
            "Contests, group checks and extended challenges are made of checks: "
            "choose Check as the roll."
        )


def _group_contest(system: System, request: CheckRequest, versus: int) -> Answer[CheckResult]:
    setup = request.setup()
    members = (request.bonus, *request.group)
    contested = mechanics.group_contest(
        system, members, mechanics.Side(versus), setup.advantage, setup.disadvantage
    )
    listed = ", ".join(f"{bonus:+d}" for bonus in members)
    heading = (
        f"{system.title}: group contest, the median of {len(members)} rolls of "
        f"{contested.rolls[0]} ({listed}) against {contested.rolls[1]} {versus:+d}"
    )
    outcomes = ("group wins", "group loses")
    return _contest_answer(system, "group-contest", contested, heading, outcomes, members)


def _contest(system: System, request: CheckRequest, versus: int) -> Answer[CheckResult]:
    setup = request.setup()
    contested = mechanics.contest(
        system,
        mechanics.Side(request.bonus, setup.advantage, setup.disadvantage),
        mechanics.Side(versus),
    )
    heading = (
        f"{system.title}: contest, {contested.rolls[0]} {request.bonus:+d} against "
        f"{contested.rolls[1]} {versus:+d}"
    )
    return _contest_answer(system, "contest", contested, heading, ("win", "lose"))


def _group_check(system: System, request: CheckRequest) -> Answer[CheckResult]:
    setup = request.setup()
    group = mechanics.group_check(
        system,
        (request.bonus, *request.group),
        request.target,
        setup.advantage,
        setup.disadvantage,
        difficulty=request.difficulty,
        level=request.level,
    )
    text = [
        f"{system.title}: group check of {len(group.members)}, {group.roll} against "
        f"{group.target}; {group.needed} must succeed",
        *(chance_line(f"member {n}", p) for n, p in enumerate(group.members, start=1)),
        chance_line("group", group.success),
    ]
    return answer(CheckResult(system.slug, "group", group, group.sources), text)


def _extended(system: System, request: CheckRequest, successes: int) -> Answer[CheckResult]:
    challenge = mechanics.extended_challenge(system, request.setup(), successes)
    one = challenge.check
    text = [
        f"{system.title}: {challenge.label.lower()}, {one.roll} {one.modifier:+d} against "
        f"{one.target}: {challenge.successes} successes before {challenge.failures} failures",
        chance_line("each check", one.success),
        chance_line("challenge", challenge.success),
    ]
    named = _difficulties_named(system, request.roll)
    result = CheckResult(system.slug, "extended", challenge, challenge.sources, difficulties=named)
    return answer(result, text)


def _single(system: System, request: CheckRequest) -> Answer[CheckResult]:
    """One check or save, or the same over several rounds (a save that ends an effect)."""
    checked = mechanics.check(system, request.setup())
    text = [
        f"{system.title}: {checked.label.lower()}, {checked.roll} {checked.modifier:+d} against "
        f"{checked.target}",
        chance_line("success", checked.success),
        chance_line("failure", checked.failure),
    ]
    if checked.rounds > 1:
        text.append(
            f"  at least one success in {checked.rounds}: {checked.at_least_one} "
            f"({percent(checked.at_least_one)})"
        )
    expected = checked.expected_rounds
    text.append(
        "  expected rolls until a success: "
        + (f"{expected} (about {float(expected):.2f})" if expected is not None else "never")
    )
    if len(checked.breakdown) > 1:
        text.append(
            "  roll: " + ", ".join(f"{label} {value:+d}" for label, value in checked.breakdown)
        )
    named = _difficulties_named(system, request.roll)
    text += [
        f"  difficulty: {row.label} {row.value}"
        + (f" (levels {row.levels[0]}-{row.levels[1]})" if row.levels else "")
        for row in named
    ]
    result = CheckResult(system.slug, request.roll, checked, checked.sources, difficulties=named)
    return answer(result, text)


def _difficulties(named: tuple[Difficulty, ...]) -> str:
    """The text's named difficulties, so the table's DCs are one glance away."""
    if not named:
        return ""
    body = "".join(
        f"<tr><td>{escape(row.label)}</td><td>{row.value}</td>"
        f"<td>{f'{row.levels[0]}-{row.levels[1]}' if row.levels else 'any'}</td></tr>"
        for row in named
    )
    return (
        '<table class="calc-difficulties"><caption>Difficulties the text names</caption>'
        "<thead><tr><th>Name</th><th>Target</th><th>Levels</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def _render_contest(result: CheckResult, odds: mechanics.ContestResult, base: str) -> html.Rendered:
    first, second = (escape(roll) for roll in odds.rolls)
    rolls = f"{first} against {second}"
    if result.bonuses:  # a group contest
        bonuses = ", ".join(f"{bonus:+d}" for bonus in result.bonuses)
        rolls = f"The median of {len(result.bonuses)} rolls of {first} ({bonuses}) against {second}"
    rows = [
        ("Rolls", rolls),
        ("Win", html.chance(odds.win)),
        ("Tie", html.chance(odds.tie)),
        ("Lose", html.chance(odds.lose)),
    ]
    tie = f'<p class="calc-rule"><strong>On a tie:</strong> {escape(odds.tie_rule)}</p>'
    top = html.headline(
        f"Win {html.percent(odds.win)}",
        f"Tie {html.percent(odds.tie)}",
        f"Lose {html.percent(odds.lose)}",
    )
    return html.Rendered(top, html.rows(rows) + tie + html.cited(result.sources, base))


def _render_group(result: CheckResult, group: mechanics.GroupResult, base: str) -> html.Rendered:
    rows = [
        ("Roll", f"{escape(group.roll)} against {group.target}"),
        *((f"Member {n}", html.chance(p)) for n, p in enumerate(group.members, start=1)),
        (
            f"Group succeeds ({group.needed} of {len(group.members)})",
            html.chance(group.success),
        ),
    ]
    top = html.headline(f"Group succeeds {html.percent(group.success)}")
    return html.Rendered(top, html.rows(rows) + html.cited(result.sources, base))


def render(result: CheckResult, request: CheckRequest, base: str) -> html.Rendered:
    odds = result.odds
    if isinstance(odds, mechanics.ContestResult):
        return _render_contest(result, odds, base)
    if isinstance(odds, mechanics.GroupResult):
        return _render_group(result, odds, base)
    one = odds.check if isinstance(odds, mechanics.ExtendedResult) else odds
    rows = [
        ("Roll", f"{escape(one.roll)}, {html.breakdown(one.breakdown)} vs {one.target}"),
        ("Success", html.chance(one.success)),
        ("Failure", html.chance(one.failure)),
    ]
    headlines = [
        f"Success {html.percent(one.success)}",
        f"Failure {html.percent(one.failure)}",
    ]
    if isinstance(odds, mechanics.ExtendedResult):
        label = f"{odds.successes} successes before {odds.failures} failures"
        rows.append((label, html.chance(odds.success)))
        headlines = [f"Challenge won {html.percent(odds.success)}"]
    else:
        if one.rounds > 1:
            rows.append((f"At least one success in {one.rounds}", html.chance(one.at_least_one)))
            headlines.append(f"In {one.rounds} rounds {html.percent(one.at_least_one)}")
            # Saves in a row ask how long an effect lasts: the headline answers that too.
            expected = one.expected_rounds
            headlines.append(
                "never succeeds" if expected is None else f"{float(expected):.2f} rounds expected"
            )
        rows.append(("Expected rounds until a success", html.rounds(one.expected_rounds)))
    return html.Rendered(
        html.headline(*headlines),
        html.rows(rows)
        + _difficulties(result.difficulties or ())
        + html.cited(result.sources, base),
    )


CALCULATOR = Calculator(CheckRequest, run, render, about=__doc__ or "")
