"""Ability modifier: a score's modifier, by the system's table or formula."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, answer
from rules_core.citations import Sources
from rules_core.fields import Field, Requires
from rules_core.mechanics.abilities import modifier
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


@dataclass(frozen=True)
class ModifierResult:
    system: str
    score: int
    modifier: int
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "score": self.score,
            "modifier": self.modifier,
            **self.sources.to_json(),
        }


def run(request: ModifierRequest) -> Answer[ModifierResult]:
    system = get_system(request.system)
    found = modifier(system, request.score)
    result = ModifierResult(system.slug, found.score, found.modifier, found.sources)
    text = [f"{system.title}: a score of {found.score} gives a modifier of {found.modifier:+d}."]
    return answer(result, text)


def render(result: ModifierResult, request: ModifierRequest, base: str) -> html.Rendered:
    figures = html.rows([("Score", str(result.score)), ("Modifier", html.signed(result.modifier))])
    return html.Rendered(
        html.headline(f"Modifier {html.signed(result.modifier)}", f"score {result.score}"),
        figures + html.cited(result.sources, base),
    )


CALCULATOR = Calculator(ModifierRequest, run, render, about=__doc__ or "")
