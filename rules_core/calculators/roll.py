"""Dice roller: a dice expression's odds, and a roll on request (seeded, reproducible)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, Payload
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


def run(request: RollRequest) -> Answer[Payload]:
    expression = parse_dice(request.expression, weapon_die=request.weapon)
    if not request.rolled:
        payload: dict[str, Any] = {
            "expression": expression.text,
            "total": None,
            "dice": None,
            "seed": request.seed,
        }
        return Answer(Payload(payload), [expression.text])
    total, dice = roll_dice(expression, random.Random(request.seed))
    payload = {"expression": expression.text, "total": total, "dice": dice, "seed": request.seed}
    return Answer(Payload(payload), [f"{expression.text}: {total}  (dice: {dice})"])


def _dice_rolled(expression: str, dice: list[list[int]]) -> str:
    """Each group's dice; where a group keeps some, the dropped ones are marked as such."""
    terms = parse_dice(expression).terms
    groups = []
    for term, rolled in zip(terms, dice, strict=True):
        if not rolled:
            continue
        kept = rolled if term.keep is None else rolled[: term.keep]
        dropped = [] if term.keep is None else rolled[term.keep :]
        text = f'{escape(term.text)}: <span class="calc-kept">{", ".join(map(str, kept))}</span>'
        if dropped:
            struck = ", ".join(f"<s>{value}</s>" for value in dropped)
            text += f'; <span class="calc-dropped">dropped {struck}</span>'
        groups.append(f"<li>{text}</li>")
    return f'<ul class="calc-dice">{"".join(groups)}</ul>'


def render(payload: html.Payload, request: RollRequest, base: str) -> html.Rendered:
    distribution = parse_dice(payload["expression"], weapon_die=request.weapon).distribution()
    odds = {
        "expression": payload["expression"],
        "min": distribution.min,
        "max": distribution.max,
        "mean": str(distribution.mean()),
        "distribution": {str(v): str(p) for v, p in distribution.items()},
    }
    parts, body = html.distribution(odds, None, what="total")
    if payload.get("total") is None:
        rolled = '<p class="calc-rolled">Press “Roll” to roll.</p>'
    else:
        parts.insert(0, f"Rolled {payload['total']}")
        rolled = (
            f'<p class="calc-rolled">Rolled <strong>{payload["total"]}</strong></p>'
            + _dice_rolled(payload["expression"], payload["dice"])
        )
    return html.Rendered(html.headline(*parts), rolled + body)


CALCULATOR = Calculator(RollRequest, run, render, about=__doc__ or "")
