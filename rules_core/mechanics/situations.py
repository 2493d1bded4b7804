"""Situations and conditions on an attack, read from a system's `attack.situations` data.

Each situation is data: a label, its citations, and effects drawn from a small vocabulary
(the fields of `rules_core.rules.attack.Effect`, which the schema's EFFECTS in
hooks/content/rules_schema.py checks and documents). The code reads the vocabulary and
never a situation's name, so a contributor adds a condition by editing `rules.yml` alone.

A situation is a state: choosing it twice, or reaching it twice (two conditions that each
grant combat advantage), counts once. Situations of one `group` (degrees of cover) do not
add up: only the most protective of them applies.

Every answer says its own why: each situation that applied and what it did (`Reason`),
and, where a situation's effect hangs on another situation the reader did not choose (a
prone target, within 5 feet or not), which reading was taken and how to get the other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import Any

from rules_core.citations import Sources
from rules_core.errors import RulesError
from rules_core.numbers import signed
from rules_core.rules.attack import EFFECT_KINDS, Effect, Situation
from rules_core.systems import System


@dataclass(frozen=True)
class Reason:
    """One situation (with the branch of it that held) and what it did to the attack."""

    source: str  # "Target prone, not ‘Attacker within 5 feet of the target’"
    effects: tuple[str, ...]  # ("+2 to the defense",), ...: all but the roll mode
    advantage: bool = False
    disadvantage: bool = False
    by: str | None = None  # the chosen situation that brought this one (`confers`), by label

    @property
    def named(self) -> str:
        """The reason as the roll mode names it: by what the reader chose ("Target knocked
        out (counts as Target prone)"), not only by what that conferred."""
        return f"{self.by} (counts as {self.source})" if self.by else self.source

    @property
    def mode(self) -> str | None:
        """The roll mode this reason gives: 'advantage', 'disadvantage', both, or None."""
        modes = [
            m
            for m, on in (("advantage", self.advantage), ("disadvantage", self.disadvantage))
            if on
        ]
        return " and ".join(modes) or None

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "mode": self.mode, "effects": list(self.effects)}


@dataclass(frozen=True)
class Applied:
    """What the chosen situations do to one attack, and which of them did what."""

    attack: tuple[tuple[str, int], ...] = ()  # (label, value), in the order they applied
    defense: tuple[tuple[str, int], ...] = ()
    crit_shift: int = 0
    advantage: int = 0
    disadvantage: int = 0
    hit_is_critical: bool = False
    always_critical: bool = False
    damage_scale: Fraction = Fraction(1)
    resistance: int | None = None
    ignores_escalation: str | None = None  # the label of the situation that says so
    because: tuple[Reason, ...] = ()  # in the order the situations applied
    crit_shifted_by: tuple[str, ...] = ()  # the situations that move the critical range

    @property
    def advantage_from(self) -> tuple[str, ...]:
        """The sources of the reasons that gave advantage."""
        return tuple(reason.named for reason in self.because if reason.advantage)

    @property
    def disadvantage_from(self) -> tuple[str, ...]:
        return tuple(reason.named for reason in self.because if reason.disadvantage)


NOTHING_APPLIED = Applied()


def situations(system: System) -> Mapping[str, Situation]:
    """A system's situations by name, in the order of its rules data."""
    return system.attack.situations if system.defines("attack") else {}


def attack_types(system: System) -> tuple[str, ...]:
    """A system's attack types ('melee', ...), where a rule of its text depends on them."""
    return system.attack.type_names if system.defines("attack") else ()


def depends_on(entry: Situation) -> list[str]:
    """The situations a situation's effect depends on (its branches' `if` and `unless`):
    the questions its answer takes as not so unless chosen, and the form asks beside it."""
    return list(
        dict.fromkeys(other for branch in entry.when for other in [*branch.if_, *branch.unless])
    )


def _quoted(labels: Sequence[str]) -> str:
    return ", ".join(f"‘{label}’" for label in labels)


# The effect kinds a roll mode says (with where it came from), not describe_effects.
ROLL_MODES = ("advantage", "disadvantage")

type _Words = Callable[[Any, Callable[[str], str], int], str]

