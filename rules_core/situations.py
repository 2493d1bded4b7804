"""Situations and conditions on an attack, read from a system's `attack.situations` data.

Each situation is data: a label, its citations, and effects drawn from a small vocabulary
(the schema's EFFECTS, hooks/content/rules_schema.py, lists and documents it). The code
reads the vocabulary and never a situation's name, so a contributor adds a condition by
editing `rules.yml` alone.

A situation is a state: choosing it twice, or reaching it twice (two conditions that each
grant combat advantage), counts once. Situations of one `group` (degrees of cover) do not
add up: only the most protective of them applies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules_core.systems import RulesError, Sources, System


@dataclass(frozen=True)
class Applied:
    """What the chosen situations do to one attack."""

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


NOTHING_APPLIED = Applied()


def situations(system: System) -> dict[str, dict[str, Any]]:
    """A system's situations by name, in the order of its rules data."""
    return system.rules.get("attack", {}).get("situations", {})


def attack_types(system: System) -> tuple[str, ...]:
    """A system's attack types ('melee', ...), where a rule of its text depends on them."""
    return tuple(system.rules.get("attack", {}).get("attack_types", {}).get("names", []))


def _effects(entry: dict[str, Any]) -> list[dict[str, Any]]:
    return [entry, *entry.get("when", [])]


class _Resolver:
    def __init__(self, system: System, attack_type: str | None) -> None:
        self.system = system
        self.table = situations(system)
        self.attack_type = attack_type
        self.types = attack_types(system)

    def entry(self, name: str) -> dict[str, Any]:
        if name not in self.table:
            known = ", ".join(self.table) or "none"
            raise RulesError(
                f"{name!r} is not a situation {self.system.short_title} defines (known: {known})."
            )
        return self.table[name]  # its keys were checked against the schema at `make data`

    def holds(self, name: str, effect: dict[str, Any], active: Sequence[str]) -> bool:
        types = effect.get("attack_types")
        if types is not None:
            if self.attack_type is None:
                choices = ", ".join(self.types) or "none"
                label = self.entry(name)["label"]
                raise RulesError(
                    f"{label} depends on the attack type: give one ({choices}).",
                    field="attack_type",
                )
            if self.attack_type not in types:
                return False
        return all(other in active for other in effect.get("if", [])) and not any(
            other in active for other in effect.get("unless", [])
        )

    def holding(self, name: str, active: Sequence[str]) -> list[dict[str, Any]]:
        return [effect for effect in _effects(self.entry(name)) if self.holds(name, effect, active)]

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
                    for other in effect.get("confers", []):
                        if other not in active and other not in blocked:
                            self.entry(other)
                            active.append(other)
                            changed = True
        return active

    def protection(self, name: str, active: Sequence[str]) -> int:
        """How much a situation lowers the roll against the defense (more is more protective)."""
        return sum(
            int(effect.get("defense", 0)) - int(effect.get("attack", 0))
            for effect in self.holding(name, active)
        )


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
        sources.cite(system.rules["attack"]["attack_types"].get("cite"))

    active = _without_prevented(resolver, chosen, sources)
    applying = _most_protective_of_each_group(resolver, active, sources)
    attack: list[tuple[str, int]] = []
    defense: list[tuple[str, int]] = []
    effects: list[dict[str, Any]] = []
    scaling: list[str] = []  # the situations that multiply the damage
    ignores_escalation = None
    for name in applying:
        entry = resolver.entry(name)
        sources.rest_on(entry)
        holding = resolver.holding(name, applying)
        effects += holding
        on_roll = sum(int(effect.get("attack", 0)) for effect in holding)
        on_defense = sum(int(effect.get("defense", 0)) for effect in holding)
        if on_roll:
            attack.append((entry["label"], on_roll))
        if on_defense:
            defense.append((entry["label"], on_defense))
        if ignores_escalation is None and any(e.get("ignores_escalation") for e in holding):
            ignores_escalation = entry["label"]
        if any(effect.get("damage_multiplier") for effect in holding):
            scaling.append(entry["label"])
    scale = Fraction(1)
    for effect in effects:
        scale *= Fraction(str(effect.get("damage_multiplier", 1)))
    if len(scaling) > 1:
        sources.interpret(
            f"The damage is multiplied once for each of {' and '.join(scaling)} (x{scale} in "
            "all): the text does not say how several of these combine."
        )
    resistances = [int(effect["resistance"]) for effect in effects if "resistance" in effect]
    return Applied(
        attack=tuple(attack),
        defense=tuple(defense),
        crit_shift=sum(int(effect.get("crit_from", 0)) for effect in effects),
        advantage=sum(int(effect.get("advantage", 0)) for effect in effects),
        disadvantage=sum(int(effect.get("disadvantage", 0)) for effect in effects),
        hit_is_critical=any(effect.get("hit_is_critical") for effect in effects),
        always_critical=any(effect.get("always_critical") for effect in effects),
        damage_scale=scale,
        resistance=max(resistances) if resistances else None,  # see the data's interpretation
        ignores_escalation=ignores_escalation,
    )


def _implied_attack_type(
    system: System, chosen: Sequence[str], given: str | None, sources: Sources
) -> str | None:
    """A situation the text ties to one attack type (a charge is "a single basic melee
    attack") makes the attack that type, and refuses another."""
    table = situations(system)
    implied = {}
    for name in dict.fromkeys(chosen):
        entry = table.get(name)  # an unknown name is refused by the resolver, with the known
        kind = entry.get("attack_type") if entry is not None else None
        if kind is not None:
            implied[name] = (entry["label"], str(kind))
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
        sources.cite(table[name].get("cite"))
    return kind


def _without_prevented(resolver: _Resolver, chosen: Sequence[str], sources: Sources) -> list[str]:
    """All that the chosen situations bring, less what one of them prevents."""
    reached = resolver.expand(chosen, set())
    blocked: dict[str, str] = {}
    for name in reached:
        for effect in resolver.holding(name, reached):
            for other in effect.get("prevents", []):
                resolver.entry(other)
                blocked.setdefault(other, name)
    for name, by in blocked.items():
        if name in reached:
            sources.cite(resolver.entry(by).get("cite"))
            sources.interpret(
                f"{resolver.entry(name)['label']} does not apply: {resolver.entry(by)['label']}."
            )
    return resolver.expand(chosen, set(blocked))


def _most_protective_of_each_group(
    resolver: _Resolver, active: list[str], sources: Sources
) -> list[str]:
    """Of one group's situations only the most protective applies (the first, on a tie)."""
    kept: dict[str, str] = {}
    for name in active:
        group = resolver.entry(name).get("group")
        if group is not None and (
            group not in kept
            or resolver.protection(name, active) > resolver.protection(kept[group], active)
        ):
            kept[group] = name
    applying = []
    for name in active:
        group = resolver.entry(name).get("group")
        if group is None or kept[group] == name:
            applying.append(name)
            continue
        winner = resolver.entry(kept[group])["label"]
        sources.cite(resolver.entry(name).get("cite"))
        sources.interpret(
            f"{resolver.entry(name)['label']} and {winner} do not add up: "
            f"only the most protective, {winner}, applies."
        )
    return applying
