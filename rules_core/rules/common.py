"""What the typed sections share: their citations, an optional part, a table they read,
and the sections of one shape found in several places (a rule that is only its sentences,
a note, the dice of advantage)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from rules_core.citations import Citation


def citations(entry: Mapping[str, Any]) -> tuple[Citation, ...]:
    """An entry's `cite` list as citations (none where it has none)."""
    return tuple(Citation.of(cited) for cited in entry.get("cite") or ())


def optional[T](
    entry: Mapping[str, Any], key: str, build: Callable[[Mapping[str, Any]], T]
) -> T | None:
    """entry[key] built as its typed section, or None where the text gives none."""
    value = entry.get(key)
    return None if value is None else build(value)


@dataclass(frozen=True)
class CitedRule:
    """A rule that is only its sentences: an attack type's own, Resist X+, how a halved
    damage roll rounds, a dice notation the text defines, when a death save is made."""

    SCHEMA: ClassVar[tuple[str, ...]] = (
        "attack.resist",
        "attack.attack_types.each.*",
        "damage.halving",
        "damage.notation.*",
        "dying.timing",
    )

    cite: tuple[Citation, ...] = ()
    interpretation: str | None = None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> CitedRule:
        return cls(citations(entry), entry.get("interpretation"))


@dataclass(frozen=True)
class Note:
    """A note in the text's own terms, and where it says so: what it says is added to a
    roll (shown with a given bonus), or what it says of a rule it does not define."""

    SCHEMA: ClassVar[tuple[str, ...]] = (
        "checks.bonus",
        "saves.bonus",
        "dying.bonus",
        "not_defined.*",
    )

    note: str
    cite: tuple[Citation, ...]

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Note:
        return cls(str(entry["note"]), citations(entry))


@dataclass(frozen=True)
class Advantage:
    """The dice a roll uses with advantage or disadvantage, and what having both does."""

    SCHEMA: ClassVar[tuple[str, ...]] = (
        "attack.advantage",
        "checks.advantage",
        "saves.advantage",
        "dying.advantage",
    )

    advantage: str
    disadvantage: str
    both: str
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Advantage:
        return cls(
            advantage=str(entry["advantage"]),
            disadvantage=str(entry["disadvantage"]),
            both=str(entry["both"]),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )


@dataclass(frozen=True)
class Table:
    """A table of the text a rule reads (the compiled data puts it in place of its name):
    its rows, each a printed cell by column name."""

    rows: tuple[Mapping[str, str], ...]

    @classmethod
    def of(cls, table: Mapping[str, Any]) -> Table:
        return cls(tuple(table["rows"]))
