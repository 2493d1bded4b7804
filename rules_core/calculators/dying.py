"""Dying: the exact odds of death saves, turn by turn and overall.

A dying character's successes and failures move by the system's `dying:` rules each turn
until they end it; the chain is rules_core.mechanics.dying, followed exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, answer, chance_line, percent
from rules_core.calculators.shared import mode_counts, mode_field
from rules_core.citations import Sources
from rules_core.fields import DEATH_SAVE_OPTIONS, Field, Requires
from rules_core.mechanics import dying as mechanics
from rules_core.requests import Request, system_field
from rules_core.systems import get_system

DYING = Requires(("dying",), "dying", "death saves")
DYING_ADVANTAGE = Requires(
    ("dying", "advantage"), "advantage", "advantage and disadvantage on death saves"
)
DYING_SUCCESSES = Requires(("dying", "successes"), "successes", "counted death-save successes")
DYING_OPTIONS = Requires(DEATH_SAVE_OPTIONS, "dying_options", "death-save options")


@dataclass(frozen=True)
class DyingRequest(Request):
    """A dying character's death saves, as the form and the command line ask them."""

    NAME: ClassVar[str] = "dying"
    TITLE: ClassVar[str] = "Dying"
    RULE: ClassVar[Requires | None] = DYING
    PRIMARY: ClassVar[str] = "bonus"
    system: str
    bonus: int = 0
    mode: str = "normal"
    successes: int | None = None
    failures: int = 0
    situations: tuple[str, ...] = ()
    turns: int = 3

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            system_field(),
            Field(
                "bonus",
                "Bonus to death saves",
                "int",
                default="0",
                minimum=-100,
                maximum=100,
                option="--bonus",
                requires=DYING,
            ),
            mode_field("Advantage", DYING_ADVANTAGE),
            Field(
                "failures",
                "Failures already marked",
                "int",
                default="0",
                minimum=0,
                maximum=10,
                option="--failures",
                requires=DYING,
            ),
            Field(
                "successes",
                "Successes already marked",
                "int",
                default="0",
                minimum=0,
                maximum=10,
                optional=True,
                unset="0",
                option="--successes",
                requires=DYING_SUCCESSES,
            ),
            Field(
                "situations",
                "Situation",
                "situations",
                option="--option",
                requires=DYING_OPTIONS,
                source=DEATH_SAVE_OPTIONS,
            ),
            Field(
                "turns",
                "Turns",
                "int",
                default="3",
                minimum=1,
                maximum=100,
                option="--turns",
                requires=DYING,
            ),
        )

    def setup(self) -> mechanics.DyingSetup:
        advantage, disadvantage = mode_counts(self.mode)
        return mechanics.DyingSetup(
            bonus=self.bonus,
            advantage=advantage,
            disadvantage=disadvantage,
            successes=self.successes or 0,
            failures=self.failures,
            options=self.situations,
            turns=self.turns,
        )


@dataclass(frozen=True)
class DyingResult:
    """Death saves as the page shows them: the dying chain's answer for the system."""

    system: str
    saves: mechanics.DyingResult
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {"system": self.system, **self.saves.to_json()}


def run(request: DyingRequest) -> Answer[DyingResult]:
    system = get_system(request.system)
    saves = mechanics.dying(system, request.setup())
    overall = saves.overall
    text = [
        f"{system.title}: {saves.label.lower()}, {saves.roll} {saves.modifier:+d}, "
        f"{saves.target} or higher",
        "  one save: " + "; ".join(f"{label} {percent(p)}" for label, p in saves.one_save),
        "  turn  dead     stable   up       dying",
        *(
            f"  {turn:>4}  {percent(odds.dead):>7}  {percent(odds.stable):>7}  "
            f"{percent(odds.up):>7}  {percent(odds.dying):>7}"
            for turn, odds in enumerate(saves.by_turn, start=1)
        ),
        "  overall:",
        chance_line("dead", overall.dead),
        chance_line("stable", overall.stable),
        chance_line("up", overall.up),
        *([chance_line("never ends", overall.dying)] if overall.dying else []),
        *(f"    {kind}: {label} {percent(p)}" for kind, label, p in saves.endings),
        "  expected saves until it ends: "
        + (
            f"{saves.expected_saves} (about {float(saves.expected_saves):.2f})"
            if saves.expected_saves is not None
            else "it may never end"
        ),
    ]
    return answer(DyingResult(system.slug, saves, saves.sources), text)


def render(result: DyingResult, request: DyingRequest, base: str) -> html.Rendered:
    saves = result.saves
    overall = saves.overall
    rows = [
        (
            "Death save",
            f"{escape(saves.roll)} {html.signed(saves.modifier)}, {saves.target} or higher",
        ),
        ("Dead", html.chance(overall.dead)),
        ("Stable", html.chance(overall.stable)),
        ("Back on their feet", html.chance(overall.up)),
    ]
    if overall.dying:
        rows.append(("Never ends", html.chance(overall.dying)))
    rows.append(("Expected saves until it ends", html.rounds(saves.expected_saves)))
    top = html.headline(
        f"Dead {html.percent(overall.dead)}",
        f"Stable {html.percent(overall.stable)}",
        f"Up {html.percent(overall.up)}",
    )
    endings = "".join(
        f"<li>{escape(label)}: {html.percent(p)}</li>" for _, label, p in saves.endings
    )
    one_save = "".join(
        f"<li>{escape(label)}: {html.percent(p)}</li>" for label, p in saves.one_save
    )
    turns = "".join(
        f"<tr><td>{turn}</td>"
        + "".join(
            f"<td>{html.percent(chance)}</td>"
            for chance in (odds.dead, odds.stable, odds.up, odds.dying)
        )
        + "</tr>"
        for turn, odds in enumerate(saves.by_turn, start=1)
    )
    table = (
        '<table class="calc-turns"><caption>After each turn</caption><thead><tr>'
        "<th>Turn</th><th>Dead</th><th>Stable</th><th>Up</th><th>Still dying</th>"
        f"</tr></thead><tbody>{turns}</tbody></table>"
    )
    lists = (
        f'<p>One save:</p><ul class="calc-outcomes">{one_save}</ul>'
        f'<p>How it ends:</p><ul class="calc-outcomes">{endings}</ul>'
    )
    return html.Rendered(top, html.rows(rows) + table + lists + html.cited(result.sources, base))


CALCULATOR = Calculator(DyingRequest, run, render, about=__doc__ or "")
