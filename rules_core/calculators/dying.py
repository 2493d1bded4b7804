"""Dying: the exact odds of death saves, turn by turn and overall.

A dying character's successes and failures move by the system's `dying:` rules each turn
until they end it; the chain is rules_core.mechanics.dying, followed exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from html import escape
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, Payload, chance_line, percent, sourced
from rules_core.calculators.shared import mode_counts, mode_field
from rules_core.fields import Field, Requires
from rules_core.mechanics.dying import DyingSetup, dying
from rules_core.requests import Request, system_field
from rules_core.systems import get_system

DYING = Requires(("dying",), "dying", "death saves")
DYING_ADVANTAGE = Requires(
    ("dying", "advantage"), "advantage", "advantage and disadvantage on death saves"
)
DYING_SUCCESSES = Requires(("dying", "successes"), "successes", "counted death-save successes")
DYING_OPTIONS = Requires(("dying", "options"), "dying_options", "death-save options")


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
                source=("dying", "options"),
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

    def setup(self) -> DyingSetup:
        advantage, disadvantage = mode_counts(self.mode)
        return DyingSetup(
            bonus=self.bonus,
            advantage=advantage,
            disadvantage=disadvantage,
            successes=self.successes or 0,
            failures=self.failures,
            options=self.situations,
            turns=self.turns,
        )


def run(request: DyingRequest) -> Answer[Payload]:
    system = get_system(request.system)
    result = dying(system, request.setup())
    payload = {"system": system.slug, **result.to_json()}
    overall = result.overall
    text = [
        f"{system.title}: {result.label.lower()}, {result.roll} {result.modifier:+d}, "
        f"{result.target} or higher",
        "  one save: " + "; ".join(f"{label} {percent(p)}" for label, p in result.one_save),
        "  turn  dead     stable   up       dying",
        *(
            f"  {turn:>4}  {percent(odds.dead):>7}  {percent(odds.stable):>7}  "
            f"{percent(odds.up):>7}  {percent(odds.dying):>7}"
            for turn, odds in enumerate(result.by_turn, start=1)
        ),
        "  overall:",
        chance_line("dead", overall.dead),
        chance_line("stable", overall.stable),
        chance_line("up", overall.up),
        *([chance_line("never ends", overall.dying)] if overall.dying else []),
        *(f"    {kind}: {label} {percent(p)}" for kind, label, p in result.endings),
        "  expected saves until it ends: "
        + (
            f"{result.expected_saves} (about {float(result.expected_saves):.2f})"
            if result.expected_saves is not None
            else "it may never end"
        ),
    ]
    return sourced(payload, text, result.sources)


def render(payload: html.Payload, request: Any, base: str) -> html.Rendered:
    overall = payload["overall"]
    rows = [
        (
            "Death save",
            f"{escape(payload['roll'])} {html.signed(payload['modifier'])}, "
            f"{payload['target']} or higher",
        ),
        ("Dead", html.chance(overall["dead"])),
        ("Stable", html.chance(overall["stable"])),
        ("Back on their feet", html.chance(overall["up"])),
    ]
    if Fraction(overall["dying"]):
        rows.append(("Never ends", html.chance(overall["dying"])))
    rows.append(("Expected saves until it ends", html.rounds(payload["expected_saves"])))
    top = html.headline(
        f"Dead {html.percent(overall['dead'])}",
        f"Stable {html.percent(overall['stable'])}",
        f"Up {html.percent(overall['up'])}",
    )
    endings = "".join(
        f"<li>{escape(label)}: {html.percent(p)}</li>" for _, label, p in payload["endings"]
    )
    one_save = "".join(
        f"<li>{escape(label)}: {html.percent(p)}</li>" for label, p in payload["one_save"]
    )
    turns = "".join(
        f"<tr><td>{turn}</td>"
        + "".join(
            f"<td>{html.percent(odds[key])}</td>" for key in ("dead", "stable", "up", "dying")
        )
        + "</tr>"
        for turn, odds in enumerate(payload["by_turn"], start=1)
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
    return html.Rendered(top, html.rows(rows) + table + lists + html.sources(payload, base))


CALCULATOR = Calculator(DyingRequest, run, render, about=__doc__ or "")
