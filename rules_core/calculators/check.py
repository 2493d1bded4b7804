"""Checks and saves: the chance a check or save meets its target, over rounds, in a contest,
a group check or an extended challenge, with the difficulties the text names."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from html import escape
from typing import Any, ClassVar, Self

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, Payload, chance_line, percent, sourced
from rules_core.calculators.shared import escalation_field, mode_counts, mode_field
from rules_core.fields import Field, Requires
from rules_core.mechanics.checks import (
    MAX_GROUP,
    CheckSetup,
    ContestResult,
    Side,
    check,
    contest,
    extended_challenge,
    group_check,
    group_contest,
    named_difficulties,
)
from rules_core.numbers import read_whole, shown
from rules_core.requests import InputErrors, Request, system_field
from rules_core.systems import RulesError, System, get_system

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
    if len(values) >= MAX_GROUP:
        raise InputErrors({"group": f"At most {MAX_GROUP - 1} other members."})
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

    def setup(self) -> CheckSetup:
        advantage, disadvantage = mode_counts(self.mode)
        return CheckSetup(
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


def _difficulty_rows(system: System, kind: str) -> list[list[Any]]:
    """The named difficulties the text gives for the roll, shown beside the answer."""
    return [
        [row.label, row.value, list(row.levels) if row.levels else None]
        for row in named_difficulties(system, kind)
    ]


def _contest_answer(
    system: System,
    kind: str,
    result: ContestResult,
    heading: str,
    outcomes: tuple[str, str],
    **extra: Any,
) -> Answer[Payload]:
    """A contest's answer, one side's or a group's: win, tie, lose and the tie rule."""
    payload = {"system": system.slug, "kind": kind, **extra, **result.to_json()}
    win, lose = outcomes
    text = [
        heading,
        chance_line(win, result.win),
        chance_line("tie", result.tie),
        chance_line(lose, result.lose),
        f"  on a tie: {result.tie_rule}",
    ]
    return sourced(payload, text, result.sources)


def run(request: CheckRequest) -> Answer[Payload]:
    system = get_system(request.system)
    setup = request.setup()
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
    rows = _difficulty_rows(system, request.roll)
    if request.versus is not None and request.group:
        members = (request.bonus, *request.group)
        result = group_contest(
            system, members, Side(request.versus), setup.advantage, setup.disadvantage
        )
        listed = ", ".join(f"{bonus:+d}" for bonus in members)
        heading = (
            f"{system.title}: group contest, the median of {len(members)} rolls of "
            f"{result.rolls[0]} ({listed}) against {result.rolls[1]} {request.versus:+d}"
        )
        outcomes = ("group wins", "group loses")
        return _contest_answer(
            system, "group-contest", result, heading, outcomes, bonuses=list(members)
        )
    if request.versus is not None:
        advantage, disadvantage = setup.advantage, setup.disadvantage
        result = contest(system, Side(request.bonus, advantage, disadvantage), Side(request.versus))
        heading = (
            f"{system.title}: contest, {result.rolls[0]} {request.bonus:+d} against "
            f"{result.rolls[1]} {request.versus:+d}"
        )
        return _contest_answer(system, "contest", result, heading, ("win", "lose"))
    target = request.target
    if request.group:
        group = group_check(
            system,
            (request.bonus, *request.group),
            target,
            setup.advantage,
            setup.disadvantage,
            difficulty=request.difficulty,
            level=request.level,
        )
        payload = {"system": system.slug, "kind": "group", **group.to_json()}
        text = [
            f"{system.title}: group check of {len(group.members)}, {group.roll} against "
            f"{group.target}; {group.needed} must succeed",
            *(chance_line(f"member {n}", p) for n, p in enumerate(group.members, start=1)),
            chance_line("group", group.success),
        ]
        return sourced(payload, text, group.sources)
    if request.successes is not None:
        challenge = extended_challenge(system, setup, request.successes)
        payload = {
            "system": system.slug,
            "kind": "extended",
            "difficulties": rows,
            **challenge.to_json(),
        }
        one = challenge.check
        text = [
            f"{system.title}: {challenge.label.lower()}, {one.roll} {one.modifier:+d} against "
            f"{one.target}: {challenge.successes} successes before {challenge.failures} failures",
            chance_line("each check", one.success),
            chance_line("challenge", challenge.success),
        ]
        return sourced(payload, text, challenge.sources)
    checked = check(system, setup)
    payload = {
        "system": system.slug,
        "kind": request.roll,
        "difficulties": rows,
        **checked.to_json(),
    }
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
    text += [
        f"  difficulty: {label} {value}" + (f" (levels {levels[0]}-{levels[1]})" if levels else "")
        for label, value, levels in rows
    ]
    return sourced(payload, text, checked.sources)


