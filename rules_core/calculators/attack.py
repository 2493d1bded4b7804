"""Attack odds: chance to hit, critical hit and miss, and expected damage per attack."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from html import escape
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, answer, fraction_text, percent
from rules_core.calculators.shared import (
    escalation_field,
    extra_crit_field,
    level_field,
    mode_counts,
    mode_field,
    resistance_amounts,
    resistance_fields,
    weapon_field,
)
from rules_core.charts import bar_chart
from rules_core.citations import Sources
from rules_core.fields import Field, Requires
from rules_core.mechanics import attacks as mechanics
from rules_core.mechanics.situations import attack_types
from rules_core.numbers import signed
from rules_core.requests import Request, system_field
from rules_core.systems import get_system, system_slugs

ADVANTAGE = Requires(("attack", "advantage"), "advantage", "advantage and disadvantage dice")
ESCALATION = Requires(("attack", "escalation"), "escalation", "an escalation die")
RESIST_NATURAL = Requires(
    ("attack", "resist"), "resist", "resistance tied to the natural roll (Resist X+)"
)
ATTACK_TYPES = Requires(
    ("attack", "attack_types"), "attack_types", "attack types that change an attack"
)
NO_ATTACK_TYPE = "unspecified"


def _attack_type_choices() -> tuple[tuple[str, str], ...]:
    """Every attack type some system's text names, in its order (from data)."""
    seen = {NO_ATTACK_TYPE: "Not given"}
    for slug in system_slugs():
        for name in attack_types(get_system(slug)):
            seen.setdefault(name, name.capitalize())
    return tuple(seen.items())


def _attack_type_systems() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each attack type with the systems whose text names it (from data)."""
    return tuple(
        (name, tuple(s for s in system_slugs() if name in attack_types(get_system(s))))
        for name, _ in _attack_type_choices()
        if name != NO_ATTACK_TYPE
    )


@dataclass(frozen=True)
class AttackRequest(Request):
    """An attack roll against a defense, as the form and the command line ask it."""

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
            system_field(),
            Field(
                "bonus",
                "Attack bonus",
                "int",
                example="6",
                minimum=-100,
                maximum=100,
                option="--bonus",
                requires=rule,
            ),
            Field(
                "defense",
                "Defense",
                "int",
                example="16",
                minimum=-100,
                maximum=200,
                option="--defense",
                requires=rule,
                hint="AC, Fortitude, Reflex, Will, PD, MD",
            ),
            Field(
                "attacks",
                "Number of attacks",
                "int",
                default="1",
                minimum=1,
                maximum=100,
                option="--attacks",
                requires=rule,
            ),
            mode_field("Roll", ADVANTAGE, optional=True),
            escalation_field("Escalation die", ESCALATION),
            Field(
                "attack_type",
                "Attack type",
                "choice",
                default=NO_ATTACK_TYPE,
                choices=_attack_type_choices(),
                choice_systems=_attack_type_systems(),
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
                example="1d8+4",
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
                minimum=3,
                maximum=18,
                optional=True,
                option="--resist",
                requires=RESIST_NATURAL,
                more=True,
            ),
            *resistance_fields(),
        )

    def setup(self) -> mechanics.AttackSetup:
        """The attack as the rules core takes it: the one place a roll mode is read."""
        advantage, disadvantage = mode_counts(self.mode)
        resistance, vulnerability = resistance_amounts(
            self.resistance, self.vulnerability, self.resistant, self.vulnerable
        )
        return mechanics.AttackSetup(
            bonus=self.bonus,
            defense=self.defense,
            advantage=bool(advantage),
            disadvantage=bool(disadvantage),
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
            resistance=resistance,
            vulnerability=vulnerability,
        )


# The first of an attack's terms that belongs to the defense (the mechanic's breakdown
# lists the roll's terms, then the defense's: "Defense", then "Defense: <situation>").
DEFENSE = "Defense"
CURVE_SPAN = 10  # the chart: chance to hit for this many defenses either side of the one asked


@dataclass(frozen=True)
class AttackResult:
    """An attack's odds as the page shows them: the mechanic's answer for the attack asked,
    and the chance to hit for the defenses around its own."""

    system: str
    attacks: int  # asked: the chance of at least one hit is over these
    odds: mechanics.AttackResult
    # The chart's axis is the defense as the reader types it, before the situations: the
    # bars are (typed defense, chance to hit with the situations) for the defenses around
    # the one asked, and the one asked, highlighted, has the answer's chance to hit.
    hit_by_defense: tuple[tuple[int, Fraction], ...]
    defense_asked: int  # as typed: odds.defense is after the situations' defense terms
    sources: Sources

    @property
    def roll_terms(self) -> tuple[tuple[str, int], ...]:
        """The roll's terms: ("Attack bonus", 7), ("Combat advantage", 2), ..."""
        return self.odds.breakdown[: self._defense_at]

    @property
    def defense_terms(self) -> tuple[tuple[str, int], ...]:
        """The defense's terms: ("Defense", 15), ("Half cover (+2 AC)", 2), ..."""
        return tuple(
            (label.removeprefix(f"{DEFENSE}: "), value)
            for label, value in self.odds.breakdown[self._defense_at :]
        )

    @property
    def _defense_at(self) -> int:
        labels = [label for label, _ in self.odds.breakdown]
        return labels.index(DEFENSE) if DEFENSE in labels else len(labels)

    def to_json(self) -> dict[str, Any]:
        odds = self.odds
        return {
            "system": self.system,
            "roll": odds.roll,
            "attack_modifier": odds.attack_modifier,
            "defense": odds.defense,
            "hit": fraction_text(odds.hit),
            "crit": fraction_text(odds.crit),
            "miss": fraction_text(odds.miss),
            "crit_fail": fraction_text(odds.crit_fail),
            "attacks": self.attacks,
            "at_least_one_hit": fraction_text(odds.at_least_one_hit),
            "expected_damage": fraction_text(odds.expected_damage),
            "breakdown": [[label, value] for label, value in odds.breakdown],
            "roll_mode": odds.roll_mode,
            "because": [reason.to_json() for reason in odds.because],
            **self.sources.to_json(),
        }


