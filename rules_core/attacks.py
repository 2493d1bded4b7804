"""Attack and check odds: each system's roll, natural-roll rules and situational modifiers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from rules_core.damage import DamageSetup, damage
from rules_core.dice import parse
from rules_core.systems import RulesError, Sources, System

MAX_ATTACKS = 100
MAX_MODIFIER = 1000


@dataclass(frozen=True)
class AttackSetup:
    bonus: int
    defense: int
    advantage: bool = False
    disadvantage: bool = False
    escalation: int = 0
    situations: tuple[str, ...] = ()
    attacks: int = 1
    damage: str | None = None  # hit damage
    miss_damage: str | None = None  # damage of a miss effect, if any
    weapon_die: int | None = None
    level: int | None = None
    extra_crit: str | None = None
    resist: int | None = None  # the 3d6 rules' Resist X+


@dataclass(frozen=True)
class AttackResult:
    roll: str  # the natural roll, e.g. "1d20", "2d20kh1", "3d6"
    attack_modifier: int  # bonus + escalation + situational attack modifiers
    defense: int  # after situational defense modifiers
    hit: Fraction  # any hit, critical hits included
    crit: Fraction
    miss: Fraction  # any miss, critical failures included
    crit_fail: Fraction | None  # None where the system has no such rule
    at_least_one_hit: Fraction  # over `attacks` attacks
    expected_damage: Fraction | None
    sources: Sources = field(compare=False)


def situations(system: System) -> dict[str, dict]:
    return system.rule("attack", "attack rolls").get("situations", {})


def _natural_roll(system: System, rule: dict, setup: AttackSetup, sources: Sources) -> str:
    if not (setup.advantage or setup.disadvantage):
        return str(rule["roll"])
    entry = rule.get("advantage")
    if entry is None:
        raise system.not_defined("advantage", "advantage and disadvantage dice")
    sources.cite(entry.get("cite"))
    if setup.advantage and setup.disadvantage:
        sources.interpret(entry.get("both"))
        return str(rule["roll"])
    return str(entry["advantage" if setup.advantage else "disadvantage"])


def _modifiers(system: System, rule: dict, setup: AttackSetup, sources: Sources):
    table = rule.get("situations", {})
    attack_total = 0
    defense_total = 0
    crit_shift = 0
    groups: dict[str, str] = {}
    for name in setup.situations:
        if name not in table:
            known = ", ".join(table) or "none"
            raise RulesError(
                f"'{name}' is not a situation {system.short_title} defines (known: {known})."
            )
        entry = table[name]
        group = entry.get("group")
        if group is not None:
            if group in groups and groups[group] != name:
                raise RulesError(
                    f"{table[groups[group]]['label']} and {entry['label']} do not stack: "
                    "only the stronger applies, so choose one."
                )
            groups[group] = name
        sources.cite(entry.get("cite"))
        sources.interpret(entry.get("interpretation"))
        attack_total += int(entry.get("attack", 0))
        defense_total += int(entry.get("defense", 0))
        crit_shift += int(entry.get("crit_from", 0))
    return attack_total, defense_total, crit_shift


def _check_setup(system: System, rule: dict, setup: AttackSetup, sources: Sources) -> None:
    if abs(setup.bonus) > MAX_MODIFIER or abs(setup.defense) > MAX_MODIFIER:
        raise RulesError(f"Bonus and defense must be within ±{MAX_MODIFIER}.")
    if not 1 <= setup.attacks <= MAX_ATTACKS:
        raise RulesError(f"The number of attacks must be from 1 to {MAX_ATTACKS}.")
    if setup.escalation:
        entry = rule.get("escalation")
        if entry is None:
            raise system.not_defined("escalation", "an escalation die")
        if not 0 <= setup.escalation <= entry["max"]:
            raise RulesError(f"The escalation die runs from 0 to {entry['max']}.")
        sources.cite(entry.get("cite"))
    if setup.resist is not None and rule.get("resist") is None:
        raise system.not_defined("resist", "resistance tied to the natural roll (Resist X+)")


def attack(system: System, setup: AttackSetup) -> AttackResult:
    rule = system.rule("attack", "attack rolls")
    sources = Sources()
    sources.cite(rule.get("cite"))
    _check_setup(system, rule, setup, sources)
    roll = _natural_roll(system, rule, setup, sources)
    attack_mods, defense_mods, crit_shift = _modifiers(system, rule, setup, sources)
    modifier = setup.bonus + setup.escalation + attack_mods
    defense = setup.defense + defense_mods

    always_hit = set(rule.get("always_hit", {}).get("naturals", []))
    always_miss = set(rule.get("always_miss", {}).get("naturals", []))
    critical = rule["critical"]
    crit_from = int(critical["from"]) + crit_shift
    requires_hit = bool(critical.get("requires_hit", False))
    fail_rule = rule.get("crit_fail")
    crit_fails = set(fail_rule["naturals"]) if fail_rule else set()
    for entry in (rule.get("always_hit"), rule.get("always_miss"), critical, fail_rule):
        if entry:
            sources.cite(entry.get("cite"))
            sources.interpret(entry.get("interpretation"))
    for note in rule.get("unstated", []):
        sources.interpret(note)

    hit = crit = crit_fail = Fraction(0)
    outcomes: list[tuple[int, str, Fraction]] = []  # natural, outcome, probability
    for natural, probability in parse(roll).distribution().items():
        reaches = natural + modifier >= defense
        if natural in always_miss:
            outcome = "miss"
        elif natural in crit_fails:
            outcome = "crit_fail"
        elif natural >= crit_from and (reaches or not requires_hit):
            outcome = "crit"
        elif reaches or natural in always_hit:
            outcome = "hit"
        else:
            outcome = "miss"
        outcomes.append((natural, outcome, probability))
        if outcome in ("hit", "crit"):
            hit += probability
        if outcome == "crit":
            crit += probability
        if outcome == "crit_fail":
            crit_fail += probability

    expected = None
    if setup.damage is not None:
        expected = _expected_damage(system, rule, setup, outcomes, sources)
    return AttackResult(
        roll=roll,
        attack_modifier=modifier,
        defense=defense,
        hit=hit,
        crit=crit,
        miss=1 - hit,
        crit_fail=crit_fail if fail_rule else None,
        at_least_one_hit=1 - (1 - hit) ** setup.attacks,
        expected_damage=expected,
        sources=sources,
    )


def _expected_damage(
    system: System,
    rule: dict,
    setup: AttackSetup,
    outcomes: Sequence[tuple[int, str, Fraction]],
    sources: Sources,
) -> Fraction:
    """Mean damage per attack: hit, critical and miss effects, each under the system's rules."""
    base = DamageSetup(
        expression=setup.damage or "0",
        weapon_die=setup.weapon_die,
        level=setup.level,
    )
    means: dict[tuple[str, bool], Fraction] = {}

    def mean(outcome: str, halved: bool) -> Fraction:
        key = (outcome, halved)
        if key not in means:
            if outcome == "hit":
                result = damage(system, replace(base, halved=halved))
            elif outcome == "crit":
                result = damage(
                    system, replace(base, crit=True, extra_crit=setup.extra_crit, halved=halved)
                )
            elif outcome == "miss" and setup.miss_damage:
                result = damage(system, replace(base, expression=setup.miss_damage, halved=halved))
            else:
                means[key] = Fraction(0)  # a plain miss, or a critical failure (no miss effects)
                return means[key]
            for citation in result.sources.citations:
                if citation not in sources.citations:
                    sources.citations.append(citation)
            for note in result.sources.interpretations:
                sources.interpret(note)
            means[key] = result.mean
        return means[key]

    resist = rule.get("resist")
    if setup.resist is not None:
        sources.cite(resist.get("cite"))
        sources.interpret(resist.get("interpretation"))
    total = Fraction(0)
    for natural, outcome, probability in outcomes:
        halved = setup.resist is not None and natural < setup.resist
        total += probability * mean(outcome, halved)
    return total
