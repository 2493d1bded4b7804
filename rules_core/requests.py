"""One typed request per calculator, built and validated the same way for every caller.

The command line (its options collect strings), the calculator pages' worker and the
build-time prerender all call `Request.from_inputs(mapping of strings)`: the same inputs
give the same request, the same refusals and so the same answer. A missing key reads as
a blank field. Refusals are data: `InputErrors.errors` maps a field name to one
sentence; a field or calculator the selected system's text does not define raises that
system's `NotDefined`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, ClassVar, Self

from rules_core.attacks import AttackSetup
from rules_core.checks import MAX_GROUP, CheckSetup
from rules_core.damage import DamageSetup, parse_for
from rules_core.dice import DiceError
from rules_core.dice import parse as parse_dice
from rules_core.dying import DyingSetup
from rules_core.encounters import Monster
from rules_core.fields import Field, FieldError, Requires, read
from rules_core.numbers import read_whole, shown
from rules_core.situations import attack_types
from rules_core.systems import get_system, system_slugs

MAX_SEED = 2**53  # a whole number JavaScript's numbers hold exactly
MAX_MONSTER_ROWS = 100


class InputErrors(ValueError):
    """Values their fields cannot take: field name -> one sentence."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{name}: {message}" for name, message in errors.items()))
        self.errors = errors


def _one_line(message: object) -> str:
    """A message as one line: control characters shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


@cache  # the systems are compiled data: read their titles once
def system_field(default: str = "") -> Field:
    return Field(
        "system",
        "System",
        "system",
        default=default or system_slugs()[0],
        choices=tuple((slug, get_system(slug).title) for slug in system_slugs()),
        option="--system",
    )


# ------------------------------------------------------------------ rules a field needs

ADVANTAGE = Requires(("attack", "advantage"), "advantage", "advantage and disadvantage dice")
ESCALATION = Requires(("attack", "escalation"), "escalation", "an escalation die")
RESIST_NATURAL = Requires(
    ("attack", "resist"), "resist", "resistance tied to the natural roll (Resist X+)"
)
ATTACK_TYPES = Requires(
    ("attack", "attack_types"), "attack_types", "attack types that change an attack"
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


# ------------------------------------------------------------------ building a request


def _read_all(
    fields_: tuple[Field, ...], inputs: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for field in fields_:
        raw = inputs.get(field.name)
        try:
            values[field.name] = read(field, "" if raw is None else str(raw))
        except FieldError as error:
            errors[field.name] = _one_line(error)
            values[field.name] = None
    return values, errors


def _check_rules(
    request: type[Request], fields_: tuple[Field, ...], inputs: Mapping[str, Any], slug: str
) -> None:
    """The calculator's rule, then each set field's rule: the system's own refusal."""
    system = get_system(slug)
    if request.RULE is not None and not request.RULE.met(system):
        raise request.RULE.refusal(system)
    for field in fields_:
        raw = inputs.get(field.name)
        text = "" if raw is None else str(raw).strip()
        if field.requires is not None and field.is_set(text) and not field.requires.met(system):
            raise field.requires.refusal(system)


def _dice_errors(
    fields_: tuple[Field, ...], values: dict[str, Any], slug: str | None
) -> dict[str, str]:
    """Parse each dice field as the rules core will, so a bad roll is refused at its field."""
    system = get_system(slug) if slug else None
    errors: dict[str, str] = {}
    for field in fields_:
        text = values.get(field.name)
        if field.kind != "dice" or not text:
            continue
        given = {"weapon_die": values.get("weapon"), "level": values.get("level")}
        try:
            if system is None:
                parse_dice(text, **given)
            else:
                parse_for(system, text, **given)
        except DiceError as error:
            errors[field.name] = _one_line(error)
    return errors