def run(request: AttackRequest) -> Answer[AttackResult]:
    system = get_system(request.system)
    setup = request.setup()
    odds = mechanics.attack(system, setup)
    # The chart's odds only: the damage changes no chance to hit.
    asked = replace(setup, damage=None, miss_damage=None)
    around = range(setup.defense - CURVE_SPAN, setup.defense + CURVE_SPAN + 1)
    result = AttackResult(
        system=system.slug,
        attacks=setup.attacks,
        odds=odds,
        hit_by_defense=tuple(mechanics.hit_chance_by_defense(system, asked, around)),
        defense_asked=setup.defense,
        sources=odds.sources,
    )
    text = [
        f"{system.title}: {odds.roll} {odds.attack_modifier:+d} against defense {odds.defense}",
        f"  hit        {odds.hit} ({percent(odds.hit)})",
        f"  critical   {odds.crit} ({percent(odds.crit)})",
        f"  miss       {odds.miss} ({percent(odds.miss)})",
    ]
    why = odds.why
    if why:
        text += ["Why:", *(f"  {line}" for line in why)]
    if odds.crit_fail is not None:
        text.append(f"  crit fail  {odds.crit_fail} ({percent(odds.crit_fail)})")
    if setup.attacks > 1:
        text.append(
            f"  at least one hit in {setup.attacks} attacks: {odds.at_least_one_hit} "
            f"({percent(odds.at_least_one_hit)})"
        )
    if odds.expected_damage is not None:
        text.append(
            f"  expected damage per attack: {odds.expected_damage} "
            f"(about {float(odds.expected_damage):.2f})"
        )
    return answer(result, text)


def _chart_labels(result: AttackResult) -> tuple[str, str, str | None]:
    """The chart's caption, its axis label and the highlighted bar's name. Its bars are the
    defense as typed; where situations change the defense, the labels say so, and the
    highlighted bar names the defense after them (the answer's, whose chance it shows)."""
    shift = result.odds.defense - result.defense_asked
    if not shift:
        return "Chance to hit by defense", "Defense", None
    by = ", ".join(label for label, _ in result.defense_terms[1:])
    return (
        "Chance to hit by defense before situations; every bar with the situations' "
        f"{signed(shift)} to the defense ({by})",
        "Defense before situations",
        f"{result.defense_asked} ({result.odds.defense} after situations)",
    )


def render(result: AttackResult, request: AttackRequest, base: str) -> html.Rendered:
    odds = result.odds
    rows = [
        (
            "Roll",
            f"{escape(odds.roll)} {html.signed(odds.attack_modifier)} vs {odds.defense}",
        )
    ]
    # As a player says it: the roll's bonus, then the defense it must reach (never one sum).
    if len(result.roll_terms) > 1:  # more than the attack bonus alone
        rows.append(("Bonus", html.breakdown(result.roll_terms)))
    if len(result.defense_terms) > 1:
        rows.append(("Defense", html.breakdown(result.defense_terms, signed_total=False)))
    rows += [
        ("Hit", html.chance(odds.hit)),
        ("Critical hit", html.chance(odds.crit)),
        ("Miss", html.chance(odds.miss)),
    ]
    top = [
        f"Hit {html.percent(odds.hit)}",
        f"Crit {html.percent(odds.crit)}",
        f"Miss {html.percent(odds.miss)}",
    ]
    if odds.crit_fail is not None:
        rows.append(("Crit fail", html.chance(odds.crit_fail)))
    if result.attacks > 1:
        rows.append((f"At least one hit in {result.attacks}", html.percent(odds.at_least_one_hit)))
    if odds.expected_damage is not None:
        rows.append(("Expected damage per attack", html.mean(odds.expected_damage)))
        top.append(f"Damage {float(odds.expected_damage):.2f} per attack")
    caption, label, highlight_name = _chart_labels(result)
    chart = bar_chart(
        [(defense, str(chance)) for defense, chance in result.hit_by_defense],
        caption=caption,
        label=label,
        highlight=result.defense_asked,
        highlight_name=highlight_name,
    )
    return html.Rendered(
        html.headline(*top),
        html.rows(rows) + chart + html.cited(result.sources, base),
        tuple(odds.why),
    )


CALCULATOR = Calculator(AttackRequest, run, render, about=__doc__ or "")
