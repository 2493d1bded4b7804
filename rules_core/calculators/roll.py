"""Dice roller: a dice expression's odds, and a roll on request (seeded, reproducible)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator
from rules_core.calculators.shared import Odds
from rules_core.citations import Sources
from rules_core.dice import parse as parse_dice
from rules_core.dice import roll as roll_dice
from rules_core.fields import Field
from rules_core.requests import Request

MAX_SEED = 2**53  # a whole number JavaScript's numbers hold exactly


@dataclass(frozen=True)
class RollRequest(Request):
    """A dice expression: its odds, and a roll only when one is asked for."""

    NAME: ClassVar[str] = "roll"
    TITLE: ClassVar[str] = "Dice roller"
    PRIMARY: ClassVar[str] = "expression"
    expression: str
    seed: int | None = None
    rolled: bool = False  # False: the odds only; a page never shows a roll nobody asked for
    weapon: int | None = None

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            Field("expression", "Dice", "dice", example="4d6kh3", option="EXPR"),
            Field(
                "seed",
                "Seed (optional)",
                "int",
                minimum=0,
                maximum=MAX_SEED,
                optional=True,
                option="--seed",
            ),
            # The command line rolls unless told not to; a page never shows a roll nobody asked for.
            Field("rolled", "Roll", "check", default="on", example="off", option="--odds-only"),
            Field(
                "weapon", "Weapon die (for dW)", "die", optional=True, option="--weapon", more=True
            ),
        )


@dataclass(frozen=True)
class RolledGroup:
    """One term's dice as rolled: the ones that count, then any its keep rule dropped."""

    term: str  # the term as written in the expression ("4d6kh3"; a number rolls none)
    kept: tuple[int, ...]
    dropped: tuple[int, ...]


@dataclass(frozen=True)
class RollResult:
    expression: str
    odds: Odds  # what a page shows with or without a roll
    seed: int | None
    total: int | None = None  # None: nobody asked for a roll
    dice: tuple[RolledGroup, ...] | None = None  # a group per term, in order

    @property
    def sources(self) -> Sources:
        """A roll rests on no system's rules."""
        return Sources()

    def to_json(self) -> dict[str, Any]:
        dice = None if self.dice is None else [[*g.kept, *g.dropped] for g in self.dice]
        return {"expression": self.expression, "total": self.total, "dice": dice, "seed": self.seed}


def run(request: RollRequest) -> Answer[RollResult]:
    expression = parse_dice(request.expression, weapon_die=request.weapon)
    odds = Odds.of(expression.distribution())
    if not request.rolled:
        return Answer(RollResult(expression.text, odds, request.seed), [expression.text])
    total, dice = roll_dice(expression, random.Random(request.seed))
    groups = tuple(
        RolledGroup(term.text, tuple(rolled[: term.kept]), tuple(rolled[term.kept :]))
        for term, rolled in zip(expression.terms, dice, strict=True)
    )
    result = RollResult(expression.text, odds, request.seed, total, groups)
    return Answer(result, [f"{expression.text}: {total}  (dice: {dice})"])


def _dice_rolled(groups: tuple[RolledGroup, ...]) -> str:
    """Each group's dice; where a group keeps some, the dropped ones are marked as such."""
    listed = []
    for group in groups:
        if not group.kept and not group.dropped:
            continue  # a number: no dice to show
        kept = ", ".join(map(str, group.kept))
        text = f'{escape(group.term)}: <span class="calc-kept">{kept}</span>'
        if group.dropped:
            struck = ", ".join(f"<s>{value}</s>" for value in group.dropped)
            text += f'; <span class="calc-dropped">dropped {struck}</span>'
        listed.append(f"<li>{text}</li>")
    return f'<ul class="calc-dice">{"".join(listed)}</ul>'


def render(result: RollResult, request: RollRequest, base: str) -> html.Rendered:
    parts, body = html.distribution(result.expression, result.odds, what="total")
    if result.total is None or result.dice is None:
        rolled = '<p class="calc-rolled">Press “Roll” to roll.</p>'
    else:
        parts.insert(0, f"Rolled {result.total}")
        rolled = (
            f'<p class="calc-rolled">Rolled <strong>{result.total}</strong></p>'
            + _dice_rolled(result.dice)
        )
    return html.Rendered(html.headline(*parts), rolled + body)


CALCULATOR = Calculator(RollRequest, run, render, about=__doc__ or "")
