"""Encounter budget: XP of a party's budget and of a list of monsters by level and rank."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from rules_core.citations import Sources
from rules_core.errors import RulesError
from rules_core.numbers import parse_printed_int
from rules_core.systems import System


@dataclass(frozen=True)
class Monster:
    """A group of monsters of one level and rank in an encounter."""

    level: int
    rank: str
    count: int = 1


@dataclass(frozen=True)
class EncounterResult:
    """An encounter's XP against the party's budget."""

    party: int
    level: int
    budget: int
    total_xp: int
    share: Fraction  # total XP / budget
    xp_per_character: Fraction
    lines: list[tuple[Monster, int]]  # each monster group with its XP
    sources: Sources = field(compare=False)


def xp_table(system: System) -> dict[int, dict[str, int]]:
    rule = system.encounter
    return {
        parse_printed_int(row[rule.level_column]): {
            rank: parse_printed_int(row[column]) for rank, column in rule.ranks.items()
        }
        for row in rule.table.rows
    }


def encounter(
    system: System, party: int, level: int, monsters: Sequence[Monster]
) -> EncounterResult:
    rule = system.encounter
    sources = Sources()
    sources.rest_on(rule)
    table = xp_table(system)
    if party < 1:
        raise RulesError("The party needs at least one character.")
    if party > 100:
        raise RulesError("A party of more than 100 characters is beyond this calculator.")
    if level not in table:
        raise RulesError(f"Party level must be from {min(table)} to {max(table)}.")
    lines = []
    for monster in monsters:
        if monster.level not in table:
            raise RulesError(f"Monster level must be from {min(table)} to {max(table)}.")
        if monster.rank not in table[monster.level]:
            known = ", ".join(table[monster.level])
            raise RulesError(f"Unknown rank {monster.rank!r} (ranks: {known}).")
        if not 1 <= monster.count <= 1000:
            raise RulesError("A monster count must be from 1 to 1000.")
        lines.append((monster, table[monster.level][monster.rank] * monster.count))
    ranks = {monster.rank for monster, _ in lines}
    for note in rule.ambiguities:
        if note.when["rank"] in ranks:
            sources.rest_on(note)
    budget = party * table[level][rule.budget_rank]
    total = sum(xp for _, xp in lines)
    return EncounterResult(
        party=party,
        level=level,
        budget=budget,
        total_xp=total,
        share=Fraction(total, budget),
        xp_per_character=Fraction(total, party),
        lines=lines,
        sources=sources,
    )
