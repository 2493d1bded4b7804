"""The `attack` section of rules.yml, typed: the roll, its natural-roll rules, the dice of
advantage, the escalation die, the attack types and the situations.

`Effect` is the vocabulary of what a situation does to an attack: its fields are the
effect kinds and the filters, in the schema's order, and everything else reads them from
here (the schema's EFFECTS in hooks/content/rules_schema.py, the resolver and its words in
rules_core/mechanics/situations.py, the GM screen). Each field's metadata says what value
it takes ("integer", "count", "flag", "fraction", "names"), the schema making its spec of
that, and whether it is an effect or a filter (which branch an effect holds in).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any, ClassVar

from rules_core.citations import Citation
from rules_core.rules.common import Advantage, CitedRule

# The values an effect kind or a filter takes, as the schema checks them.
VALUES = ("integer", "count", "flag", "fraction", "names")


def _effect(value: str) -> dict[str, Any]:
    """The metadata of a field of the vocabulary that does something to the attack."""
    return {"value": value, "filter": False}


def _filter(value: str) -> dict[str, Any]:
    """The metadata of a field of the vocabulary that says when an effect holds."""
    return {"value": value, "filter": True}


def _citations(entry: Mapping[str, Any]) -> tuple[Citation, ...]:
    return tuple(Citation.of(cited) for cited in entry.get("cite") or ())


def _interpretation(entry: Mapping[str, Any]) -> str | None:
    value = entry.get("interpretation")
    return None if value is None else str(value)


@dataclass(frozen=True, kw_only=True)
class Effect:
    """What a situation, or one branch (`when`) of it, does to an attack, and when."""

    SCHEMA: ClassVar[str] = "attack.situations.*.when.[]"

    attack: int = field(default=0, metadata=_effect("integer"))  # added to the roll
    defense: int = field(default=0, metadata=_effect("integer"))  # added to the defense
    # Moves the lowest natural that is a critical hit.
    crit_from: int = field(default=0, metadata=_effect("integer"))
    advantage: int = field(default=0, metadata=_effect("count"))
    disadvantage: int = field(default=0, metadata=_effect("count"))
    hit_is_critical: bool = field(default=False, metadata=_effect("flag"))
    always_critical: bool = field(default=False, metadata=_effect("flag"))
    ignores_escalation: bool = field(default=False, metadata=_effect("flag"))
    damage_multiplier: Fraction | None = field(default=None, metadata=_effect("fraction"))
    # The target's resistance; 0 is a resistance of no stated amount.
    resistance: int | None = field(default=None, metadata=_effect("count"))
    # The situations it brings with it, and those it rules out.
    confers: tuple[str, ...] = field(default=(), metadata=_effect("names"))
    prevents: tuple[str, ...] = field(default=(), metadata=_effect("names"))
    # Filters: the effect holds only for these attack types, with / without situations.
    attack_types: tuple[str, ...] | None = field(default=None, metadata=_filter("names"))
    if_: tuple[str, ...] = field(default=(), metadata=_filter("names"))
    unless: tuple[str, ...] = field(default=(), metadata=_filter("names"))

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Effect:
        return cls(**_vocabulary_values(entry))


def _read_value(value: Any, kind: str) -> Any:
    if kind in ("integer", "count"):
        return int(value)
    if kind == "flag":
        return bool(value)
    if kind == "fraction":
        return Fraction(str(value))
    return tuple(str(name) for name in value)  # names


def _vocabulary_values(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The vocabulary's keys an entry holds, as the Effect's fields take them."""
    values = {}
    for kind in fields(Effect):
        key = kind.name.rstrip("_")
        if key in entry:
            values[kind.name] = _read_value(entry[key], kind.metadata["value"])
    return values


# The effect kinds: what a situation can do to an attack (every field but the filters).
EFFECT_KINDS: tuple[str, ...] = tuple(f.name for f in fields(Effect) if not f.metadata["filter"])


@dataclass(frozen=True, kw_only=True)
class Situation(Effect):
    """A named situation: a label, its own effect (the fields it inherits), its branches."""

    SCHEMA: ClassVar[str] = "attack.situations.*"

    label: str
    side: str | None = None  # "attacker" or "target": whose situation it is
    group: str | None = None  # of one group (degrees of cover) only the most protective applies
    attack_type: str | None = None  # the attack type the text ties it to
    when: tuple[Effect, ...] = ()
    cite: tuple[Citation, ...] = ()
    interpretation: str | None = None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Situation:
        attack_type = entry.get("attack_type")
        return cls(
            label=str(entry["label"]),
            side=entry.get("side"),
            group=entry.get("group"),
            attack_type=None if attack_type is None else str(attack_type),
            when=tuple(Effect.of(branch) for branch in entry.get("when") or ()),
            cite=_citations(entry),
            interpretation=_interpretation(entry),
            **_vocabulary_values(entry),
        )

    @property
    def effects(self) -> tuple[Effect, ...]:
        """Its own effect, then each branch's."""
        return (self, *self.when)