# Each effect kind but the roll modes, in words: (its value, a situation's label by name,
# the printed critical range) -> what it does.
_WORDS: dict[str, _Words] = {
    "attack": lambda value, _, __: f"{signed(value)} to the attack roll",
    "defense": lambda value, _, __: f"{signed(value)} to the defense",
    "crit_from": lambda value, _, critical_from: (
        f"critical hit on a natural {critical_from + value}+"
    ),
    "hit_is_critical": lambda value, _, __: "a hit is a critical hit",
    "always_critical": lambda value, _, __: "always a critical hit",
    "ignores_escalation": lambda value, _, __: "no escalation die",
    "damage_multiplier": lambda value, _, __: f"damage \u00d7 {value}",
    "resistance": lambda value, _, __: f"resistance {value}" if value else "resistance",
    "confers": lambda value, label_of, _: f"counts as {', '.join(map(label_of, value))}",
    "prevents": lambda value, label_of, _: f"rules out {', '.join(map(label_of, value))}",
}
_DEFAULTS = {field.name: field.default for field in fields(Effect)}


def describe_effects(
    effect: Effect, label_of: Callable[[str], str], critical_from: int
) -> list[str]:
    """What one effect does besides advantage and disadvantage, in words, kind by kind of
    the vocabulary (EFFECT_KINDS); `crit_from` shifts the printed critical range
    (`critical_from`). The answers' why and the GM screen (hooks/pages/gm_screen.py) both
    say it so."""
    return [
        _WORDS[kind](value, label_of, critical_from)
        for kind in EFFECT_KINDS
        if kind not in ROLL_MODES and (value := getattr(effect, kind)) != _DEFAULTS[kind]
    ]


def _condition(effect: Effect, label_of: Callable[[str], str]) -> str:
    """The branch of a situation, in words: 'melee attack', 'not ‘Attacker adjacent’'."""
    parts = []
    if effect.attack_types:
        parts.append(f"{' or '.join(effect.attack_types)} attack")
    if effect.if_:
        parts.append(f"with {_quoted([label_of(name) for name in effect.if_])}")
    if effect.unless:
        names = [label_of(name) for name in effect.unless]
        # A long list of exceptions is said in full by the interpretation, not here.
        parts.append(f"not {_quoted(names)}" if len(names) == 1 else "no exception chosen")
    return ", ".join(parts)


class _Resolver:
    def __init__(self, system: System, attack_type: str | None) -> None:
        self.system = system
        self.table = situations(system)
        self.attack_type = attack_type
        self.types = attack_types(system)
        self.critical_from = system.attack.critical.from_ if system.defines("attack") else 0

    def entry(self, name: str) -> Situation:
        if name not in self.table:
            known = ", ".join(self.table) or "none"
            raise RulesError(
                f"{name!r} is not a situation {self.system.short_title} defines (known: {known})."
            )
        return self.table[name]

    def label(self, name: str) -> str:
        return self.entry(name).label

    def reasons(self, name: str, holding: list[Effect], active: Sequence[str] = ()) -> list[Reason]:
        """What a situation did: its own effects, then each branch that held, named."""
        label = self.label(name)
        found = []
        for effect in holding:
            reason = Reason(
                label,
                tuple(describe_effects(effect, self.label, self.critical_from)),
                advantage=bool(effect.advantage),
                disadvantage=bool(effect.disadvantage),
            )
            if reason.mode or reason.effects:
                branch = _condition(effect, self.label) if effect is not self.table[name] else ""
                found.append(replace(reason, source=f"{label}, {branch}" if branch else label))
        if not found:
            # Ticked, yet nothing: said when another chosen situation rules its branch out
            # (a prone target, "unless attacker is adjacent"), so the tick is not ignored.
            ruling_out = [
                other
                for effect in self.entry(name).when
                if self.kind_matches(effect)
                for other in effect.unless
                if other in active
            ]
            if ruling_out:
                with_them = _quoted([self.label(other) for other in dict.fromkeys(ruling_out)])
                found.append(Reason(f"{label}, with {with_them}", ("no effect",)))
        return found

    def kind_matches(self, effect: Effect) -> bool:
        types = effect.attack_types
        return types is None or self.attack_type in types

    def unchosen_readings(self, name: str, active: Sequence[str]) -> list[str]:
        """Where a branch of this situation names a situation not chosen, the reading
        taken (as not so) and what choosing it would give: never a silent choice."""
        branches = [e for e in self.entry(name).when if self.kind_matches(e)]
        unchosen = [
            other
            for branch in branches
            for other in dict.fromkeys([*branch.if_, *branch.unless])
            if other not in active
        ]
        now = self._branch_effects(name, active)
        alternatives: dict[str, list[str]] = {}  # what choosing it gives -> the names
        for other in dict.fromkeys(unchosen):
            alternative = self._branch_effects(name, [*active, other])
            if alternative != now:
                alternatives.setdefault(alternative or "no effect", []).append(other)
        readings = []
        for alternative, names in alternatives.items():
            labels = [self.label(other) for other in names]
            if len(labels) == 1:
                taken = f"{_quoted(labels)} is not chosen, so it is taken as not so"
                choose = "Choose it if it is"
            else:
                taken = f"none of {_quoted(labels)} is chosen, so each is taken as not so"
                choose = "Choose the one that is, if any"
            then = alternative if alternative != "no effect" else f"no {now}"
            readings.append(
                f"{self.label(name)}: {taken}: {now or 'nothing more'}. {choose}; then: {then}."
            )
        return readings

    def _branch_effects(self, name: str, active: Sequence[str]) -> str:
        """What the holding branches of a situation do, in words ('' for nothing)."""
        reasons = self.reasons(
            name, [e for e in self.entry(name).when if self.holds(name, e, active)]
        )
        return ", ".join(filter(None, (part for r in reasons for part in (r.mode, *r.effects))))

    def holds(self, name: str, effect: Effect, active: Sequence[str]) -> bool:
        types = effect.attack_types
        if types is not None:
            if self.attack_type is None:
                choices = ", ".join(self.types) or "none"
                label = self.entry(name).label
                raise RulesError(
                    f"{label} depends on the attack type: give one ({choices}).",
                    field="attack_type",
                )
            if self.attack_type not in types:
                return False
        return all(other in active for other in effect.if_) and not any(
            other in active for other in effect.unless
        )

    def holding(self, name: str, active: Sequence[str]) -> list[Effect]:
        return [effect for effect in self.entry(name).effects if self.holds(name, effect, active)]

    def expand(self, chosen: Iterable[str], blocked: set[str]) -> list[str]:
        """The chosen situations and all they confer, each once, in the order reached."""
        active = [name for name in dict.fromkeys(chosen) if name not in blocked]
        for name in active:
            self.entry(name)
        changed = True
        while changed:
            changed = False
            for name in list(active):
                for effect in self.holding(name, active):
                    for other in effect.confers:
                        if other not in active and other not in blocked:
                            self.entry(other)
                            active.append(other)
                            changed = True
        return active

    def protection(self, name: str, active: Sequence[str]) -> int:
        """How much a situation lowers the roll against the defense (more is more protective)."""
        return sum(effect.defense - effect.attack for effect in self.holding(name, active))