@dataclass(frozen=True)
class Request:
    """What every calculator's request shares: its name, fields and the rule it needs."""

    NAME: ClassVar[str]
    TITLE: ClassVar[str]
    RULE: ClassVar[Requires | None] = None
    PRIMARY: ClassVar[str]  # the field an error belongs to when it names none

    @classmethod
    def fields_for(cls, inputs: Mapping[str, Any]) -> tuple[Field, ...]:
        return cls.form_fields()

    @classmethod
    def form_fields(cls) -> tuple[Field, ...]:  # fixed by the rules data: subclasses cache it
        raise NotImplementedError

    @classmethod
    def from_inputs(cls, inputs: Mapping[str, Any]) -> Self:
        """Read, check against the system's rules, and build; raises InputErrors or NotDefined."""
        fields_ = cls.fields_for(inputs)
        values, errors = _read_all(fields_, inputs)
        slug = values.get("system")
        errors.update(_dice_errors(fields_, values, slug))
        if errors:
            raise InputErrors(errors)
        if slug is not None:
            _check_rules(cls, fields_, inputs, slug)
        return cls.from_values(values)

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        names = {f.name for f in fields(cls)}
        return cls(**{name: value for name, value in values.items() if name in names})


@dataclass(frozen=True)
class ModifierRequest(Request):
    NAME: ClassVar[str] = "modifier"
    TITLE: ClassVar[str] = "Ability modifier"
    RULE: ClassVar[Requires | None] = Requires(
        ("ability_modifier",), "ability_modifier", "ability modifiers"
    )
    PRIMARY: ClassVar[str] = "score"
    system: str
    score: int

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            system_field("orcus"),
            Field(
                "score", "Ability score", "int", "15", 1, 30, option="--score", requires=cls.RULE
            ),
        )


ABILITIES = (
    ("str", "STR", "16"),
    ("con", "CON", "14"),
    ("dex", "DEX", "13"),
    ("int", "INT", "12"),
    ("wis", "WIS", "11"),
    ("cha", "CHA", "10"),
)


@dataclass(frozen=True)
class PointBuyRequest(Request):
    NAME: ClassVar[str] = "pointbuy"
    TITLE: ClassVar[str] = "Point buy"
    RULE: ClassVar[Requires | None] = Requires(("point_buy",), "point_buy", "a point-buy method")
    PRIMARY: ClassVar[str] = "str"
    system: str
    scores: tuple[int, ...]

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            system_field("orcus"),
            *(
                Field(key, label, "int", default, 1, 30, option="--scores", requires=cls.RULE)
                for key, label, default in ABILITIES
            ),
        )

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        return cls(values["system"], tuple(values[key] for key, _, _ in ABILITIES))


@dataclass(frozen=True)
class AbilityRollRequest(Request):
    NAME: ClassVar[str] = "abilityroll"
    TITLE: ClassVar[str] = "Rolled ability scores"
    RULE: ClassVar[Requires | None] = Requires(
        ("ability_roll",), "ability_roll", "a method of rolling ability scores"
    )
    PRIMARY: ClassVar[str] = "system"
    system: str

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (system_field("orcus"),)


@dataclass(frozen=True)
class LevelRequest(Request):
    NAME: ClassVar[str] = "level"
    TITLE: ClassVar[str] = "XP and level"
    RULE: ClassVar[Requires | None] = Requires(("levels",), "levels", "XP and levels")
    PRIMARY: ClassVar[str] = "xp"
    system: str
    xp: int

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            system_field("orcus"),
            Field(
                "xp",
                "Experience points",
                "int",
                "12000",
                0,
                10**9,
                option="--xp",
                requires=cls.RULE,
            ),
        )


NO_ATTACK_TYPE = "unspecified"


