"""The `checks:` and `saves:` sections of rules.yml, and the parts of a roll they share
with `dying:` (its bonus and its advantage dice)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Protocol, TypedDict

from rules_core.citations import Citation
from rules_core.rules.common import Advantage, Note, Table, citations, optional


def advantage_of(entry: Mapping[str, Any]) -> Advantage | str | None:
    """A section's `advantage`: its dice, or the name of the section whose dice apply."""
    value = entry.get("advantage")
    return value if value is None or isinstance(value, str) else Advantage.of(value)


class RolledSection(Protocol):
    """A section with a roll of its own (checks, saves, dying): what the shared readers of
    a roll (rules_core.mechanics.checks.natural_roll, bonus_reading) take."""

    @property
    def roll(self) -> str: ...

    @property
    def bonus(self) -> Note | None: ...  # what the text says is added to the roll

    # The dice, or the name of the section whose dice apply ("checks"), or None.
    @property
    def advantage(self) -> Advantage | str | None: ...

    @property
    def advantage_interpretation(self) -> str | None: ...


@dataclass(frozen=True)
class Difficulty:
    """A named difficulty from the text, and the target number it sets."""

    SCHEMA: ClassVar[tuple[str, ...]] = (
        "checks.difficulties.rows.[]",
        "saves.difficulties.rows.[]",
    )

    label: str
    value: int
    levels: tuple[int, int] | None  # the levels the text gives it for
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Difficulty:
        levels = entry.get("levels")
        return cls(
            label=str(entry["label"]),
            value=int(entry["value"]),
            levels=(int(levels[0]), int(levels[1])) if levels else None,
            interpretation=entry.get("interpretation"),
        )


@dataclass(frozen=True)
class Difficulties:
    """The difficulties a text names for a roll: rows of its own, or a table's columns."""

    SCHEMA: ClassVar[tuple[str, ...]] = ("checks.difficulties", "saves.difficulties")

    rows: tuple[Difficulty, ...]  # none where a table gives them
    table: Table | None
    label_column: str | None
    value_column: str | None
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Difficulties:
        return cls(
            rows=tuple(Difficulty.of(row) for row in entry.get("rows") or ()),
            table=optional(entry, "table", Table.of),
            label_column=entry.get("label_column"),
            value_column=entry.get("value_column"),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )

    def named(self) -> tuple[Difficulty, ...]:
        """Every difficulty named: the section's own rows, or one per row of its table."""
        if self.table is None or self.label_column is None or self.value_column is None:
            return self.rows
        label, value = self.label_column, self.value_column
        return tuple(
            Difficulty(str(row[label]), int(row[value]), None, None) for row in self.table.rows
        )


@dataclass(frozen=True)
class Contest:
    """How two checks compare: the higher total wins, and what a tie does."""

    SCHEMA: ClassVar[str] = "checks.contest"

    tie: str
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Contest:
        return cls(str(entry["tie"]), citations(entry), entry.get("interpretation"))


@dataclass(frozen=True)
class GroupContest:
    """Which of a group's totals counts in a contest ("median")."""

    SCHEMA: ClassVar[str] = "checks.group.contest"

    total: str
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> GroupContest:
        return cls(str(entry["total"]), citations(entry), entry.get("interpretation"))


@dataclass(frozen=True)
class Group:
    """A group check: the share of members who must succeed, and how it meets a contest."""

    SCHEMA: ClassVar[str] = "checks.group"

    at_least: Fraction
    contest: GroupContest | None
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Group:
        return cls(
            at_least=Fraction(str(entry["at_least"])),
            contest=optional(entry, "contest", GroupContest.of),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )


@dataclass(frozen=True)
class Extended:
    """An extended challenge: the failures that end it."""

    SCHEMA: ClassVar[str] = "checks.extended"

    label: str
    failures: int
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Extended:
        return cls(
            str(entry["label"]),
            int(entry["failures"]),
            citations(entry),
            entry.get("interpretation"),
        )


@dataclass(frozen=True)
class Escalation:
    """The escalation die added to a save, up to its highest value."""

    SCHEMA: ClassVar[str] = "saves.escalation"

    max: int
    label: str
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Escalation:
        return cls(
            int(entry["max"]), str(entry["label"]), citations(entry), entry.get("interpretation")
        )


@dataclass(frozen=True)
class Repeat:
    """How a save repeats ("save ends": one at the end of each turn)."""

    SCHEMA: ClassVar[str] = "saves.repeat"

    label: str
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Repeat:
        return cls(str(entry["label"]), citations(entry), entry.get("interpretation"))


@dataclass(frozen=True, kw_only=True)
class RollRule:
    """What checks and saves share: the roll, what may be added, the targets named."""

    label: str
    roll: str
    bonus: Note | None  # what the text says is added to the roll
    advantage: Advantage | str | None  # a name: the section whose dice apply ("checks")
    advantage_interpretation: str | None
    difficulties: Difficulties | None
    unstated: tuple[str, ...]  # what the text leaves unsaid, each said with an answer
    cite: tuple[Citation, ...]
    interpretation: str | None


class RollRuleFields(TypedDict):
    """RollRule's fields as keyword arguments, so that mypy checks each one against the
    constructor of Checks and Saves (a field added to RollRule and not here, or of
    another type, fails the type check)."""

    label: str
    roll: str
    bonus: Note | None
    advantage: Advantage | str | None
    advantage_interpretation: str | None
    difficulties: Difficulties | None
    unstated: tuple[str, ...]
    cite: tuple[Citation, ...]
    interpretation: str | None


def _roll_rule(entry: Mapping[str, Any]) -> RollRuleFields:
    """RollRule's fields, read from a checks or saves section."""
    return RollRuleFields(
        label=str(entry["label"]),
        roll=str(entry["roll"]),
        bonus=optional(entry, "bonus", Note.of),
        advantage=advantage_of(entry),
        advantage_interpretation=entry.get("advantage_interpretation"),
        difficulties=optional(entry, "difficulties", Difficulties.of),
        unstated=tuple(entry.get("unstated") or ()),
        cite=citations(entry),
        interpretation=entry.get("interpretation"),
    )


@dataclass(frozen=True, kw_only=True)
class Checks(RollRule):
    """A check: its roll, and how contests, group checks and extended challenges go."""

    SCHEMA: ClassVar[str] = "checks"

    contest: Contest | None
    group: Group | None
    extended: Extended | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Checks:
        return cls(
            **_roll_rule(entry),
            contest=optional(entry, "contest", Contest.of),
            group=optional(entry, "group", Group.of),
            extended=optional(entry, "extended", Extended.of),
        )


@dataclass(frozen=True, kw_only=True)
class Saves(RollRule):
    """A saving throw: its roll, a fixed target where the text sets one, the escalation
    die and how a save repeats."""

    SCHEMA: ClassVar[str] = "saves"

    target: int | None
    escalation: Escalation | None
    repeat: Repeat | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Saves:
        target = entry.get("target")
        return cls(
            **_roll_rule(entry),
            target=None if target is None else int(target),
            escalation=optional(entry, "escalation", Escalation.of),
            repeat=optional(entry, "repeat", Repeat.of),
        )
