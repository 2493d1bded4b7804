"""Point buy: what a set of six scores costs, and whether the text allows it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, ClassVar, Self

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, Payload, sourced
from rules_core.fields import Field, Requires
from rules_core.mechanics.abilities import point_buy
from rules_core.requests import Request, system_field
from rules_core.systems import get_system

ABILITIES = (
    ("str", "STR", "16"),
    ("con", "CON", "14"),
    ("dex", "DEX", "13"),
    ("int", "INT", "12"),
    ("wis", "WIS", "11"),
    ("cha", "CHA", "10"),
)


@dataclass(frozen=True)
class PointBuyRequest(Request):
    """Ability scores, to price by the system's point-buy method."""

    NAME: ClassVar[str] = "pointbuy"
    TITLE: ClassVar[str] = "Point buy"
    RULE: ClassVar[Requires | None] = Requires(("point_buy",), "point_buy", "a point-buy method")
    PRIMARY: ClassVar[str] = "str"
    system: str
    scores: tuple[int, ...]

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            system_field(),
            *(
                Field(
                    key,
                    label,
                    "int",
                    example=example,
                    minimum=1,
                    maximum=30,
                    option="--scores",
                    requires=cls.RULE,
                )
                for key, label, example in ABILITIES
            ),
        )

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        return cls(values["system"], tuple(values[key] for key, _, _ in ABILITIES))


def run(request: PointBuyRequest) -> Answer[Payload]:
    system = get_system(request.system)
    result = point_buy(system, request.scores)
    payload = {
        "system": system.slug,
        "scores": list(result.scores),
        "cost": result.cost,
        "budget": result.budget,
        "remaining": result.remaining,
        "valid": result.valid,
        "problems": result.problems,
    }
    verdict = "valid" if result.valid else "not valid"
    text = [
        f"{system.title}: scores {', '.join(map(str, result.scores))} cost {result.cost} "
        f"of {result.budget} points ({result.remaining} left): {verdict}.",
        *(f"  - {problem}" for problem in result.problems),
    ]
    return sourced(payload, text, result.sources)


def render(payload: html.Payload, request: Any, base: str) -> html.Rendered:
    verdict = "Valid" if payload["valid"] else "Not valid"
    figures = html.rows(
        [
            ("Cost", f"{payload['cost']} of {payload['budget']} points"),
            ("Remaining", str(payload["remaining"])),
            ("Set", verdict),
        ]
    )
    problems = "".join(f"<li>{escape(problem)}</li>" for problem in payload["problems"])
    listed = f'<ul class="calc-problems">{problems}</ul>' if problems else ""
    top = html.headline(
        f"Cost {payload['cost']} of {payload['budget']}", f"{payload['remaining']} left", verdict
    )
    return html.Rendered(top, figures + listed + html.sources(payload, base))


CALCULATOR = Calculator(PointBuyRequest, run, render, about=__doc__ or "")