def resolve(
    system: System, chosen: Sequence[str], attack_type: str | None, sources: Sources
) -> Applied:
    """Apply the chosen situations (names from the system's data) to one attack."""
    if not chosen and attack_type is None:
        return NOTHING_APPLIED  # the common case, asked once per defense on a chart
    attack_type = _implied_attack_type(system, chosen, attack_type, sources)
    resolver = _Resolver(system, attack_type)
    if attack_type is not None:
        if not resolver.types:
            raise system.not_defined("attack_types", "attack types that change an attack")
        if attack_type not in resolver.types:
            raise RulesError(
                f"{attack_type!r} is not an attack type {system.short_title} defines "
                f"(known: {', '.join(resolver.types)})."
            )
        # The sentences of the attack types in general, and of this one (not the others').
        kinds = system.attack.attack_types if system.defines("attack") else None
        if kinds is not None:
            sources.cite(kinds.cite)
            own = kinds.each.get(attack_type)
            if own is not None:
                sources.rest_on(own)

    active = _without_prevented(resolver, chosen, sources)
    applying = _most_protective_of_each_group(resolver, active, sources)
    attack: list[tuple[str, int]] = []
    defense: list[tuple[str, int]] = []
    effects: list[Effect] = []
    scaling: list[str] = []  # the situations that multiply the damage
    ignores_escalation = None
    because: list[Reason] = []
    crit_shifted_by: list[str] = []
    brought = _brought_by(resolver, chosen, applying)
    for name in applying:
        entry = resolver.entry(name)
        sources.rest_on(entry)
        holding = resolver.holding(name, applying)
        effects += holding
        by = brought.get(name)
        because += [replace(r, by=by) for r in resolver.reasons(name, holding, applying)]
        for reading in resolver.unchosen_readings(name, applying):
            sources.interpret(reading)
        on_roll = sum(effect.attack for effect in holding)
        on_defense = sum(effect.defense for effect in holding)
        if on_roll:
            attack.append((entry.label, on_roll))
        if on_defense:
            defense.append((entry.label, on_defense))
        if ignores_escalation is None and any(e.ignores_escalation for e in holding):
            ignores_escalation = entry.label
        if any(effect.damage_multiplier is not None for effect in holding):
            scaling.append(entry.label)
        if any(effect.crit_from for effect in holding):
            crit_shifted_by.append(entry.label)
    scale = Fraction(1)
    for effect in effects:
        if effect.damage_multiplier is not None:
            scale *= effect.damage_multiplier
    if len(scaling) > 1:
        sources.interpret(
            f"The damage is multiplied once for each of {' and '.join(scaling)} (x{scale} in "
            "all): the text does not say how several of these combine."
        )
    resistances = [effect.resistance for effect in effects if effect.resistance is not None]
    return Applied(
        attack=tuple(attack),
        defense=tuple(defense),
        crit_shift=sum(effect.crit_from for effect in effects),
        advantage=sum(effect.advantage for effect in effects),
        disadvantage=sum(effect.disadvantage for effect in effects),
        hit_is_critical=any(effect.hit_is_critical for effect in effects),
        always_critical=any(effect.always_critical for effect in effects),
        damage_scale=scale,
        resistance=max(resistances) if resistances else None,  # see the data's interpretation
        ignores_escalation=ignores_escalation,
        because=tuple(because),
        crit_shifted_by=tuple(crit_shifted_by),
    )


