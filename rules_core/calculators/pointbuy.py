"""Point buy: what a set of six scores costs, and whether the text allows it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, ClassVar, Self

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, answer
from rules_core.citations import Sources
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


@dataclass(frozen=True)
class PointBuyResult:
    system: str
    scores: tuple[int, ...]
    cost: int
    budget: int
    remaining: int
    problems: tuple[str, ...]  # each rule of the text the set breaks; none when it is valid
    sources: Sources

    @property
    def valid(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "scores": list(self.scores),
            "cost": self.cost,
            "budget": self.budget,
            "remaining": self.remaining,
            "valid": self.valid,
            "problems": list(self.problems),
            **self.sources.to_json(),
        }


def run(request: PointBuyRequest) -> Answer[PointBuyResult]:
    system = get_system(request.system)
    bought = point_buy(system, request.scores)
    result = PointBuyResult(
        system.slug,
        bought.scores,
        bought.cost,
        bought.budget,
        bought.remaining,
        tuple(bought.problems),
        bought.sources,
    )
    verdict = "valid" if result.valid else "not valid"
    text = [
        f"{system.title}: scores {', '.join(map(str, result.scores))} cost {result.cost} "
        f"of {result.budget} points ({result.remaining} left): {verdict}.",
        *(f"  - {problem}" for problem in result.problems),
    ]
    return answer(result, text)


def render(result: PointBuyResult, request: PointBuyRequest, base: str) -> html.Rendered:
    verdict = "Valid" if result.valid else "Not valid"
    figures = html.rows(
        [
            ("Cost", f"{result.cost} of {result.budget} points"),
            ("Remaining", str(result.remaining)),
            ("Set", verdict),
        ]
    )
    problems = "".join(f"<li>{escape(problem)}</li>" for problem in result.problems)
    listed = f'<ul class="calc-problems">{problems}</ul>' if problems else ""
    top = html.headline(
        f"Cost {result.cost} of {result.budget}", f"{result.remaining} left", verdict
    )
    return html.Rendered(top, figures + listed + html.cited(result.sources, base))


CALCULATOR = Calculator(PointBuyRequest, run, render, about=__doc__ or "")
