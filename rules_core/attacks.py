"""Attack and check odds: each system's roll, natural-roll rules and situational modifiers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache

from rules_core.damage import DamageSetup, damage
from rules_core.dice import Distribution, parse
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
    # The roll's terms, then the defense's: ("Attack bonus", 7), ("Combat advantage", 2), ...
    # ("Defense", 15), ("Defense: Half cover (+2 AC)", 2). Each part sums to its total.
    breakdown: tuple[tuple[str, int], ...] = ()


@cache
def _natural_distribution(roll: str) -> Distribution:
    """The natural roll's distribution ('1d20', '2d20kh1', '3d6'): a handful, reused."""
    return parse(roll).distribution()


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
    attack_items: list[tuple[str, int]] = []
    defense_items: list[tuple[str, int]] = []
    crit_shift = 0
    groups: dict[str, str] = {}
    for name in setup.situations:
        if name not in table:
            known = ", ".join(table) or "none"
            raise RulesError(
                f"{name!r} is not a situation {system.short_title} defines (known: {known})."
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
        if entry.get("attack"):
            attack_items.append((entry["label"], int(entry["attack"])))
        if entry.get("defense"):
            defense_items.append((f"Defense: {entry['label']}", int(entry["defense"])))
        crit_shift += int(entry.get("crit_from", 0))
    return attack_items, defense_items, crit_shift


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


@dataclass(frozen=True)
class _NaturalRules:
    """A system's natural-roll rules for one attack, with the situations applied."""

    always_hit: frozenset[int]
    always_miss: frozenset[int]
    crit_fails: frozenset[int]
    crit_from: int
    requires_hit: bool

    def outcome(self, natural: int, reaches: bool) -> str:
        if natural in self.always_miss:
            return "miss"
        if natural in self.crit_fails:
            return "crit_fail"
        if natural >= self.crit_from and (reaches or not self.requires_hit):
            return "crit"
        if reaches or natural in self.always_hit:
            return "hit"
        return "miss"


@dataclass(frozen=True)
class _Prepared:
    roll: str
    modifier: int
    defense: int
    rules: _NaturalRules
    breakdown: tuple[tuple[str, int], ...]


def _prepare(system: System, setup: AttackSetup, sources: Sources) -> _Prepared:
    """Validate a setup and resolve everything but the dice: roll, modifiers, rules."""
    rule = system.rule("attack", "attack rolls")
    sources.cite(rule.get("cite"))
    _check_setup(system, rule, setup, sources)
    roll = _natural_roll(system, rule, setup, sources)
    attack_items, defense_items, crit_shift = _modifiers(system, rule, setup, sources)
    critical = rule["critical"]
    fail_rule = rule.get("crit_fail")
    for entry in (rule.get("always_hit"), rule.get("always_miss"), critical, fail_rule):
        if entry:
            sources.cite(entry.get("cite"))
            sources.interpret(entry.get("interpretation"))
    for note in rule.get("unstated", []):
        sources.interpret(note)
    rules = _NaturalRules(
        always_hit=frozenset(rule.get("always_hit", {}).get("naturals", [])),
        always_miss=frozenset(rule.get("always_miss", {}).get("naturals", [])),
        crit_fails=frozenset(fail_rule["naturals"] if fail_rule else []),
        crit_from=int(critical["from"]) + crit_shift,
        requires_hit=bool(critical.get("requires_hit", False)),
    )
    roll_items = [("Attack bonus", setup.bonus)]
    if setup.escalation:
        roll_items.append(("Escalation die", setup.escalation))
    roll_items += attack_items
    defense_items = [("Defense", setup.defense), *defense_items]
    return _Prepared(
        roll,
        sum(value for _, value in roll_items),
        sum(value for _, value in defense_items),
        rules,
        tuple(roll_items + defense_items),
    )


def _count_outcomes(prepared: _Prepared, defense: int) -> list[tuple[int, str, int]]:
    """(natural, outcome, ways) for every natural roll, in whole numbers of ways."""
    natural_roll = _natural_distribution(prepared.roll)
    return [
        (natural, prepared.rules.outcome(natural, natural + prepared.modifier >= defense), count)
        for natural, count in enumerate(natural_roll.counts, start=natural_roll.offset)
        if count
    ]


def hit_chance_by_defense(
    system: System, setup: AttackSetup, defenses: Sequence[int]
) -> list[tuple[int, Fraction]]:
    """P(hit) against each defense (before situational defense modifiers), for charts."""
    prepared = _prepare(system, setup, Sources())
    shift = prepared.defense - setup.defense
    total = _natural_distribution(prepared.roll).total
    return [
        (
            defense,
            Fraction(
                sum(
                    ways
                    for _, outcome, ways in _count_outcomes(prepared, defense + shift)
                    if outcome in ("hit", "crit")
                ),
                total,
            ),
        )
        for defense in defenses
    ]


def attack(system: System, setup: AttackSetup) -> AttackResult:
    sources = Sources()
    prepared = _prepare(system, setup, sources)
    total = _natural_distribution(prepared.roll).total
    counted = _count_outcomes(prepared, prepared.defense)
    ways = dict.fromkeys(("hit", "crit", "miss", "crit_fail"), 0)
    for _, outcome, count in counted:
        ways[outcome] += count
    hit = Fraction(ways["hit"] + ways["crit"], total)
    rule = system.rule("attack", "attack rolls")
    expected = None
    if setup.damage is not None:
        outcomes = [(natural, outcome, Fraction(n, total)) for natural, outcome, n in counted]
        expected = _expected_damage(system, rule, setup, outcomes, sources)
    return AttackResult(
        roll=prepared.roll,
        attack_modifier=prepared.modifier,
        defense=prepared.defense,
        hit=hit,
        crit=Fraction(ways["crit"], total),
        miss=1 - hit,
        crit_fail=Fraction(ways["crit_fail"], total) if rule.get("crit_fail") else None,
        at_least_one_hit=1 - (1 - hit) ** setup.attacks,
        expected_damage=expected,
        sources=sources,
        breakdown=prepared.breakdown,
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
