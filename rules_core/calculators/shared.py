"""Fields, rules and results more than one calculator asks for: roll modes, weapon dice,
'X x Level', extra critical dice, a target's resistance and vulnerability, and a roll's odds."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules_core.dice import Distribution
from rules_core.fields import Field, Requires

MODES = (
    ("normal", "Normal"),
    ("advantage", "Advantage"),
    ("disadvantage", "Disadvantage"),
    ("both", "Advantage and disadvantage"),
)


def mode_counts(mode: str | None) -> tuple[int, int]:
    """A roll mode as counts of advantage and disadvantage dice."""
    return int(mode in ("advantage", "both")), int(mode in ("disadvantage", "both"))


def mode_field(label: str, requires: Requires, *, optional: bool = False) -> Field:
    """The roll mode (mode_counts reads it): --advantage, --disadvantage or --both."""
    return Field(
        "mode",
        label,
        "choice",
        default="normal",
        choices=MODES,
        optional=optional,
        unset="normal",
        option="--advantage/--disadvantage/--both",
        requires=requires,
    )


def escalation_field(label: str, requires: Requires) -> Field:
    """The escalation die (0 to 6), where the system's text adds it."""
    return Field(
        "escalation",
        label,
        "int",
        default="0",
        minimum=0,
        maximum=6,
        optional=True,
        unset="0",
        option="--escalation",
        requires=requires,
    )


EXTRA_CRIT = Requires(("damage", "critical", "extra_dice"), "extra_crit", "extra critical-hit dice")
WEAPON_DICE = Requires(
    ("damage", "notation"), "weapon_dice", "weapon dice (dW)", frozenset({"weapon-dice"})
)
PER_LEVEL = Requires(
    ("damage", "notation"), "per_level", "'X x Level' damage", frozenset({"per-level"})
)
RESISTANCE_AMOUNT = Requires(
    ("damage", "resistance", "kind"),
    "resistance",
    "resistance by an amount",
    frozenset({"subtract"}),
)
VULNERABILITY_AMOUNT = Requires(
    ("damage", "vulnerability", "kind"),
    "vulnerability",
    "vulnerability by an amount",
    frozenset({"add"}),
)
RESISTANCE_HALVES = Requires(
    ("damage", "resistance", "kind"),
    "resistance",
    "resistance that halves damage",
    frozenset({"halve"}),
)
VULNERABILITY_DOUBLES = Requires(
    ("damage", "vulnerability", "kind"),
    "vulnerability",
    "vulnerability that doubles damage",
    frozenset({"double"}),
)


def weapon_field(**overrides: Any) -> Field:
    return Field(
        "weapon",
        "Weapon die (for dW)",
        "die",
        optional=True,
        option="--weapon",
        requires=WEAPON_DICE,
        more=True,
        **overrides,
    )


def level_field() -> Field:
    return Field(
        "level",
        "Level (for X x Level)",
        "int",
        minimum=1,
        maximum=100,
        optional=True,
        option="--level",
        requires=PER_LEVEL,
        more=True,
    )


def extra_crit_field() -> Field:
    return Field(
        "extra_crit",
        "Extra critical dice",
        "dice",
        optional=True,
        option="--extra-crit",
        requires=EXTRA_CRIT,
        more=True,
    )


def resistance_fields(
    labels: tuple[str, str, str, str] = (
        "Target's resistance",
        "Target's vulnerability",
        "Target resistant",
        "Target vulnerable",
    ),
    options: tuple[str, str] = ("--resistance", "--vulnerability"),
) -> tuple[Field, ...]:
    """The target's resistance and vulnerability as the system's damage rules take them:
    an amount where the text subtracts or adds one, a tick where it halves or doubles.
    `options` are the CLI's (resistance, vulnerability) options."""
    amount, added, resistant, vulnerable_label = labels
    resist, vulnerable = options
    return (
        Field(
            "resistance",
            amount,
            "int",
            minimum=1,
            maximum=1000,
            optional=True,
            option=resist,
            requires=RESISTANCE_AMOUNT,
            more=True,
        ),
        Field(
            "vulnerability",
            added,
            "int",
            minimum=1,
            maximum=1000,
            optional=True,
            option=vulnerable,
            requires=VULNERABILITY_AMOUNT,
            more=True,
        ),
        Field(
            "resistant",
            resistant,
            "check",
            option=resist,
            requires=RESISTANCE_HALVES,
            more=True,
        ),
        Field(
            "vulnerable",
            vulnerable_label,
            "check",
            option=vulnerable,
            requires=VULNERABILITY_DOUBLES,
            more=True,
        ),
    )


def resistance_amounts(
    resistance: int | None, vulnerability: int | None, resistant: bool, vulnerable: bool
) -> tuple[int | None, int | None]:
    """The amounts the core takes: a halving or doubling rule takes none, read as 0."""
    return (0 if resistant else resistance), (0 if vulnerable else vulnerability)


@dataclass(frozen=True)
class Odds:
    """A roll's exact distribution and the figures a page shows of it, worked out once."""

    distribution: Distribution
    mean: Fraction  # a sum over every value: worked out once, where min and max are read

    @classmethod
    def of(cls, distribution: Distribution) -> Odds:
        return cls(distribution, distribution.mean())

    @property
    def minimum(self) -> int:
        return self.distribution.min

    @property
    def maximum(self) -> int:
        return self.distribution.max

    def points(self) -> list[tuple[int, str]]:
        """Each value the roll can take with its chance as an exact fraction, ascending."""
        return [(value, str(chance)) for value, chance in self.distribution.items()]

    def to_json(self) -> dict[str, Any]:
        return {
            "min": self.minimum,
            "max": self.maximum,
            "mean": str(self.mean),
            "distribution": {str(value): chance for value, chance in self.points()},
        }
