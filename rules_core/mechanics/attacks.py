"""Attack odds: each system's roll, natural-roll rules, situations and expected damage."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache

from rules_core.citations import Sources
from rules_core.dice import Distribution, parse
from rules_core.errors import NotDefined, RulesError
from rules_core.mechanics.damage import DamageSetup, damage
from rules_core.mechanics.situations import Applied, Reason, resolve
from rules_core.rules.attack import Attack, Naturals
from rules_core.systems import System

MAX_ATTACKS = 100
MAX_MODIFIER = 1000


@dataclass(frozen=True)
class AttackSetup:
    """One attack as asked: the roll's bonus against a defense, and what changes it."""

    bonus: int
    defense: int
    advantage: bool = False
    disadvantage: bool = False
    escalation: int = 0
    situations: tuple[str, ...] = ()  # names from the system's `attack.situations`
    attacks: int = 1
    damage: str | None = None  # hit damage
    miss_damage: str | None = None  # damage of a miss effect, if any
    weapon_die: int | None = None
    level: int | None = None
    extra_crit: str | None = None
    resist: int | None = None  # the 3d6 rules' Resist X+
    # The target's resistance and vulnerability, as the damage calculator takes them.
    resistance: int | None = None
    vulnerability: int | None = None
    attack_type: str | None = None  # one of the system's `attack.attack_types`, if any


@dataclass(frozen=True)
class AttackResult:
    """The exact odds of one attack, and the damage it deals."""

    roll: str  # the natural roll, e.g. "1d20", "2d20kh1", "3d6"
    attack_modifier: int  # bonus + escalation + situational attack modifiers
    defense: int  # after situational defense modifiers
    hit: Fraction  # any hit, critical hits included
    crit: Fraction
    miss: Fraction  # any miss, critical failures included
    crit_fail: Fraction | None  # None where the system has no such rule
    at_least_one_hit: Fraction  # over `attacks` attacks
    expected_damage: Fraction | None
    # The damage one attack deals, misses (0 or a miss effect) and critical hits included.
    damage_per_attack: Distribution | None
    sources: Sources = field(compare=False)
    # The roll's terms, then the defense's: ("Attack bonus", 7), ("Combat advantage", 2), ...
    # ("Defense", 15), ("Defense: Half cover (+2 AC)", 2). The terms before ("Defense", ...)
    # sum to attack_modifier, the rest to defense.
    breakdown: tuple[tuple[str, int], ...] = ()
    # Why: each choice and situation that changed the roll and what it did, the roll mode
    # first ("Roll choice: advantage"), then each situation in the order it applied.
    because: tuple[Reason, ...] = ()
    # The roll mode in words, with where it came from; None for a plain roll.
    roll_mode: str | None = None

    @property
    def why(self) -> list[str]:
        return why_lines(self.roll_mode, ((r.source, r.effects) for r in self.because))


@cache
def _natural_distribution(roll: str) -> Distribution:
    """The natural roll's distribution ('1d20', '2d20kh1', '3d6'): a handful, reused."""
    return parse(roll).distribution()


def _natural_roll(
    system: System, rule: Attack, setup: AttackSetup, applied: Applied, sources: Sources
) -> tuple[str, NotDefined | None]:
    """The natural roll, and why it is not defined if the text gives no dice for it.

    Advantage and disadvantage come from the set-up and from situations; how they combine
    (one extra die however many, both cancel) is the system's `advantage` entry.
    """
    advantage = int(setup.advantage) + applied.advantage
    disadvantage = int(setup.disadvantage) + applied.disadvantage
    if not (advantage or disadvantage):
        return rule.roll, None
    entry = rule.advantage
    if entry is None:
        # Refused once the outcomes are known, unless every natural roll gives the same
        # answer (a 3d6 Coup de Grace crits whatever the roll).
        counted = ""
        if applied.advantage or applied.disadvantage:
            counts = [
                f"{n} {name}"
                for n, name in ((advantage, "Advantage"), (disadvantage, "Disadvantage"))
                if n
            ]
            counted = f" (this attack has {' and '.join(counts)})"
        return rule.roll, system.not_defined(
            "advantage", f"advantage and disadvantage dice{counted}"
        )
    sources.cite(entry.cite)
    if advantage and disadvantage:
        sources.interpret(entry.both)
        return rule.roll, None
    return entry.advantage if advantage else entry.disadvantage, None


