"""XP and level: the level an XP total reaches, its level bonus, tier and grants."""

from __future__ import annotations

from dataclasses import dataclass, field

from rules_core.citations import Sources
from rules_core.errors import RulesError
from rules_core.numbers import is_blank, parse_printed_int, parse_printed_range
from rules_core.systems import System


@dataclass(frozen=True)
class LevelResult:
    """A character's level from their XP, by the system's table."""

    xp: int
    level: int
    level_bonus: int
    tier: str
    xp_for_next_level: int | None  # total XP at which the next level is reached
    xp_needed: int | None  # XP still to earn for it
    grants: dict[str, str]  # what the table lists at this level (ability scores, feats, ...)
    sources: Sources = field(compare=False)


@dataclass(frozen=True)
class LevelRow:
    """One row of a system's level table."""

    level: int
    total: int
    grants: dict[str, str]


def level_rows(system: System) -> list[LevelRow]:
    rule = system.levels
    columns = rule.columns
    rows = []
    for row in rule.table.rows:
        total = row[columns.total]
        grants = {
            name: row[column].strip()
            for name, column in columns.grants.items()
            if not is_blank(row[column])
        }
        rows.append(
            LevelRow(
                level=parse_printed_int(row[columns.level]),
                total=0 if is_blank(total) else parse_printed_int(total),
                grants=grants,
            )
        )
    return rows


def tier_of(system: System, level: int, sources: Sources) -> str:
    tiers = system.levels.tiers
    sources.cite(tiers.cite)
    for tier in tiers.ranges:
        if level in parse_printed_range(tier.levels):
            sources.interpret(tier.erratum)
            return tier.name
    raise RulesError(f"Level {level} is in no tier of {system.short_title}.")


def level_for_xp(system: System, xp: int) -> LevelResult:
    rule = system.levels
    if xp < 0:
        raise RulesError("XP cannot be negative.")
    sources = Sources()
    sources.cite(rule.cite)
    rows = level_rows(system)
    reached = [row for row in rows if row.total <= xp]
    current = reached[-1]
    following = next((row for row in rows if row.level == current.level + 1), None)
    bonus_rule = rule.level_bonus
    sources.cite(bonus_rule.cite)
    for note in rule.ambiguities:
        if current.level in parse_printed_range(note.when["levels"]):
            sources.rest_on(note)
    return LevelResult(
        xp=xp,
        level=current.level,
        level_bonus=current.level // bonus_rule.divisor,
        tier=tier_of(system, current.level, sources),
        xp_for_next_level=following.total if following else None,
        xp_needed=following.total - xp if following else None,
        grants=current.grants,
        sources=sources,
    )
