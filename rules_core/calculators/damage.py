"""Damage: a damage roll's distribution, on a critical hit too, and the chance to reach HP."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, Payload, fraction_text, percent, sourced
from rules_core.calculators.shared import (
    extra_crit_field,
    level_field,
    resistance_amounts,
    resistance_fields,
    weapon_field,
)
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


def run(request: DamageRequest) -> Answer[Payload]:
    system = get_system(request.system)
    setup = request.setup()
    result = damage(system, setup)
    payload = {
        "system": system.slug,
        "expression": result.expression,
        "min": result.minimum,
        "max": result.maximum,
        "mean": fraction_text(result.mean),
        "distribution": {
            str(value): str(probability) for value, probability in result.distribution.items()
        },
        "at_least_hp": fraction_text(result.at_least_hp),
        "description": result.description,
    }
    text = [
        f"{system.title}: {result.description}"
        + (" (critical hit)" if setup.crit else "")
        + f": min {result.minimum}, max {result.maximum}, mean {result.mean} "
        f"(about {float(result.mean):.2f})"
    ]
    if result.at_least_hp is not None:
        text.append(
            f"  P(damage >= {setup.hp}) = {result.at_least_hp} ({percent(result.at_least_hp)})"
        )
    return sourced(payload, text, result.sources)


def render(payload: html.Payload, request: DamageRequest, base: str) -> html.Rendered:
    parts, body = html.distribution(payload, request.hp)
    return html.Rendered(html.headline(*parts), body + html.sources(payload, base))


CALCULATOR = Calculator(DamageRequest, run, render, about=__doc__ or "")