def _attack_type_choices() -> tuple[tuple[str, str], ...]:
    """Every attack type some system's text names, in its order (from data)."""
    seen = {NO_ATTACK_TYPE: "Not given"}
    for slug in system_slugs():
        for name in attack_types(get_system(slug)):
            seen.setdefault(name, name.capitalize())
    return tuple(seen.items())


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
            "",
            1,
            1000,
            optional=True,
            option=resist,
            requires=RESISTANCE_AMOUNT,
            more=True,
        ),
        Field(
            "vulnerability",
            added,
            "int",
            "",
            1,
            1000,
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


MODES = (
    ("normal", "Normal"),
    ("advantage", "Advantage"),
    ("disadvantage", "Disadvantage"),
    ("both", "Advantage and disadvantage"),
)


@dataclass(frozen=True)
class AttackRequest(Request):
    NAME: ClassVar[str] = "attack"
    TITLE: ClassVar[str] = "Attack odds"
    RULE: ClassVar[Requires | None] = Requires(("attack",), "attack", "attack rolls")
    PRIMARY: ClassVar[str] = "bonus"
    system: str
    bonus: int
    defense: int
    mode: str | None = None  # advantage | disadvantage | both; None or normal: a plain roll
    escalation: int | None = None
    situations: tuple[str, ...] = ()
    attacks: int = 1
    damage: str | None = None
    miss_damage: str | None = None
    weapon: int | None = None
    level: int | None = None
    extra_crit: str | None = None
    resist: int | None = None
    attack_type: str | None = None
    resistance: int | None = None
    vulnerability: int | None = None
    resistant: bool = False
    vulnerable: bool = False

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        rule = cls.RULE
        return (
            system_field("orcus"),
            Field("bonus", "Attack bonus", "int", "6", -100, 100, option="--bonus", requires=rule),
            Field(
                "defense",
                "Defense",
                "int",
                "16",
                -100,
                200,
                option="--defense",
                requires=rule,
                hint="AC, Fortitude, Reflex, Will, PD, MD",
            ),
            Field(
                "attacks",
                "Number of attacks",
                "int",
                "1",
                1,
                100,
                option="--attacks",
                requires=rule,
            ),
            Field(
                "mode",
                "Roll",
                "choice",
                "normal",
                choices=MODES,
                optional=True,
                unset="normal",
                option="--advantage/--disadvantage/--both",
                requires=ADVANTAGE,
            ),
            Field(
                "escalation",
                "Escalation die",
                "int",
                "0",
                0,
                6,
                optional=True,
                unset="0",
                option="--escalation",
                requires=ESCALATION,
            ),
            Field(
                "attack_type",
                "Attack type",
                "choice",
                NO_ATTACK_TYPE,
                choices=_attack_type_choices(),
                optional=True,
                unset=NO_ATTACK_TYPE,
                option="--attack-type",
                requires=ATTACK_TYPES,
            ),
            Field("situations", "Situations", "situations", option="--situation", requires=rule),
            Field(
                "damage",
                "Damage on a hit",
                "dice",
                "1d8+4",
                optional=True,
                option="--damage",
                requires=rule,
            ),
            Field(
                "miss_damage",
                "Damage on a miss",
                "dice",
                optional=True,
                option="--miss-damage",
                requires=rule,
                more=True,
            ),
            weapon_field(),
            level_field(),
            extra_crit_field(),
            Field(
                "resist",
                "Target's Resist X+",
                "int",
                "",
                3,
                18,
                optional=True,
                option="--resist",
                requires=RESIST_NATURAL,
                more=True,
            ),
            *resistance_fields(),
        )

    def setup(self) -> AttackSetup:
        """The attack as the rules core takes it: the one place a roll mode is read."""
        return AttackSetup(
            bonus=self.bonus,
            defense=self.defense,
            advantage=self.mode in ("advantage", "both"),
            disadvantage=self.mode in ("disadvantage", "both"),
            escalation=self.escalation or 0,
            situations=self.situations,
            attacks=self.attacks,
            damage=self.damage,
            miss_damage=self.miss_damage,
            weapon_die=self.weapon,
            level=self.level,
            extra_crit=self.extra_crit,
            resist=self.resist,
            attack_type=None if self.attack_type == NO_ATTACK_TYPE else self.attack_type,
            # A halving or doubling rule takes no amount: the core reads 0 as "applies".
            resistance=0 if self.resistant else self.resistance,
            vulnerability=0 if self.vulnerable else self.vulnerability,
        )


@dataclass(frozen=True)
class DamageRequest(Request):
    NAME: ClassVar[str] = "damage"
    TITLE: ClassVar[str] = "Damage"
    RULE: ClassVar[Requires | None] = Requires(("damage",), "damage", "damage")
    PRIMARY: ClassVar[str] = "expression"
    system: str
    expression: str
    crit: bool = False
    weapon: int | None = None
    level: int | None = None
    extra_crit: str | None = None
    resistance: int | None = None
    vulnerability: int | None = None
    resistant: bool = False
    vulnerable: bool = False
    hp: int | None = None

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        rule = cls.RULE
        return (
            system_field("orcus"),
            Field("expression", "Damage roll", "dice", "2d6+3", option="EXPR", requires=rule),
            Field("crit", "Critical hit", "check", option="--crit", requires=rule),
            Field(
                "hp",
                "Hit points to reach",
                "int",
                "",
                1,
                100000,
                optional=True,
                option="--hp",
                requires=rule,
            ),
            weapon_field(),
            level_field(),
            extra_crit_field(),
            *resistance_fields(
                ("Resistance", "Vulnerability", "Resistant", "Vulnerable"),
                ("--resist", "--vulnerable"),
            ),
        )

    def setup(self) -> DamageSetup:
        # A halving or doubling rule takes no amount: the core reads 0 as "applies".
        return DamageSetup(
            expression=self.expression,
            crit=self.crit,
            weapon_die=self.weapon,
            level=self.level,
            extra_crit=self.extra_crit,
            resistance=0 if self.resistant else self.resistance,
            vulnerability=0 if self.vulnerable else self.vulnerability,
            hp=self.hp,
        )


ENCOUNTER_ROWS = 4  # monster rows the form shows; the command line takes any number


@cache
def _ranks() -> tuple[tuple[str, str], ...]:
    """Every rank some system's encounter rules name, in their order (from data)."""
    seen: dict[str, str] = {}
    for slug in system_slugs():
        ranks = (get_system(slug).rules.get("encounter") or {}).get("ranks") or {}
        for rank, column in ranks.items():
            seen.setdefault(str(rank), str(column))
    return tuple(seen.items())


@cache
def monster_fields(row: int) -> tuple[Field, Field, Field]:
    rule = EncounterRequest.RULE
    return (
        Field(
            f"m{row}_level",
            "Level",
            "int",
            "1",
            1,
            30,
            optional=True,
            option="--monster",
            requires=rule,
            group=f"Monster {row}",
        ),
        Field(
            f"m{row}_rank",
            "Rank",
            "choice",
            "standard",
            choices=_ranks(),
            optional=True,
            option="--monster",
            requires=rule,
            group=f"Monster {row}",
        ),
        Field(
            f"m{row}_count",
            "Count",
            "int",
            "4" if row == 1 else "0",
            0,
            1000,
            optional=True,
            unset="0",
            option="--monster",
            requires=rule,
            group=f"Monster {row}",
        ),
    )


@dataclass(frozen=True)
class EncounterRequest(Request):
    NAME: ClassVar[str] = "encounter"
    TITLE: ClassVar[str] = "Encounter budget"
    RULE: ClassVar[Requires | None] = Requires(("encounter",), "encounter", "an encounter budget")
    PRIMARY: ClassVar[str] = "party"
    system: str
    party: int
    level: int
    monsters: tuple[Monster, ...] = ()

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return cls._fields(ENCOUNTER_ROWS)

    @classmethod
    @cache
    def _fields(cls, rows: int) -> tuple[Field, ...]:
        return (
            system_field("orcus"),
            Field("party", "Characters", "int", "4", 1, 100, option="--party", requires=cls.RULE),
            Field("level", "Party level", "int", "1", 1, 30, option="--level", requires=cls.RULE),
            *(field for row in range(1, rows + 1) for field in monster_fields(row)),
        )

    @classmethod
    def fields_for(cls, inputs: Mapping[str, Any]) -> tuple[Field, ...]:
        rows = ENCOUNTER_ROWS
        while f"m{rows + 1}_count" in inputs and rows < MAX_MONSTER_ROWS:
            rows += 1
        return cls._fields(rows)

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        monsters = []
        errors: dict[str, str] = {}
        row = 1
        while f"m{row}_count" in values:
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
class RollRequest(Request):
    NAME: ClassVar[str] = "roll"
    TITLE: ClassVar[str] = "Dice roller"
    PRIMARY: ClassVar[str] = "expression"
    expression: str
    seed: int | None = None
    rolled: bool = False  # False: the odds only; a page never shows a roll nobody asked for
    weapon: int | None = None

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            Field("expression", "Dice", "dice", "4d6kh3", option="EXPR"),
            Field(
                "seed", "Seed (optional)", "int", "", 0, MAX_SEED, optional=True, option="--seed"
            ),
            Field("rolled", "Roll", "check", option="--odds-only"),
            Field(
                "weapon", "Weapon die (for dW)", "die", optional=True, option="--weapon", more=True
            ),
        )


