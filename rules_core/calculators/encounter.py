"""Encounter budget: a party's XP budget and the share the chosen monsters take of it."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from html import escape
from typing import Any, ClassVar, Self

from rules_core.calculators import html
from rules_core.calculators.address import calculator_address
from rules_core.calculators.base import Answer, Calculator, answer, percent
from rules_core.calculators.fight import FightRequest
from rules_core.citations import Sources
from rules_core.fields import Field, Requires
from rules_core.mechanics.encounters import Monster, encounter
from rules_core.requests import InputErrors, Request, system_field
from rules_core.systems import get_system, system_slugs

RULE = Requires(("encounter",), "encounter", "an encounter budget")


@cache
def _ranks() -> tuple[tuple[str, str], ...]:
    """Every rank some system's encounter rules name, in their order (from data)."""
    seen: dict[str, str] = {}
    for slug in system_slugs():
        system = get_system(slug)
        if not RULE.met(system):
            continue
        for rank, column in system.encounter.ranks.items():
            seen.setdefault(rank, column)
    return tuple(seen.items())


@cache
def monster_fields(row: int) -> tuple[Field, Field, Field]:
    group = f"Monster {row}"
    return (
        Field(
            f"m{row}_level",
            "Level",
            "int",
            example="1",
            minimum=1,
            maximum=30,
            optional=True,
            option="--monster",
            requires=RULE,
            group=group,
        ),
        Field(
            f"m{row}_rank",
            "Rank",
            "choice",
            example="standard",
            choices=_ranks(),
            optional=True,
            option="--monster",
            requires=RULE,
            group=group,
        ),
        Field(
            f"m{row}_count",
            "Count",
            "int",
            default="1",  # a monster given without a count on the command line
            example="4" if row == 1 else "0",
            minimum=0,
            maximum=1000,
            optional=True,
            unset="0",
            option="--monster",
            requires=RULE,
            group=group,
        ),
    )


@dataclass(frozen=True)
class EncounterRequest(Request):
    """A party, and the monsters of an encounter by level, rank and count."""

    NAME: ClassVar[str] = "encounter"
    TITLE: ClassVar[str] = "Encounter budget"
    RULE: ClassVar[Requires | None] = RULE
    PRIMARY: ClassVar[str] = "party"
    MAX_ROWS: ClassVar[int] = 100
    FORM_ROWS: ClassVar[int] = 4  # monster rows the form shows
    ROW_KEY: ClassVar[str] = "m{row}_count"
    system: str
    party: int
    level: int
    monsters: tuple[Monster, ...] = ()

    @classmethod
    def fields_before_rows(cls) -> tuple[Field, ...]:
        return (
            system_field(),
            Field(
                "party",
                "Characters",
                "int",
                example="4",
                minimum=1,
                maximum=100,
                option="--party",
                requires=RULE,
            ),
            Field(
                "level",
                "Party level",
                "int",
                example="1",
                minimum=1,
                maximum=30,
                option="--level",
                requires=RULE,
            ),
        )

    @classmethod
    def row_fields(cls, row: int) -> tuple[Field, ...]:
        return monster_fields(row)

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        monsters = []
        errors: dict[str, str] = {}
        row = 1
        while cls.ROW_KEY.format(row=row) in values:
            count = values[f"m{row}_count"]
            if count:
                level, rank = values[f"m{row}_level"], values[f"m{row}_rank"]
                if level is None:
                    errors[f"m{row}_level"] = "Enter a whole number."
                if rank is None:
                    errors[f"m{row}_rank"] = "Choose a rank."
                if level is not None and rank is not None:
                    monsters.append(Monster(level, rank, count))
            row += 1
        if errors:
            raise InputErrors(errors)
        return cls(values["system"], values["party"], values["level"], tuple(monsters))


@dataclass(frozen=True)
class MonsterXP:
    """A group of monsters of the encounter and the XP it is worth."""

    monster: Monster
    xp: int

    def to_json(self) -> dict[str, Any]:
        monster = self.monster
        return {"level": monster.level, "rank": monster.rank, "count": monster.count, "xp": self.xp}


