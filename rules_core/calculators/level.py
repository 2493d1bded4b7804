"""XP and level: the level, level bonus and tier an XP total reaches."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, answer
from rules_core.citations import Sources
from rules_core.fields import Field, Requires
from rules_core.mechanics.progression import level_for_xp
from rules_core.requests import Request, system_field
from rules_core.systems import get_system


@dataclass(frozen=True)
class LevelRequest(Request):
    """A character's total XP, to read their level from the system's table."""

    NAME: ClassVar[str] = "level"
    TITLE: ClassVar[str] = "XP and level"
    RULE: ClassVar[Requires | None] = Requires(("levels",), "levels", "XP and levels")
    PRIMARY: ClassVar[str] = "xp"
    system: str
    xp: int

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            system_field(),
            Field(
                "xp",
                "Experience points",
                "int",
                example="12000",
                minimum=0,
                maximum=10**9,
                option="--xp",
                requires=cls.RULE,
            ),
        )


@dataclass(frozen=True)
class LevelResult:
    system: str
    xp: int
    level: int
    level_bonus: int
    tier: str  # as the text names it ("Heroic")
    xp_for_next_level: int | None  # None at the top level
    xp_needed: int | None
    grants: tuple[tuple[str, str], ...]  # what the table lists at this level, by its column
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "xp": self.xp,
            "level": self.level,
            "level_bonus": self.level_bonus,
            "tier": self.tier.lower(),
            "xp_for_next_level": self.xp_for_next_level,
            "xp_needed": self.xp_needed,
            "grants": dict(self.grants),
            **self.sources.to_json(),
        }


def run(request: LevelRequest) -> Answer[LevelResult]:
    system = get_system(request.system)
    reached = level_for_xp(system, request.xp)
    result = LevelResult(
        system.slug,
        reached.xp,
        reached.level,
        reached.level_bonus,
        reached.tier,
        reached.xp_for_next_level,
        reached.xp_needed,
        tuple(reached.grants.items()),
        reached.sources,
    )
    following = (
        f"level {result.level + 1} at {result.xp_for_next_level:,} XP ({result.xp_needed:,} to go)"
        if result.xp_for_next_level is not None
        else "the top level"
    )
    text = [
        f"{system.title}: {result.xp:,} XP is level {result.level} ({result.tier} tier), "
        f"level bonus {result.level_bonus:+d}; next: {following}.",
        *(f"  {name}: {value}" for name, value in result.grants),
    ]
    return answer(result, text)


def render(result: LevelResult, request: LevelRequest, base: str) -> html.Rendered:
    following = (
        f"{result.xp_for_next_level:,} XP ({result.xp_needed:,} to go)"
        if result.xp_for_next_level is not None
        else "top level"
    )
    grants = "; ".join(f"{escape(value)}" for _, value in result.grants) or "—"
    tier = escape(result.tier.title())
    figures = html.rows(
        [
            ("Level", str(result.level)),
            ("Level bonus", html.signed(result.level_bonus)),
            ("Tier", tier),
            ("Next level at", following),
            ("Gained at this level", grants),
        ]
    )
    top = html.headline(
        f"Level {result.level}", f"bonus {html.signed(result.level_bonus)}", f"{tier} tier"
    )
    return html.Rendered(top, figures + html.cited(result.sources, base))


CALCULATOR = Calculator(LevelRequest, run, render, about=__doc__ or "")