def _check_setup(system: System, rule: Attack, setup: AttackSetup, sources: Sources) -> None:
    if abs(setup.bonus) > MAX_MODIFIER or abs(setup.defense) > MAX_MODIFIER:
        raise RulesError(f"Bonus and defense must be within ±{MAX_MODIFIER}.")
    if not 1 <= setup.attacks <= MAX_ATTACKS:
        raise RulesError(f"The number of attacks must be from 1 to {MAX_ATTACKS}.")
    if setup.escalation:
        entry = rule.escalation
        if entry is None:
            raise system.not_defined("escalation", "an escalation die")
        if not 0 <= setup.escalation <= entry.max:
            raise RulesError(f"The escalation die runs from 0 to {entry.max}.")
        sources.cite(entry.cite)
    if setup.resist is not None and rule.resist is None:
        raise system.not_defined("resist", "resistance tied to the natural roll (Resist X+)")
    if setup.damage is None and (setup.resistance, setup.vulnerability) != (None, None):
        # The damage calculator's own rules refuse what the system does not define.
        damage(
            system, DamageSetup("0", resistance=setup.resistance, vulnerability=setup.vulnerability)
        )


@dataclass(frozen=True)
class _NaturalRules:
    """A system's natural-roll rules for one attack, with the situations applied."""

    always_hit: frozenset[int]
    always_miss: frozenset[int]
    crit_fails: frozenset[int]
    crit_from: int
    requires_hit: bool
    hit_is_critical: bool = False  # e.g. a coup de grace: a hit is a critical hit
    always_critical: bool = False  # the attack is a critical hit whatever the roll

    def outcome(self, natural: int, reaches: bool) -> str:
        if self.always_critical:
            return "crit"
        if natural in self.always_miss:
            return "miss"
        if natural in self.crit_fails:
            return "crit_fail"
        if natural >= self.crit_from and (reaches or not self.requires_hit):
            return "crit"
        if reaches or natural in self.always_hit:
            return "crit" if self.hit_is_critical else "hit"
        return "miss"


def _naturals(rule: Naturals | None) -> frozenset[int]:
    return frozenset(rule.naturals if rule else ())


ROLL_CHOICE = "Roll choice"  # the set-up's advantage or disadvantage, as the form names it


def _choice_reasons(setup: AttackSetup) -> tuple[Reason, ...]:
    if not (setup.advantage or setup.disadvantage):
        return ()
    return (Reason(ROLL_CHOICE, (), setup.advantage, setup.disadvantage),)


def _crit_range_together(applied: Applied, rules: _NaturalRules) -> tuple[Reason, ...]:
    """Each situation says its own critical range; where several shift it, the sum too."""
    if len(applied.crit_shifted_by) < 2:
        return ()
    return (Reason("Together", (f"critical hit on a natural {rules.crit_from}+",)),)


def _roll_mode(rule: Attack, setup: AttackSetup, applied: Applied, roll: str) -> str | None:
    """The roll mode where the reader looks: which mode, from what, or that two cancel."""
    advantage = [ROLL_CHOICE] * setup.advantage + list(applied.advantage_from)
    disadvantage = [ROLL_CHOICE] * setup.disadvantage + list(applied.disadvantage_from)
    if not (advantage or disadvantage):
        return None
    dice = f"{roll}" if rule.advantage is not None else "no dice in the text"
    if advantage and disadvantage:
        return (
            f"Advantage ({'; '.join(advantage)}) and disadvantage ({'; '.join(disadvantage)}) "
            f"cancel: {dice}"
        )
    mode, sources = ("Advantage", advantage) if advantage else ("Disadvantage", disadvantage)
    return f"{mode} ({dice}): {'; '.join(sources)}"


@dataclass(frozen=True)
class _Prepared:
    """An attack's roll, modifier and defense once its situations are applied."""

    roll: str
    modifier: int
    defense: int
    rules: _NaturalRules
    breakdown: tuple[tuple[str, int], ...]
    applied: Applied
    undefined_roll: NotDefined | None  # the text gives no dice for this roll
    because: tuple[Reason, ...]
    roll_mode: str | None