@dataclass(frozen=True)
class EncounterResult:
    system: str
    party: int
    level: int
    budget: int
    total_xp: int
    share: Fraction  # of the budget the monsters take
    xp_per_character: Fraction
    monsters: tuple[MonsterXP, ...]
    sources: Sources

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "party": self.party,
            "level": self.level,
            "budget": self.budget,
            "total_xp": self.total_xp,
            "share": str(self.share),
            "xp_per_character": str(self.xp_per_character),
            "monsters": [group.to_json() for group in self.monsters],
            **self.sources.to_json(),
        }


def run(request: EncounterRequest) -> Answer[EncounterResult]:
    system = get_system(request.system)
    built = encounter(system, request.party, request.level, request.monsters)
    result = EncounterResult(
        system.slug,
        built.party,
        built.level,
        built.budget,
        built.total_xp,
        built.share,
        built.xp_per_character,
        tuple(MonsterXP(monster, xp) for monster, xp in built.lines),
        built.sources,
    )
    text = [
        f"{system.title}: budget for {result.party} characters of level {result.level}: "
        f"{result.budget:,} XP",
        *(
            f"  {group.monster.count} x level {group.monster.level} {group.monster.rank}: "
            f"{group.xp:,} XP"
            for group in result.monsters
        ),
        f"  total {result.total_xp:,} XP = {percent(result.share)} of the budget, "
        f"{result.xp_per_character} XP per character",
    ]
    return answer(result, text)


def render(result: EncounterResult, request: EncounterRequest, base: str) -> html.Rendered:
    share = html.percent(result.share)
    rows = [
        (
            f"Budget ({result.party} characters of level {result.level})",
            f"{result.budget:,} XP",
        ),
        ("Monsters", f"{result.total_xp:,} XP"),
        ("Share of the budget", share),
        ("XP per character", f"{float(result.xp_per_character):,.2f}"),
    ]
    lines = "".join(
        f"<li>{group.monster.count} × level {group.monster.level} "
        f"{escape(group.monster.rank)}: {group.xp:,} XP</li>"
        for group in result.monsters
    )
    listed = f'<ul class="calc-monsters">{lines}</ul>' if lines else ""
    listed += _fight_link(result, base)
    top = html.headline(f"Budget {share}", f"{result.total_xp:,} of {result.budget:,} XP")
    return html.Rendered(top, html.rows(rows) + listed + html.cited(result.sources, base))


# A fight row's figures that the encounter does not know: the fight page asks for them.
_FIGURES = ("bonus", "damage", "defense", "hp")


def _fight_link(result: EncounterResult, base: str) -> str:
    """The same party and monsters in the fight calculator, each monster row a row of
    opponents. Their figures are the GM's to fill in (the texts give no monster statistics),
    and so are the party's: left blank, never the fight form's examples, so the fight asks
    for them (the page puts the party kept on the device in the link, party.mjs). The
    form's other rows are not counted."""
    inputs: dict[str, Any] = {"system": result.system, "c1_side": "party", "c1_count": result.party}
    inputs |= {f"c1_{name}": "" for name in _FIGURES}
    rows = FightRequest.FORM_ROWS
    for row, group in enumerate(result.monsters[: rows - 1], start=2):
        inputs |= {f"c{row}_side": "opponents", f"c{row}_count": group.monster.count}
        inputs |= {f"c{row}_{name}": "" for name in _FIGURES}
    for row in range(len(result.monsters) + 2, rows + 1):
        inputs |= {f"c{row}_count": 0}
    href = escape(calculator_address("fight", inputs, base))
    return (
        f'<p><a class="calc-link calc-fight-link" href="{href}">Fight odds for these '
        "monsters</a> <span class=\"calc-fight-link-note\">(the party's and the monsters' "
        "attacks and hit points are entered there)</span></p>"
    )


CALCULATOR = Calculator(EncounterRequest, run, render, about=__doc__ or "")