# ------------------------------------------------------------------ checks, saves, dying

CHECK_ADVANTAGE = Requires(
    ("checks", "advantage"), "advantage", "advantage and disadvantage dice for checks and saves"
)
SAVE_ESCALATION = Requires(("saves", "escalation"), "escalation", "an escalation bonus to saves")
CONTEST = Requires(("checks", "contest"), "contest", "contests (opposed checks)")
GROUP = Requires(("checks", "group"), "group", "group checks")
EXTENDED = Requires(("checks", "extended"), "extended", "extended challenges")
DIFFICULTIES = Requires(("checks", "difficulties"), "difficulties", "named difficulties")
DYING = Requires(("dying",), "dying", "death saves")
DYING_ADVANTAGE = Requires(
    ("dying", "advantage"), "advantage", "advantage and disadvantage on death saves"
)
DYING_SUCCESSES = Requires(("dying", "successes"), "successes", "counted death-save successes")
DYING_OPTIONS = Requires(("dying", "options"), "dying_options", "death-save options")

ROLLS = (("save", "Saving throw"), ("check", "Check"))


def _counts(mode: str) -> tuple[int, int]:
    """A roll mode as counts of advantage and disadvantage."""
    return int(mode in ("advantage", "both")), int(mode in ("disadvantage", "both"))