def _prepare(system: System, setup: AttackSetup, sources: Sources) -> _Prepared:
    """Validate a setup and resolve everything but the dice: roll, modifiers, rules."""
    rule = system.attack
    sources.cite(rule.cite)
    _check_setup(system, rule, setup, sources)
    applied = resolve(system, setup.situations, setup.attack_type, sources)
    roll, undefined_roll = _natural_roll(system, rule, setup, applied, sources)
    # An attack that is a critical hit whatever the roll (a coup de grace) rests on none of
    # the natural-roll rules: their readings ("a natural 3 is a miss") would contradict it.
    if not applied.always_critical:
        for printed in (rule.always_hit, rule.always_miss, rule.critical, rule.crit_fail):
            if printed is not None:
                sources.rest_on(printed)
    for note in rule.unstated:
        sources.interpret(note)
    rules = _NaturalRules(
        always_hit=_naturals(rule.always_hit),
        always_miss=_naturals(rule.always_miss),
        crit_fails=_naturals(rule.crit_fail),
        crit_from=rule.critical.from_ + applied.crit_shift,
        requires_hit=rule.critical.requires_hit,
        hit_is_critical=applied.hit_is_critical,
        always_critical=applied.always_critical,
    )
    roll_terms = [("Attack bonus", setup.bonus)]
    if setup.escalation:
        roll_terms.append(("Escalation die", setup.escalation))
        if applied.ignores_escalation:
            roll_terms.append(
                (f"{applied.ignores_escalation}: escalation die counts as 0", -setup.escalation)
            )
    roll_terms += applied.attack
    defense_terms = [("Defense", setup.defense)]
    defense_terms += [(f"Defense: {label}", value) for label, value in applied.defense]
    return _Prepared(
        roll,
        sum(value for _, value in roll_terms),
        sum(value for _, value in defense_terms),
        rules,
        tuple(roll_terms + defense_terms),
        applied,
        undefined_roll,
        _choice_reasons(setup) + applied.because + _crit_range_together(applied, rules),
        _roll_mode(rule, setup, applied, roll),
    )


def _count_outcomes(prepared: _Prepared, defense: int) -> list[tuple[int, str, int]]:
    """(natural, outcome, ways) for every natural roll, in whole numbers of ways."""
    natural_roll = _natural_distribution(prepared.roll)
    return [
        (natural, prepared.rules.outcome(natural, natural + prepared.modifier >= defense), count)
        for natural, count in enumerate(natural_roll.counts, start=natural_roll.offset)
        if count
    ]


def _require_roll(
    prepared: _Prepared, counted: list[tuple[int, str, int]], resist: int | None, sources: Sources
) -> None:
    """Refuse a roll the text gives no dice for, unless no natural roll changes the answer."""
    if prepared.undefined_roll is None:
        return
    answers = {
        (outcome, resist is not None and natural < resist) for natural, outcome, _ in counted
    }
    if len(answers) > 1:
        raise prepared.undefined_roll
    sources.interpret(
        "Every natural roll gives the same result here, so the advantage and disadvantage "
        "dice the text does not define change nothing."
    )


def hit_chance_by_defense(
    system: System, setup: AttackSetup, defenses: Sequence[int]
) -> list[tuple[int, Fraction]]:
    """P(hit) against each defense (before situational defense modifiers), for charts."""
    prepared = _prepare(system, setup, Sources())
    shift = prepared.defense - setup.defense
    natural_roll = _natural_distribution(prepared.roll)
    # A natural roll's outcome depends on the defense only through whether it reaches it.
    naturals = [
        (
            natural,
            ways,
            prepared.rules.outcome(natural, True),
            prepared.rules.outcome(natural, False),
        )
        for natural, ways in enumerate(natural_roll.counts, start=natural_roll.offset)
        if ways
    ]
    chances = []
    for defense in defenses:
        if prepared.undefined_roll is not None:
            _require_roll(prepared, _count_outcomes(prepared, defense + shift), None, Sources())
        lowest_reaching = defense + shift - prepared.modifier
        hits = sum(
            ways
            for natural, ways, reaching, short in naturals
            if (reaching if natural >= lowest_reaching else short) in ("hit", "crit")
        )
        chances.append((defense, Fraction(hits, natural_roll.total)))
    return chances


