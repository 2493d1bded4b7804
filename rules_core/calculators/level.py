"""XP and level: the level, level bonus and tier an XP total reaches."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, Payload, sourced
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


def run(request: LevelRequest) -> Answer[Payload]:
    system = get_system(request.system)
    result = level_for_xp(system, request.xp)
    payload = {
        "system": system.slug,
        "xp": result.xp,
        "level": result.level,
        "level_bonus": result.level_bonus,
        "tier": result.tier.lower(),
        "xp_for_next_level": result.xp_for_next_level,
        "xp_needed": result.xp_needed,
        "grants": result.grants,
    }
    following = (
        f"level {result.level + 1} at {result.xp_for_next_level:,} XP ({result.xp_needed:,} to go)"
        if result.xp_for_next_level is not None
        else "the top level"
    )
    text = [
        f"{system.title}: {result.xp:,} XP is level {result.level} ({result.tier} tier), "
        f"level bonus {result.level_bonus:+d}; next: {following}.",
        *(f"  {name}: {value}" for name, value in result.grants.items()),
    ]
    return sourced(payload, text, result.sources)


def render(payload: html.Payload, request: Any, base: str) -> html.Rendered:
    following = (
        f"{payload['xp_for_next_level']:,} XP ({payload['xp_needed']:,} to go)"
        if payload["xp_for_next_level"] is not None
        else "top level"
    )
    grants = "; ".join(f"{escape(value)}" for value in payload["grants"].values()) or "—"
    tier = escape(payload["tier"].title())
    figures = html.rows(
        [
            ("Level", str(payload["level"])),
            ("Level bonus", html.signed(payload["level_bonus"])),
            ("Tier", tier),
            ("Next level at", following),
            ("Gained at this level", grants),
        ]
    )
    top = html.headline(
        f"Level {payload['level']}", f"bonus {html.signed(payload['level_bonus'])}", f"{tier} tier"
    )
    return html.Rendered(top, figures + html.sources(payload, base))


CALCULATOR = Calculator(LevelRequest, run, render, about=__doc__ or "")