def _implied_attack_type(
    system: System, chosen: Sequence[str], given: str | None, sources: Sources
) -> str | None:
    """A situation the text ties to one attack type (a charge is "a single basic melee
    attack") makes the attack that type, and refuses another."""
    table = situations(system)
    implied = {}
    for name in dict.fromkeys(chosen):
        entry = table.get(name)
        if entry is None:
            continue  # an unknown name is refused by the resolver, with the known ones
        if entry.attack_type is not None:
            implied[name] = (entry.label, entry.attack_type)
    kinds = {kind for _, kind in implied.values()}
    if len(kinds) > 1:
        listed = "; ".join(f"{label} is a {kind} attack" for label, kind in implied.values())
        raise RulesError(f"One attack cannot be all of these: {listed}.", field="situations")
    if not kinds:
        return given
    kind = kinds.pop()
    label = next(label for label, _ in implied.values())
    if given is not None and given != kind:
        raise RulesError(f"{label} is a {kind} attack, not a {given} one.", field="attack_type")
    for name in implied:
        sources.cite(table[name].cite)
    return kind


def _brought_by(resolver: _Resolver, chosen: Sequence[str], active: list[str]) -> dict[str, str]:
    """Each situation that applies unchosen, and the label of the chosen one whose `confers`
    brought it (the first chosen, through any chain)."""
    brought: dict[str, str] = {}
    for name in dict.fromkeys(chosen):
        todo = [name]
        while todo:
            for effect in resolver.holding(todo.pop(), active):
                for other in effect.confers:
                    if other in active and other not in chosen and other not in brought:
                        brought[other] = resolver.label(name)
                        todo.append(other)
    return brought


def _without_prevented(resolver: _Resolver, chosen: Sequence[str], sources: Sources) -> list[str]:
    """All that the chosen situations bring, less what one of them prevents."""
    reached = resolver.expand(chosen, set())
    blocked: dict[str, str] = {}
    for name in reached:
        for effect in resolver.holding(name, reached):
            for other in effect.prevents:
                resolver.entry(other)
                blocked.setdefault(other, name)
    for name, by in blocked.items():
        if name in reached:
            sources.cite(resolver.entry(by).cite)
            sources.interpret(f"{resolver.label(name)} does not apply: {resolver.label(by)}.")
    return resolver.expand(chosen, set(blocked))


def _most_protective_of_each_group(
    resolver: _Resolver, active: list[str], sources: Sources
) -> list[str]:
    """Of one group's situations only the most protective applies (the first, on a tie)."""
    kept: dict[str, str] = {}
    for name in active:
        group = resolver.entry(name).group
        if group is not None and (
            group not in kept
            or resolver.protection(name, active) > resolver.protection(kept[group], active)
        ):
            kept[group] = name
    applying = []
    for name in active:
        group = resolver.entry(name).group
        if group is None or kept[group] == name:
            applying.append(name)
            continue
        winner = resolver.label(kept[group])
        sources.cite(resolver.entry(name).cite)
        sources.interpret(
            f"{resolver.label(name)} and {winner} do not add up: "
            f"only the most protective, {winner}, applies."
        )
    return applying