def _bonuses(text: str | None) -> tuple[int, ...]:
    """'2, 0, -1' -> (2, 0, -1); the group field's own refusal otherwise."""
    if not text:
        return ()
    try:
        values = tuple(read_whole(part) for part in text.split(","))
    except ValueError:
        raise InputErrors(
            {"group": f"Give whole numbers separated by commas, e.g. 2, 0, -1, not {shown(text)}."}
        ) from None
    if len(values) >= MAX_GROUP:
        raise InputErrors({"group": f"At most {MAX_GROUP - 1} other members."})
    return values


@dataclass(frozen=True)
class CheckRequest(Request):
    NAME: ClassVar[str] = "check"
    TITLE: ClassVar[str] = "Checks and saves"
    PRIMARY: ClassVar[str] = "target"  # most refusals are about the target
    system: str
    roll: str = "save"  # save | check
    bonus: int = 0
    target: int | None = None
    mode: str = "normal"
    escalation: int | None = None
    rounds: int = 1
    versus: int | None = None  # the opponent's bonus: a contest
    group: tuple[int, ...] = ()  # the other members' bonuses: a group check
    successes: int | None = None  # needed: an extended challenge
    difficulty: str | None = None
    level: int | None = None

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            system_field("orcus"),
            Field("roll", "Roll", "choice", "save", choices=ROLLS, option="--save"),
            Field("bonus", "Bonus", "int", "0", -100, 100, option="--bonus"),
            Field(
                "target",
                "Target (DC)",
                "int",
                "10",
                -100,
                200,
                optional=True,
                option="--target",
                hint="A save whose target the text fixes keeps it (blank is fine)",
            ),
            Field(
                "mode",
                "Advantage",
                "choice",
                "normal",
                choices=MODES,
                unset="normal",
                option="--advantage/--disadvantage/--both",
                requires=CHECK_ADVANTAGE,
            ),
            Field(
                "escalation",
                "Escalation die (Rally)",
                "int",
                "0",
                0,
                6,
                optional=True,
                unset="0",
                option="--escalation",
                requires=SAVE_ESCALATION,
            ),
            Field(
                "rounds",
                "Saves in a row",
                "int",
                "1",
                1,
                100,
                option="--rounds",
                hint="Chance of at least one success, and rounds until a save ends effect ends",
            ),
            Field(
                "versus",
                "Opponent's bonus (contest)",
                "int",
                "",
                -100,
                100,
                optional=True,
                option="--versus",
                requires=CONTEST,
                more=True,
            ),
            Field(
                "group",
                "Other members' bonuses (group check)",
                "text",
                "",
                optional=True,
                option="--group",
                requires=GROUP,
                more=True,
                hint="e.g. 2, 0, -1",
            ),
            Field(
                "successes",
                "Successes needed (extended challenge)",
                "int",
                "",
                1,
                100,
                optional=True,
                option="--successes",
                requires=EXTENDED,
                more=True,
            ),
            Field(
                "difficulty",
                "Named difficulty",
                "text",
                "",
                optional=True,
                option="--difficulty",
                requires=DIFFICULTIES,
                more=True,
                hint="Instead of a target: a name from the table below the answer",
            ),
            Field(
                "level",
                "Level (for difficulties by level)",
                "int",
                "",
                1,
                100,
                optional=True,
                option="--level",
                requires=DIFFICULTIES,
                more=True,
            ),
        )

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> Self:
        group = _bonuses(values.pop("group", None))
        return super().from_values({**values, "group": group})

    def setup(self) -> CheckSetup:
        advantage, disadvantage = _counts(self.mode)
        return CheckSetup(
            kind=self.roll,
            bonus=self.bonus,
            target=self.target,
            difficulty=self.difficulty,
            level=self.level,
            advantage=advantage,
            disadvantage=disadvantage,
            escalation=self.escalation or 0,
            rounds=self.rounds,
        )


