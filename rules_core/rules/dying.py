"""The `dying:` section of rules.yml: the death save, its special results and the counts
that end it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from rules_core.citations import Citation
from rules_core.rules.checks import advantage_of
from rules_core.rules.common import Advantage, CitedRule, Note, citations, optional


@dataclass(frozen=True)
class Failures:
    """The failures that kill."""

    SCHEMA: ClassVar[str] = "dying.failures"

    count: int
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Failures:
        return cls(int(entry["count"]), citations(entry), entry.get("interpretation"))


@dataclass(frozen=True)
class Successes:
    """The successes that end dying, and how it ends ("stable", "up")."""

    SCHEMA: ClassVar[str] = "dying.successes"

    count: int
    result: str
    label: str
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Successes:
        return cls(
            count=int(entry["count"]),
            result=str(entry["result"]),
            label=str(entry["label"]),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )


@dataclass(frozen=True)
class Without:
    """A special result that needs something (a recovery to spend): without the option,
    the roll counts as this total instead."""

    SCHEMA: ClassVar[str] = "dying.special.[].without"

    option: str
    as_total: int

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Without:
        return cls(str(entry["option"]), int(entry["as_total"]))


@dataclass(frozen=True)
class Special:
    """A special result of a save: the rolls it takes (naturals, a natural or a total and
    up), and what it does: an ending (`result`) or marks of its own."""

    SCHEMA: ClassVar[str] = "dying.special.[]"

    label: str
    naturals: tuple[int, ...]  # none where it goes by natural_from or total_from
    natural_from: int | None
    total_from: int | None
    result: str | None
    failures: int | None
    successes: int | None
    without: Without | None
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Special:
        def number(key: str) -> int | None:
            value = entry.get(key)
            return None if value is None else int(value)

        result = entry.get("result")
        return cls(
            label=str(entry["label"]),
            naturals=tuple(int(natural) for natural in entry.get("naturals") or ()),
            natural_from=number("natural_from"),
            total_from=number("total_from"),
            result=None if result is None else str(result),
            failures=number("failures"),
            successes=number("successes"),
            without=optional(entry, "without", Without.of),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )

    def matches(self, natural: int, total: int) -> bool:
        """Whether a roll (its natural and its total) is this result."""
        if self.naturals:
            return natural in self.naturals
        if self.natural_from is not None:
            return natural >= self.natural_from
        return self.total_from is not None and total >= self.total_from


@dataclass(frozen=True)
class FirstSave:
    """An option that changes the first save only (advantage or disadvantage on it)."""

    SCHEMA: ClassVar[str] = "dying.first_save"

    option: str
    advantage: int
    disadvantage: int
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> FirstSave:
        return cls(
            option=str(entry["option"]),
            advantage=int(entry.get("advantage", 0)),
            disadvantage=int(entry.get("disadvantage", 0)),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )


@dataclass(frozen=True)
class DyingOption:
    """A circumstance the reader may tick (no recoveries left, dropped by a crit)."""

    SCHEMA: ClassVar[str] = "dying.options.*"

    label: str
    note: str | None
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> DyingOption:
        return cls(
            str(entry["label"]), entry.get("note"), citations(entry), entry.get("interpretation")
        )


@dataclass(frozen=True)
class Dying:
    """Death saves: the roll and its target, what one save may do, and what ends dying."""

    SCHEMA: ClassVar[str] = "dying"

    label: str
    roll: str
    target: int
    bonus: Note | None  # what the text says is added to the roll
    advantage: Advantage | str | None  # a name: the section whose dice apply ("checks")
    advantage_interpretation: str | None
    timing: CitedRule | None  # when the save is made (read where the text is unclear)
    failures: Failures
    successes: Successes | None  # None: a success changes nothing
    special: tuple[Special, ...]  # in the order they are tried
    first_save: FirstSave | None
    options: Mapping[str, DyingOption]  # by name, in the text's order
    unstated: tuple[str, ...]
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Dying:
        options = entry.get("options") or {}
        return cls(
            label=str(entry["label"]),
            roll=str(entry["roll"]),
            target=int(entry["target"]),
            bonus=optional(entry, "bonus", Note.of),
            advantage=advantage_of(entry),
            advantage_interpretation=entry.get("advantage_interpretation"),
            timing=optional(entry, "timing", CitedRule.of),
            failures=Failures.of(entry["failures"]),
            successes=optional(entry, "successes", Successes.of),
            special=tuple(Special.of(special) for special in entry.get("special") or ()),
            first_save=optional(entry, "first_save", FirstSave.of),
            options=MappingProxyType(
                {str(name): DyingOption.of(option) for name, option in options.items()}
            ),
            unstated=tuple(entry.get("unstated") or ()),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )
