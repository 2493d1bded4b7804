"""Rolled ability scores: the odds of one score rolled the text's way."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, answer
from rules_core.calculators.shared import Odds
from rules_core.citations import Sources
from rules_core.fields import Field, Requires
from rules_core.mechanics.abilities import rolled_score
from rules_core.requests import Request, system_field
from rules_core.systems import get_system


@dataclass(frozen=True)
class AbilityRollRequest(Request):
    """A system, for the odds of its method of rolling ability scores."""

    NAME: ClassVar[str] = "abilityroll"
    TITLE: ClassVar[str] = "Rolled ability scores"
    RULE: ClassVar[Requires | None] = Requires(
        ("ability_roll",), "ability_roll", "a method of rolling ability scores"
    )
    PRIMARY: ClassVar[str] = "system"
    system: str

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (system_field(),)


@dataclass(frozen=True)
class AbilityRollResult:
    system: str
    expression: str  # how the text rolls one score
    odds: Odds
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "expression": self.expression,
            **self.odds.to_json(),
            **self.sources.to_json(),
        }


def run(request: AbilityRollRequest) -> Answer[AbilityRollResult]:
    system = get_system(request.system)
    distribution, expression, sources = rolled_score(system)
    result = AbilityRollResult(system.slug, expression, Odds.of(distribution), sources)
    odds = result.odds
    text = [
        f"{system.title}: each score is rolled as {expression}: {odds.minimum} to "
        f"{odds.maximum}, mean {odds.mean} (about {float(odds.mean):.2f})"
    ]
    return answer(result, text)


def render(result: AbilityRollResult, request: AbilityRollRequest, base: str) -> html.Rendered:
    expression = escape(result.expression)
    figures = html.rows(
        [
            ("Roll", expression),
            ("Range", f"{result.odds.minimum} to {result.odds.maximum}"),
            ("Mean", html.mean(result.odds.mean)),
        ]
    )
    top, chart = html.odds(
        result.odds,
        label="Score",
        caption=f"Chance of each score rolled with {result.expression}",
    )
    return html.Rendered(
        html.headline(top, expression),
        figures + chart + html.cited(result.sources, base),
    )


CALCULATOR = Calculator(AbilityRollRequest, run, render, about=__doc__ or "")
