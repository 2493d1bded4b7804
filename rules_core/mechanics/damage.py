"""Damage: a roll's distribution under each system's critical, resistance and floor rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from rules_core.citations import Sources
from rules_core.dice import (
    MAX_CONSTANT,
    NOTATIONS,
    DiceError,
    Distribution,
    Expression,
    NotationError,
    parse,
)
from rules_core.errors import RulesError
from rules_core.rules.damage import Damage
from rules_core.systems import System, get_system, system_slugs


def notations(system: System) -> frozenset[str]:
    """The dice notations beyond NdX that the system's text defines (its rules data)."""
    return frozenset(system.damage.notation) if system.defines("damage") else frozenset()


def _notation_refused(system: System, error: NotationError) -> DiceError:
    """The refusal, naming the systems whose texts do define the notation (from data)."""
    others = [
        get_system(slug).title
        for slug in system_slugs()
        if error.notation in notations(get_system(slug))
    ]
    where = (
        f" It is defined by {' and '.join(others)}." if others else " No system here defines it."
    )
    return DiceError(
        f"{system.title} does not define {NOTATIONS[error.notation]} in its text: "
        f"{error.written!r}.{where}"
    )


def parse_for(
    system: System,
    text: str,
    *,
    weapon_die: int | None = None,
    level: int | None = None,
    sources: Sources | None = None,
) -> Expression:
    """A damage roll as the system's text writes it: only the notations it defines.

    With `sources`, each notation used is cited with its labelled reading.
    """
    try:
        expression = parse(text, weapon_die=weapon_die, level=level, notations=notations(system))
    except NotationError as error:
        raise _notation_refused(system, error) from None
    if sources is not None:
        defined = system.damage.notation if system.defines("damage") else {}
        for name in sorted(expression.notations):
            entry = defined.get(name)
            if entry is not None:
                sources.rest_on(entry)
    return expression


@dataclass(frozen=True)
class DamageSetup:
    """A damage roll as asked: a critical hit, the target's resistance or vulnerability, its HP."""

    expression: str
    crit: bool = False
    weapon_die: int | None = None
    level: int | None = None
    extra_crit: str | None = None  # bonus dice an effect adds on a critical hit
    resistance: int | None = None  # Orcus: reduce by X; Into the Unknown: any value halves
    vulnerability: int | None = None
    # The attack's own multiplier (the 3d6 rules' Resist X+, a weakened attacker: 1/2),
    # applied before resistance and vulnerability and rounded down.
    scale: Fraction = Fraction(1)
    hp: int | None = None


@dataclass(frozen=True)
class DamageResult:
    """A damage roll's exact distribution, after the rules that change it."""

    expression: str  # what was rolled, after the critical-hit rule
    distribution: Distribution
    at_least_hp: Fraction | None
    sources: Sources = field(compare=False)
    # How the critical-hit rule changed the roll, in words ("2d8 maximised = 16, + 4");
    # the expression itself where no rule changed it.
    description: str = ""

    @property
    def minimum(self) -> int:
        return self.distribution.min

    @property
    def maximum(self) -> int:
        return self.distribution.max

    @property
    def mean(self) -> Fraction:
        return self.distribution.mean()


def _critical(
    system: System,
    rule: Damage,
    expression: Expression,
    setup: DamageSetup,
    sources: Sources,
) -> tuple[Expression, Distribution | None, int]:
    """The expression rolled on a critical hit, any extra rolled dice, and a total multiplier."""
    critical = rule.critical
    sources.rest_on(critical)
    extra = None
    if setup.extra_crit:
        if critical.extra_dice != "rolled":
            raise system.not_defined("extra_crit", "extra critical-hit dice")
        extra = parse_for(
            system,
            setup.extra_crit,
            weapon_die=setup.weapon_die,
            level=setup.level,
            sources=sources,
        )
    kind = critical.kind
    if kind == "maximise":
        return expression.with_dice_maximised(), extra.distribution() if extra else None, 1
    if kind == "double-dice":
        return expression.doubled_dice(), extra.distribution() if extra else None, 1
    if kind == "double-total":
        return expression, extra.distribution() if extra else None, 2
    raise RulesError(f"Unknown critical-hit rule '{kind}' in the rules data.")


