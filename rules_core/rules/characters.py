"""The character sections of rules.yml: ability scores (`ability_modifier`, `point_buy`,
`ability_roll`), `levels` and the `encounter` budget."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from rules_core.citations import Citation
from rules_core.rules.common import Table, citations, optional


def _names(entry: Mapping[str, Any]) -> Mapping[str, str]:
    """A mapping of names to column names (a table's), read-only, in the text's order."""
    return MappingProxyType({str(name): str(column) for name, column in entry.items()})


@dataclass(frozen=True)
class AbilityModifier:
    """An ability score's modifier: by a table where the text prints one, else by the
    formula it states; and the scores there are."""

    SCHEMA: ClassVar[str] = "ability_modifier"

    table: Table | None
    score_column: str | None
    modifier_column: str | None
    scores: tuple[int, int]  # the lowest and highest score
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> AbilityModifier:
        low, high = entry["scores"]
        return cls(
            table=optional(entry, "table", Table.of),
            score_column=entry.get("score_column"),
            modifier_column=entry.get("modifier_column"),
            scores=(int(low), int(high)),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )


@dataclass(frozen=True)
class Below:
    """How many bought scores may be below a score."""

    SCHEMA: ClassVar[str] = "point_buy.below"

    score: int
    at_most: int

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Below:
        return cls(int(entry["score"]), int(entry["at_most"]))


@dataclass(frozen=True)
class PointBuy:
    """Buying ability scores: the budget, how many scores, and the cost table."""

    SCHEMA: ClassVar[str] = "point_buy"

    budget: int
    count: int
    table: Table
    score_column: str
    cost_column: str
    below: Below
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> PointBuy:
        return cls(
            budget=int(entry["budget"]),
            count=int(entry["count"]),
            table=Table.of(entry["table"]),
            score_column=str(entry["score_column"]),
            cost_column=str(entry["cost_column"]),
            below=Below.of(entry["below"]),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )


@dataclass(frozen=True)
class AbilityRoll:
    """How an ability score is rolled (a dice expression: 4d6, drop the lowest)."""

    SCHEMA: ClassVar[str] = "ability_roll"

    expression: str
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> AbilityRoll:
        return cls(str(entry["expression"]), citations(entry), entry.get("interpretation"))


@dataclass(frozen=True)
class Ambiguity:
    """Where a text says two things: cited with an answer whose inputs match `when`."""

    SCHEMA: ClassVar[str] = "levels.ambiguities.[]"

    when: Mapping[str, str]  # input name -> value (a printed range of levels, a rank)
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Ambiguity:
        when = MappingProxyType({str(key): str(value) for key, value in entry["when"].items()})
        return cls(when, citations(entry), entry.get("interpretation"))


def _ambiguities(entry: Mapping[str, Any]) -> tuple[Ambiguity, ...]:
    return tuple(Ambiguity.of(note) for note in entry.get("ambiguities") or ())


@dataclass(frozen=True)
class LevelColumns:
    """The level table's columns: the level, the XP total, and what each level grants."""

    SCHEMA: ClassVar[str] = "levels.columns"

    level: str
    total: str
    grants: Mapping[str, str]  # what is granted -> its column

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> LevelColumns:
        return cls(str(entry["level"]), str(entry["total"]), _names(entry.get("grants") or {}))


@dataclass(frozen=True)
class LevelBonus:
    """The level bonus: the level divided by `divisor`, rounded down."""

    SCHEMA: ClassVar[str] = "levels.level_bonus"

    divisor: int
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> LevelBonus:
        return cls(int(entry["divisor"]), citations(entry), entry.get("interpretation"))


@dataclass(frozen=True)
class Tier:
    """A tier and its levels as printed ("1-10"), with an erratum where the text misprints."""

    SCHEMA: ClassVar[str] = "levels.tiers.ranges.[]"

    name: str
    levels: str
    erratum: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Tier:
        return cls(str(entry["name"]), str(entry["levels"]), entry.get("erratum"))


@dataclass(frozen=True)
class Tiers:
    """The tiers levels fall in, in order."""

    SCHEMA: ClassVar[str] = "levels.tiers"

    ranges: tuple[Tier, ...]
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Tiers:
        ranges = tuple(Tier.of(tier) for tier in entry["ranges"])
        return cls(ranges, citations(entry), entry.get("interpretation"))


@dataclass(frozen=True)
class Levels:
    """XP and levels: the level table, the level bonus, the tiers."""

    SCHEMA: ClassVar[str] = "levels"

    table: Table
    columns: LevelColumns
    level_bonus: LevelBonus
    tiers: Tiers
    ambiguities: tuple[Ambiguity, ...]
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Levels:
        return cls(
            table=Table.of(entry["table"]),
            columns=LevelColumns.of(entry["columns"]),
            level_bonus=LevelBonus.of(entry["level_bonus"]),
            tiers=Tiers.of(entry["tiers"]),
            ambiguities=_ambiguities(entry),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )


@dataclass(frozen=True)
class Encounter:
    """An encounter budget: the XP table by level and rank, and the rank a character's
    share of the budget is counted in."""

    SCHEMA: ClassVar[str] = "encounter"

    table: Table
    level_column: str
    ranks: Mapping[str, str]  # rank -> its column, in the text's order
    budget_rank: str
    ambiguities: tuple[Ambiguity, ...]
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Encounter:
        return cls(
            table=Table.of(entry["table"]),
            level_column=str(entry["level_column"]),
            ranks=_names(entry["ranks"]),
            budget_rank=str(entry["budget_rank"]),
            ambiguities=_ambiguities(entry),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )
