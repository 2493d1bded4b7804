"""Attack odds: chance to hit, critical hit and miss, and expected damage per attack."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from html import escape
from typing import Any, ClassVar

from rules_core.calculators import html
from rules_core.calculators.base import Answer, Calculator, Payload, fraction_text, percent, sourced
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
from rules_core.fields import Field, Requires
from rules_core.mechanics.attacks import AttackSetup, attack, hit_chance_by_defense, why_lines
from rules_core.mechanics.situations import attack_types
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

    def setup(self) -> AttackSetup:
        """The attack as the rules core takes it: the one place a roll mode is read."""
        advantage, disadvantage = mode_counts(self.mode)
        resistance, vulnerability = resistance_amounts(
            self.resistance, self.vulnerability, self.resistant, self.vulnerable
        )
        return AttackSetup(
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


def run(request: AttackRequest) -> Answer[Payload]:
    system = get_system(request.system)
    setup = request.setup()
    result = attack(system, setup)
    payload: dict[str, Any] = {
        "system": system.slug,
        "roll": result.roll,
        "attack_modifier": result.attack_modifier,
        "defense": result.defense,
        "hit": fraction_text(result.hit),
        "crit": fraction_text(result.crit),
        "miss": fraction_text(result.miss),
        "crit_fail": fraction_text(result.crit_fail),
        "attacks": setup.attacks,
        "at_least_one_hit": fraction_text(result.at_least_one_hit),
        "expected_damage": fraction_text(result.expected_damage),
    }
    breakdown = getattr(result, "breakdown", None)  # the roll's parts, where the core gives them
    if breakdown is not None:
        payload["breakdown"] = [[label, value] for label, value in breakdown]
    payload["roll_mode"] = result.roll_mode
    payload["because"] = [reason.to_json() for reason in result.because]
    text = [
        f"{system.title}: {result.roll} {result.attack_modifier:+d} against defense "
        f"{result.defense}",
        f"  hit        {result.hit} ({percent(result.hit)})",
        f"  critical   {result.crit} ({percent(result.crit)})",
        f"  miss       {result.miss} ({percent(result.miss)})",
    ]
    why = result.why
    if why:
        text += ["Why:", *(f"  {line}" for line in why)]
    if result.crit_fail is not None:
        text.append(f"  crit fail  {result.crit_fail} ({percent(result.crit_fail)})")
    if setup.attacks > 1:
        text.append(
            f"  at least one hit in {setup.attacks} attacks: {result.at_least_one_hit} "
            f"({percent(result.at_least_one_hit)})"
        )
    if result.expected_damage is not None:
        text.append(
            f"  expected damage per attack: {result.expected_damage} "
            f"(about {float(result.expected_damage):.2f})"
        )
    return sourced(payload, text, result.sources)


def why(payload: dict[str, Any]) -> list[str]:
    """The answer's why, as the payload carries it (the page renders the payload alone)."""
    because = payload.get("because", [])
    return why_lines(payload.get("roll_mode"), ((r["source"], r["effects"]) for r in because))


def attack_curve(request: AttackRequest) -> list[tuple[int, str]]:
    """Chance to hit for the defenses around the chosen one (odds only, no damage)."""
    setup = replace(request.setup(), damage=None, miss_damage=None)
    defenses = range(setup.defense - 10, setup.defense + 11)
    return [
        (defense, str(chance))
        for defense, chance in hit_chance_by_defense(get_system(request.system), setup, defenses)
    ]


def _split_breakdown(parts: list[list[Any]]) -> tuple[list[list[Any]], list[list[Any]]]:
    """The roll's terms and the defense's terms ("Defense", then "Defense: <situation>")."""
    at = next((i for i, (label, _) in enumerate(parts) if str(label) == "Defense"), len(parts))
    defense = [[str(label).removeprefix("Defense: "), value] for label, value in parts[at:]]
    return parts[:at], defense


def render(payload: html.Payload, request: AttackRequest, base: str) -> html.Rendered:
    modifier_text = html.signed(payload["attack_modifier"])
    rows = [("Roll", f"{escape(payload['roll'])} {modifier_text} vs {payload['defense']}")]
    # As a player says it: the roll's bonus, then the defense it must reach (never one sum).
    bonus, defense = _split_breakdown(payload.get("breakdown") or [])
    if len(bonus) > 1:  # more than the attack bonus alone
        rows.append(("Bonus", html.breakdown(bonus)))
    if len(defense) > 1:
        rows.append(("Defense", html.breakdown(defense, signed_total=False)))
    rows += [
        ("Hit", html.chance(payload["hit"])),
        ("Critical hit", html.chance(payload["crit"])),
        ("Miss", html.chance(payload["miss"])),
    ]
    top = [
        f"Hit {html.percent(payload['hit'])}",
        f"Crit {html.percent(payload['crit'])}",
        f"Miss {html.percent(payload['miss'])}",
    ]
    if payload["crit_fail"] is not None:
        rows.append(("Crit fail", html.chance(payload["crit_fail"])))
    if payload["attacks"] > 1:
        rows.append(
            (
                f"At least one hit in {payload['attacks']}",
                html.percent(payload["at_least_one_hit"]),
            )
        )
    if payload["expected_damage"] is not None:
        rows.append(("Expected damage per attack", html.mean(payload["expected_damage"])))
        top.append(f"Damage {float(Fraction(payload['expected_damage'])):.2f} per attack")
    chart = bar_chart(
        attack_curve(request),
        caption="Chance to hit by defense",
        label="Defense",
        highlight=payload["defense"],
    )
    return html.Rendered(
        html.headline(*top),
        html.rows(rows) + chart + html.sources(payload, base),
        tuple(why(payload)),
    )


CALCULATOR = Calculator(AttackRequest, run, render, about=__doc__ or "")