@dataclass(frozen=True)
class DyingRequest(Request):
    NAME: ClassVar[str] = "dying"
    TITLE: ClassVar[str] = "Dying"
    RULE: ClassVar[Requires | None] = DYING
    PRIMARY: ClassVar[str] = "bonus"
    system: str
    bonus: int = 0
    mode: str = "normal"
    successes: int | None = None
    failures: int = 0
    situations: tuple[str, ...] = ()
    turns: int = 3

    @classmethod
    @cache
    def form_fields(cls) -> tuple[Field, ...]:
        return (
            system_field("orcus"),
            Field(
                "bonus",
                "Bonus to death saves",
                "int",
                "0",
                -100,
                100,
                option="--bonus",
                requires=DYING,
            ),
            Field(
                "mode",
                "Advantage",
                "choice",
                "normal",
                choices=MODES,
                unset="normal",
                option="--advantage/--disadvantage/--both",
                requires=DYING_ADVANTAGE,
            ),
            Field(
                "failures",
                "Failures already marked",
                "int",
                "0",
                0,
                10,
                option="--failures",
                requires=DYING,
            ),
            Field(
                "successes",
                "Successes already marked",
                "int",
                "0",
                0,
                10,
                optional=True,
                unset="0",
                option="--successes",
                requires=DYING_SUCCESSES,
            ),
            Field(
                "situations",
                "Situation",
                "situations",
                option="--option",
                requires=DYING_OPTIONS,
                source=("dying", "options"),
            ),
            Field("turns", "Turns", "int", "3", 1, 100, option="--turns", requires=DYING),
        )

    def setup(self) -> DyingSetup:
        advantage, disadvantage = _counts(self.mode)
        return DyingSetup(
            bonus=self.bonus,
            advantage=advantage,
            disadvantage=disadvantage,
            successes=self.successes or 0,
            failures=self.failures,
            options=self.situations,
            turns=self.turns,
        )


REQUESTS: dict[str, type[Request]] = {
    request.NAME: request
    for request in (
        ModifierRequest,
        PointBuyRequest,
        AbilityRollRequest,
        LevelRequest,
        AttackRequest,
        DamageRequest,
        EncounterRequest,
        RollRequest,
        CheckRequest,
        DyingRequest,
    )
}