def why_lines(roll_mode: str | None, because: Iterable[tuple[str, Sequence[str]]]) -> list[str]:
    """An attack's why, a line each: the roll mode and where it came from, then every other
    thing a situation did (a modifier, a crit range, the damage), each with its source.
    `because` holds each reason's (source, effects besides the roll mode)."""
    lines = [roll_mode] if roll_mode else []
    # Advantage and disadvantage are said once, by the roll mode, with their sources.
    lines += [f"{source}: {', '.join(effects)}" for source, effects in because if effects]
    return lines


def attack(system: System, setup: AttackSetup) -> AttackResult:
    sources = Sources()
    prepared = _prepare(system, setup, sources)
    total = _natural_distribution(prepared.roll).total
    counted = _count_outcomes(prepared, prepared.defense)
    _require_roll(prepared, counted, setup.resist if setup.damage else None, sources)
    ways = dict.fromkeys(("hit", "crit", "miss", "crit_fail"), 0)
    for _, outcome, count in counted:
        ways[outcome] += count
    hit = Fraction(ways["hit"] + ways["crit"], total)
    rule = system.attack
    dealt = None
    if setup.damage is not None:
        dealt = _damage_per_attack(system, rule, setup, prepared.applied, counted, sources)
    return AttackResult(
        roll=prepared.roll,
        attack_modifier=prepared.modifier,
        defense=prepared.defense,
        hit=hit,
        crit=Fraction(ways["crit"], total),
        miss=1 - hit,
        crit_fail=Fraction(ways["crit_fail"], total) if rule.crit_fail else None,
        at_least_one_hit=1 - (1 - hit) ** setup.attacks,
        expected_damage=None if dealt is None else dealt.mean(),
        damage_per_attack=dealt,
        sources=sources,
        breakdown=prepared.breakdown,
        because=prepared.because,
        roll_mode=prepared.roll_mode,
    )


def _damage_per_attack(
    system: System,
    rule: Attack,
    setup: AttackSetup,
    applied: Applied,
    counted: Sequence[tuple[int, str, int]],
    sources: Sources,
) -> Distribution:
    """The damage of one attack: hit, critical and miss effects, each under the system's rules.

    The damage calculator applies the critical-hit rule, the situations' multiplier and
    the target's resistance and vulnerability, in the order its rules give.
    """
    resistances = [value for value in (setup.resistance, applied.resistance) if value is not None]
    base = DamageSetup(
        expression=setup.damage or "0",
        weapon_die=setup.weapon_die,
        level=setup.level,
        resistance=max(resistances) if resistances else None,
        vulnerability=setup.vulnerability,
    )
    dealt: dict[tuple[str, bool], Distribution] = {}

    def rolled(outcome: str, halved: bool) -> Distribution:
        key = (outcome, halved)
        if key not in dealt:
            scale = applied.damage_scale * (Fraction(1, 2) if halved else 1)
            if outcome == "hit":
                result = damage(system, replace(base, scale=scale))
            elif outcome == "crit":
                result = damage(
                    system, replace(base, crit=True, extra_crit=setup.extra_crit, scale=scale)
                )
            elif outcome == "miss" and setup.miss_damage:
                result = damage(system, replace(base, expression=setup.miss_damage, scale=scale))
            else:
                # A plain miss, or a critical failure (no miss effects).
                dealt[key] = Distribution.constant(0)
                return dealt[key]
            sources.include(result.sources)
            dealt[key] = result.distribution
        return dealt[key]

    if setup.resist is not None and rule.resist is not None:  # else refused by _check_setup
        sources.rest_on(rule.resist)
    # The ways to roll each effect (outcome, halved or not), in the order first rolled.
    ways: dict[tuple[str, bool], int] = {}
    for natural, outcome, count in counted:
        effect = (outcome, setup.resist is not None and natural < setup.resist)
        ways[effect] = ways.get(effect, 0) + count
    total = sum(ways.values())
    return Distribution.mix([(Fraction(n, total), rolled(*effect)) for effect, n in ways.items()])