def _difficulties(payload: html.Payload) -> str:
    """The text's named difficulties, so the table's DCs are one glance away."""
    rows = payload.get("difficulties") or []
    if not rows:
        return ""
    body = "".join(
        f"<tr><td>{escape(label)}</td><td>{value}</td>"
        f"<td>{f'{levels[0]}-{levels[1]}' if levels else 'any'}</td></tr>"
        for label, value, levels in rows
    )
    return (
        '<table class="calc-difficulties"><caption>Difficulties the text names</caption>'
        "<thead><tr><th>Name</th><th>Target</th><th>Levels</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def render(payload: html.Payload, request: Any, base: str) -> html.Rendered:
    kind = payload["kind"]
    if kind in ("contest", "group-contest"):
        rolls = f"{escape(payload['rolls'][0])} against {escape(payload['rolls'][1])}"
        if kind == "group-contest":
            bonuses = ", ".join(f"{bonus:+d}" for bonus in payload["bonuses"])
            rolls = (
                f"The median of {len(payload['bonuses'])} rolls of "
                f"{escape(payload['rolls'][0])} ({bonuses}) against {escape(payload['rolls'][1])}"
            )
        rows = [
            ("Rolls", rolls),
            ("Win", html.chance(payload["win"])),
            ("Tie", html.chance(payload["tie"])),
            ("Lose", html.chance(payload["lose"])),
        ]
        tie = f'<p class="calc-rule"><strong>On a tie:</strong> {escape(payload["tie_rule"])}</p>'
        top = html.headline(
            f"Win {html.percent(payload['win'])}",
            f"Tie {html.percent(payload['tie'])}",
            f"Lose {html.percent(payload['lose'])}",
        )
        return html.Rendered(top, html.rows(rows) + tie + html.sources(payload, base))
    if kind == "group":
        members = payload["members"]
        rows = [
            ("Roll", f"{escape(payload['roll'])} against {payload['target']}"),
            *((f"Member {n}", html.chance(p)) for n, p in enumerate(members, start=1)),
            (
                f"Group succeeds ({payload['needed']} of {len(members)})",
                html.chance(payload["success"]),
            ),
        ]
        top = html.headline(f"Group succeeds {html.percent(payload['success'])}")
        return html.Rendered(top, html.rows(rows) + html.sources(payload, base))
    bonus = f", {html.breakdown(payload['breakdown'])}" if payload.get("breakdown") else ""
    rows = [
        ("Roll", f"{escape(payload['roll'])}{bonus} vs {payload['target']}"),
        ("Success", html.chance(payload["success"])),
        ("Failure", html.chance(payload["failure"])),
    ]
    headlines = [
        f"Success {html.percent(payload['success'])}",
        f"Failure {html.percent(payload['failure'])}",
    ]
    if kind == "extended":
        label = f"{payload['successes']} successes before {payload['failures']} failures"
        rows.append((label, html.chance(payload["challenge"])))
        headlines = [f"Challenge won {html.percent(payload['challenge'])}"]
    else:
        if payload["rounds"] > 1:
            rows.append(
                (
                    f"At least one success in {payload['rounds']}",
                    html.chance(payload["at_least_one"]),
                )
            )
            headlines.append(
                f"In {payload['rounds']} rounds {html.percent(payload['at_least_one'])}"
            )
            # Saves in a row ask how long an effect lasts: the headline answers that too.
            expected = payload["expected_rounds"]
            headlines.append(
                "never succeeds"
                if expected is None
                else f"{float(Fraction(expected)):.2f} rounds expected"
            )
        rows.append(("Expected rounds until a success", html.rounds(payload["expected_rounds"])))
    return html.Rendered(
        html.headline(*headlines),
        html.rows(rows) + _difficulties(payload) + html.sources(payload, base),
    )


CALCULATOR = Calculator(CheckRequest, run, render, about=__doc__ or "")
