"""Damage: a damage roll's distribution, on a critical hit too, and the chance to reach HP."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, answer, fraction_text, percent
from rules_core.calculators.shared import (
    Odds,
    extra_crit_field,
    level_field,
    resistance_amounts,
    resistance_fields,
    weapon_field,
)
from rules_core.citations import Sources
from rules_core.fields import Field, Requires
from rules_core.mechanics.damage import DamageSetup, damage
from rules_core.requests import Request, system_field
from rules_core.systems import get_system


@dataclass(frozen=True)
class DamageRequest(Request):
    """A damage roll, on a critical hit too, and against resistance or vulnerability."""

    NAME: ClassVar[str] = "damage"
    TITLE: ClassVar[str] = "Damage"
    RULE: ClassVar[Requires | None] = Requires(("damage",), "damage", "damage")
    PRIMARY: ClassVar[str] = "expression"
    system: str
    expression: str
    crit: bool = False
    weapon: int | None = None
    level: int | None = None
    extra_crit: str | None = None
    resistance: int | None = None
    vulnerability: int | None = None
    resistant: bool = False
    vulnerable: bool = False
    hp: int | None = None

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        rule = cls.RULE
        return (
            system_field(),
            Field(
                "expression", "Damage roll", "dice", example="2d6+3", option="EXPR", requires=rule
            ),
            Field("crit", "Critical hit", "check", option="--crit", requires=rule),
            Field(
                "hp",
                "Hit points to reach",
                "int",
                minimum=1,
                maximum=100000,
                optional=True,
                option="--hp",
                requires=rule,
            ),
            weapon_field(),
            level_field(),
            extra_crit_field(),
            *resistance_fields(
                ("Resistance", "Vulnerability", "Resistant", "Vulnerable"),
                ("--resist", "--vulnerable"),
            ),
        )

    def setup(self) -> DamageSetup:
        resistance, vulnerability = resistance_amounts(
            self.resistance, self.vulnerability, self.resistant, self.vulnerable
        )
        return DamageSetup(
            expression=self.expression,
            crit=self.crit,
            weapon_die=self.weapon,
            level=self.level,
            extra_crit=self.extra_crit,
            resistance=resistance,
            vulnerability=vulnerability,
            hp=self.hp,
        )


@dataclass(frozen=True)
class DamageResult:
    system: str
    expression: str  # what was rolled, after the critical-hit rule
    odds: Odds
    hp: int | None  # the hit points asked about
    at_least_hp: Fraction | None  # the chance to deal them; None when none were asked about
    description: str  # how the critical-hit rule changed the roll, in words
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "expression": self.expression,
            **self.odds.to_json(),
            "at_least_hp": fraction_text(self.at_least_hp),
            "description": self.description,
            **self.sources.to_json(),
        }


def run(request: DamageRequest) -> Answer[DamageResult]:
    system = get_system(request.system)
    setup = request.setup()
    rolled = damage(system, setup)
    result = DamageResult(
        system.slug,
        rolled.expression,
        Odds.of(rolled.distribution),
        setup.hp,
        rolled.at_least_hp,
        rolled.description,
        rolled.sources,
    )
    odds = result.odds
    text = [
        f"{system.title}: {result.description}"
        + (" (critical hit)" if setup.crit else "")
        + f": min {odds.minimum}, max {odds.maximum}, mean {odds.mean} "
        f"(about {float(odds.mean):.2f})"
    ]
    if result.at_least_hp is not None:
        text.append(
            f"  P(damage >= {result.hp}) = {result.at_least_hp} ({percent(result.at_least_hp)})"
        )
    return answer(result, text)


def render(result: DamageResult, request: DamageRequest, base: str) -> html.Rendered:
    parts, body = html.distribution(
        result.expression,
        result.odds,
        description=result.description,
        hp=result.hp,
        at_least_hp=result.at_least_hp,
    )
    return html.Rendered(html.headline(*parts), body + html.cited(result.sources, base))


CALCULATOR = Calculator(DamageRequest, run, render, about=__doc__ or "")