def _shifted_by(amount: int) -> Callable[[int], int]:
    """A step adding a fixed amount to a total (a negative amount takes it off)."""
    return lambda total: total + amount


def _resist(
    system: System, rule: Damage, setup: DamageSetup, sources: Sources
) -> list[Callable[[int], int]]:
    """The functions applying resistance and vulnerability to a total, per the text."""
    steps: list[Callable[[int], int]] = []
    for name, value, entry in (
        ("resistance", setup.resistance, rule.resistance),
        ("vulnerability", setup.vulnerability, rule.vulnerability),
    ):
        if value is None:
            continue
        if entry is None:
            raise system.not_defined(name, f"damage {name}")
        sources.rest_on(entry)
        kind = entry.kind
        if kind in ("subtract", "add"):
            if value < 1:
                raise RulesError(f"{system.short_title} {name} needs its value, e.g. 5.")
            if value > MAX_CONSTANT:
                raise RulesError(f"{system.short_title} {name} is at most {MAX_CONSTANT:,}.")
            steps.append(_shifted_by(value if kind == "add" else -value))
        elif kind in ("halve", "double"):
            if value:
                raise RulesError(
                    f"In {system.short_title}, {name} {kind}s damage; it takes no value."
                )
            steps.append(
                (lambda total: total // 2) if kind == "halve" else (lambda total: total * 2)
            )
        elif kind == "natural-threshold":
            raise RulesError(
                f"In {system.short_title}, resistance depends on the attack's natural roll: "
                "use the attack calculator with --resist."
            )
        else:
            raise RulesError(f"Unknown {name} rule '{kind}' in the rules data.")
    return steps


def damage(system: System, setup: DamageSetup) -> DamageResult:
    rule = system.damage
    sources = Sources()
    sources.cite(rule.cite)
    expression = parse_for(
        system, setup.expression, weapon_die=setup.weapon_die, level=setup.level, sources=sources
    )
    if not expression.dice_terms() and not expression.terms:
        raise RulesError("Give a damage roll such as 2d6+3.")
    extra: Distribution | None = None
    multiplier = 1
    written = expression
    if setup.crit:
        expression, extra, multiplier = _critical(system, rule, expression, setup, sources)
    elif setup.extra_crit:
        raise RulesError("Extra critical-hit dice apply only to a critical hit (add --crit).")
    sources.rest_on(rule.floor)
    lowest = rule.floor.value
    steps = _resist(system, rule, setup, sources)
    if setup.scale != 1 and rule.halving is not None:
        sources.rest_on(rule.halving)

    def apply(total: int) -> int:
        total = max(lowest, total * multiplier)
        total = total * setup.scale.numerator // setup.scale.denominator
        for step in steps:
            total = max(lowest, step(total))
        return total

    distribution = expression.distribution()
    if extra is not None:
        distribution = distribution + extra
    distribution = distribution.map(apply)
    at_least = None
    if setup.hp is not None:
        if setup.hp < 1:
            raise RulesError("Hit points to reach must be at least 1.")
        at_least = distribution.at_least(setup.hp)
    text = expression.text
    described = _described(written, expression) if setup.crit else text
    if extra is not None:
        text += f" + {setup.extra_crit}"
        described += f", + {setup.extra_crit} rolled"
    if multiplier != 1:
        text = f"({text}) x {multiplier}"
        described = f"{text}, the total doubled" if multiplier == 2 else text
    return DamageResult(text, distribution, at_least, sources, described)


def _described(written: Expression, rolled: Expression) -> str:
    """The critical roll in words: each maximised dice group with its value, or the new roll."""
    if rolled.terms == written.terms:
        return rolled.text
    if len(rolled.terms) != len(written.terms) or any(t.is_dice for t in rolled.terms):
        return f"{written.text} with the dice doubled = {rolled.text}"
    parts = []
    for index, (before, after) in enumerate(zip(written.terms, rolled.terms, strict=True)):
        sign = ("- " if before.sign < 0 else "+ ") if index else ("-" if before.sign < 0 else "")
        if before.is_dice:
            how = "maximised" if before.sign > 0 else "at its lowest"
            parts.append(f"{sign}{before.text} {how} = {after.constant}")
        else:
            parts.append(f"{sign}{before.constant}")
    return ", ".join(parts)
