"""Rolled ability scores: the odds of one score rolled the text's way."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, Payload, sourced
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


def run(request: AbilityRollRequest) -> Answer[Payload]:
    system = get_system(request.system)
    distribution, expression, sources = rolled_score(system)
    payload = {
        "system": system.slug,
        "expression": expression,
        "min": distribution.min,
        "max": distribution.max,
        "mean": str(distribution.mean()),
        "distribution": {str(value): str(p) for value, p in distribution.items()},
    }
    text = [
        f"{system.title}: each score is rolled as {expression}: {distribution.min} to "
        f"{distribution.max}, mean {distribution.mean()} (about {float(distribution.mean()):.2f})"
    ]
    return sourced(payload, text, sources)


def render(payload: html.Payload, request: Any, base: str) -> html.Rendered:
    figures = html.rows(
        [
            ("Roll", escape(payload["expression"])),
            ("Range", f"{payload['min']} to {payload['max']}"),
            ("Mean", html.mean(payload["mean"])),
        ]
    )
    top, chart = html.odds(
        payload,
        label="Score",
        caption=f"Chance of each score rolled with {payload['expression']}",
    )
    return html.Rendered(
        html.headline(top, escape(payload["expression"])),
        figures + chart + html.sources(payload, base),
    )


CALCULATOR = Calculator(AbilityRollRequest, run, render, about=__doc__ or "")
