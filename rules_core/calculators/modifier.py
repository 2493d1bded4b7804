"""Ability modifier: a score's modifier, by the system's table or formula."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from rules_core.abilities import modifier
from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, sourced
from rules_core.fields import Field, Requires
from rules_core.requests import Request, system_field
from rules_core.systems import get_system


@dataclass(frozen=True)
class ModifierRequest(Request):
    """An ability score, to read its modifier by the system's rule."""

    NAME: ClassVar[str] = "modifier"
    TITLE: ClassVar[str] = "Ability modifier"
    RULE: ClassVar[Requires | None] = Requires(
        ("ability_modifier",), "ability_modifier", "ability modifiers"
    )
    PRIMARY: ClassVar[str] = "score"
    system: str
    score: int

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            system_field(),
            Field(
                "score",
                "Ability score",
                "int",
                example="15",
                minimum=1,
                maximum=30,
                option="--score",
                requires=cls.RULE,
            ),
        )


def run(request: ModifierRequest) -> Answer:
    system = get_system(request.system)
    result = modifier(system, request.score)
    payload = {"system": system.slug, "score": result.score, "modifier": result.modifier}
    text = [f"{system.title}: a score of {result.score} gives a modifier of {result.modifier:+d}."]
    return sourced(payload, text, result.sources)


def render(payload: html.Payload, request: Any, base: str) -> html.Rendered:
    figures = html.rows(
        [("Score", str(payload["score"])), ("Modifier", html.signed(payload["modifier"]))]
    )
    return html.Rendered(
        html.headline(f"Modifier {html.signed(payload['modifier'])}", f"score {payload['score']}"),
        figures + html.sources(payload, base),
    )


CALCULATOR = Calculator(ModifierRequest, run, render, about=__doc__ or "")