@dataclass(frozen=True)
class Naturals:
    """Natural rolls with one outcome whatever the total (always a hit, a miss, a fumble)."""

    SCHEMA: ClassVar[tuple[str, ...]] = (
        "attack.always_hit",
        "attack.always_miss",
        "attack.crit_fail",
    )

    naturals: tuple[int, ...]
    cite: tuple[Citation, ...] = ()
    interpretation: str | None = None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Naturals:
        naturals = tuple(int(natural) for natural in entry["naturals"])
        return cls(naturals, _citations(entry), _interpretation(entry))


@dataclass(frozen=True)
class Critical:
    SCHEMA: ClassVar[str] = "attack.critical"

    from_: int  # the lowest natural that is a critical hit
    requires_hit: bool = False  # only if the total would hit anyway
    cite: tuple[Citation, ...] = ()
    interpretation: str | None = None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Critical:
        return cls(
            int(entry["from"]),
            bool(entry.get("requires_hit", False)),
            _citations(entry),
            _interpretation(entry),
        )


@dataclass(frozen=True)
class ByRound:
    """The escalation die in a fight: 1 in round `from_round`, one more each round after."""

    SCHEMA: ClassVar[str] = "attack.escalation.by_round"

    from_round: int
    cite: tuple[Citation, ...] = ()
    interpretation: str | None = None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> ByRound:
        return cls(int(entry["from_round"]), _citations(entry), _interpretation(entry))


@dataclass(frozen=True)
class Escalation:
    SCHEMA: ClassVar[str] = "attack.escalation"

    max: int
    by_round: ByRound | None = None  # None: the text does not say how it grows in a fight
    cite: tuple[Citation, ...] = ()
    interpretation: str | None = None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Escalation:
        return cls(
            int(entry["max"]),
            _optional(entry, "by_round", ByRound.of),
            _citations(entry),
            _interpretation(entry),
        )

    def in_round(self, round_: int) -> int | None:
        """The die's value in a fight's round (1-based), or None where the text does not
        say how it grows."""
        if self.by_round is None:
            return None
        return max(0, min(self.max, round_ - self.by_round.from_round + 1))


@dataclass(frozen=True)
class AttackTypes:
    """The attack types a rule of the text depends on: their sentences, and each one's."""

    SCHEMA: ClassVar[str] = "attack.attack_types"

    names: tuple[str, ...]
    cite: tuple[Citation, ...] = ()
    each: Mapping[str, CitedRule] = field(default_factory=dict)
    interpretation: str | None = None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> AttackTypes:
        each = entry.get("each") or {}
        return cls(
            tuple(str(name) for name in entry["names"]),
            _citations(entry),
            {str(name): CitedRule.of(own) for name, own in each.items()},
            _interpretation(entry),
        )


def _optional[T](
    entry: Mapping[str, Any], key: str, reading: Callable[[Mapping[str, Any]], T]
) -> T | None:
    value = entry.get(key)
    return None if value is None else reading(value)


@dataclass(frozen=True)
class Attack:
    """A system's attack roll and all that changes it."""

    SCHEMA: ClassVar[str] = "attack"

    roll: str  # the natural roll: "1d20", "3d6"
    critical: Critical
    always_hit: Naturals | None = None
    always_miss: Naturals | None = None
    crit_fail: Naturals | None = None
    escalation: Escalation | None = None
    advantage: Advantage | None = None  # None: the text gives no dice for it
    attack_types: AttackTypes | None = None
    situations: Mapping[str, Situation] = field(default_factory=dict)  # in the data's order
    resist: CitedRule | None = None  # the 3d6 rules' Resist X+
    unstated: tuple[str, ...] = ()  # what the text leaves unsaid, said as a reading
    cite: tuple[Citation, ...] = ()
    interpretation: str | None = None

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Attack:
        return cls(
            roll=str(entry["roll"]),
            critical=Critical.of(entry["critical"]),
            always_hit=_optional(entry, "always_hit", Naturals.of),
            always_miss=_optional(entry, "always_miss", Naturals.of),
            crit_fail=_optional(entry, "crit_fail", Naturals.of),
            escalation=_optional(entry, "escalation", Escalation.of),
            advantage=_optional(entry, "advantage", Advantage.of),
            attack_types=_optional(entry, "attack_types", AttackTypes.of),
            situations={
                str(name): Situation.of(situation)
                for name, situation in (entry.get("situations") or {}).items()
            },
            resist=_optional(entry, "resist", CitedRule.of),
            unstated=tuple(str(note) for note in entry.get("unstated") or ()),
            cite=_citations(entry),
            interpretation=_interpretation(entry),
        )

    @property
    def type_names(self) -> tuple[str, ...]:
        """The attack types' names, none where the text ties no rule to one."""
        return self.attack_types.names if self.attack_types else ()
