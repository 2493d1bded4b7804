"""The `damage:` section of rules.yml: the critical hit, resistance and vulnerability, the
floor, halving, and the dice notations the text defines."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from rules_core.citations import Citation
from rules_core.rules.common import CitedRule, citations, optional


@dataclass(frozen=True)
class Critical:
    """What a critical hit does to the damage roll, and whether extra dice are rolled."""

    SCHEMA: ClassVar[str] = "damage.critical"

    kind: str  # "maximise", "double-dice" or "double-total"
    extra_dice: str | None  # "rolled": an effect's bonus critical dice are rolled
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Critical:
        extra_dice = entry.get("extra_dice")
        return cls(
            kind=str(entry["kind"]),
            extra_dice=None if extra_dice is None else str(extra_dice),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )


@dataclass(frozen=True)
class Modifier:
    """How a target's resistance or vulnerability changes the total ("subtract", "halve",
    "add", "double", "natural-threshold")."""

    SCHEMA: ClassVar[tuple[str, ...]] = ("damage.resistance", "damage.vulnerability")

    kind: str
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Modifier:
        return cls(str(entry["kind"]), citations(entry), entry.get("interpretation"))


@dataclass(frozen=True)
class Floor:
    """The least damage a roll deals."""

    SCHEMA: ClassVar[str] = "damage.floor"

    value: int
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Floor:
        return cls(int(entry["value"]), citations(entry), entry.get("interpretation"))


@dataclass(frozen=True)
class Damage:
    """A system's damage rules."""

    SCHEMA: ClassVar[str] = "damage"

    critical: Critical
    resistance: Modifier | None
    vulnerability: Modifier | None
    halving: CitedRule | None  # how a halved attack rounds
    floor: Floor
    notation: Mapping[str, CitedRule]  # the notations beyond NdX, by name
    cite: tuple[Citation, ...]
    interpretation: str | None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Damage:
        notation = entry.get("notation") or {}
        return cls(
            critical=Critical.of(entry["critical"]),
            resistance=optional(entry, "resistance", Modifier.of),
            vulnerability=optional(entry, "vulnerability", Modifier.of),
            halving=optional(entry, "halving", CitedRule.of),
            floor=Floor.of(entry["floor"]),
            notation=MappingProxyType(
                {str(name): CitedRule.of(own) for name, own in notation.items()}
            ),
            cite=citations(entry),
            interpretation=entry.get("interpretation"),
        )
