"""One function per calculator: a request in, its answer out.

An answer is the JSON payload (exact fractions as strings; the command line prints it
with --json, the pages render it) and the command line's text lines.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules_core.abilities import modifier, point_buy, rolled_score
from rules_core.attacks import attack
from rules_core.damage import damage
from rules_core.dice import parse as parse_dice
from rules_core.dice import roll as roll_dice
from rules_core.encounters import encounter
from rules_core.progression import level_for_xp
from rules_core.requests import (
    AbilityRollRequest,
    AttackRequest,
    DamageRequest,
    EncounterRequest,
    LevelRequest,
    ModifierRequest,
    PointBuyRequest,
    Request,
    RollRequest,
)
from rules_core.systems import Sources, get_system


@dataclass(frozen=True)
class Answer:
    payload: dict[str, Any]
    text: list[str]


def _fraction(value: Fraction | None) -> str | None:
    return None if value is None else str(value)


def percent(value: Fraction) -> str:
    return f"{float(value) * 100:.2f}%"


def _sourced(payload: dict[str, Any], text: list[str], sources: Sources) -> Answer:
    payload.update(sources.to_json())
    lines = list(text)
    if sources.citations:
        lines.append("Rules applied:")
        lines += [f"  - {citation} ({citation.url})" for citation in sources.citations]
    lines += [f"Interpretation: {note}" for note in sources.interpretations]
    return Answer(payload, lines)


def run_modifier(request: ModifierRequest) -> Answer:
    system = get_system(request.system)
    result = modifier(system, request.score)
    payload = {"system": system.slug, "score": result.score, "modifier": result.modifier}
    text = [f"{system.title}: a score of {result.score} gives a modifier of {result.modifier:+d}."]
    return _sourced(payload, text, result.sources)


def run_pointbuy(request: PointBuyRequest) -> Answer:
    system = get_system(request.system)
    result = point_buy(system, request.scores)
    payload = {
        "system": system.slug,
        "scores": list(result.scores),
        "cost": result.cost,
        "budget": result.budget,
        "remaining": result.remaining,
        "valid": result.valid,
        "problems": result.problems,
    }
    verdict = "valid" if result.valid else "not valid"
    text = [
        f"{system.title}: scores {', '.join(map(str, result.scores))} cost {result.cost} "
        f"of {result.budget} points ({result.remaining} left): {verdict}.",
        *(f"  - {problem}" for problem in result.problems),
    ]
    return _sourced(payload, text, result.sources)


def run_abilityroll(request: AbilityRollRequest) -> Answer:
    system = get_system(request.system)
    distribution, expression, sources = rolled_score(system)
    payload = {
        "system": system.slug,
        "expression": expression,
        "min": distribution.min,
        "max": distribution.max,
        "mean": str(distribution.mean()),
        "distribution": {str(value): str(p) for value, p in distribution.items()},
    }
    text = [
        f"{system.title}: each score is rolled as {expression}: {distribution.min} to "
        f"{distribution.max}, mean {distribution.mean()} (about {float(distribution.mean()):.2f})"
    ]
    return _sourced(payload, text, sources)


def run_level(request: LevelRequest) -> Answer:
    system = get_system(request.system)
    result = level_for_xp(system, request.xp)
    payload = {
        "system": system.slug,
        "xp": result.xp,
        "level": result.level,
        "level_bonus": result.level_bonus,
        "tier": result.tier.lower(),
        "xp_for_next_level": result.xp_for_next_level,
        "xp_needed": result.xp_needed,
        "grants": result.grants,
    }
    following = (
        f"level {result.level + 1} at {result.xp_for_next_level:,} XP ({result.xp_needed:,} to go)"
        if result.xp_for_next_level is not None
        else "the top level"
    )
    text = [
        f"{system.title}: {result.xp:,} XP is level {result.level} ({result.tier} tier), "
        f"level bonus {result.level_bonus:+d}; next: {following}.",
        *(f"  {name}: {value}" for name, value in result.grants.items()),
    ]
    return _sourced(payload, text, result.sources)


def run_attack(request: AttackRequest) -> Answer:
    system = get_system(request.system)
    setup = request.setup()
    result = attack(system, setup)
    payload: dict[str, Any] = {
        "system": system.slug,
        "roll": result.roll,
        "attack_modifier": result.attack_modifier,
        "defense": result.defense,
        "hit": _fraction(result.hit),
        "crit": _fraction(result.crit),
        "miss": _fraction(result.miss),
        "crit_fail": _fraction(result.crit_fail),
        "attacks": setup.attacks,
        "at_least_one_hit": _fraction(result.at_least_one_hit),
        "expected_damage": _fraction(result.expected_damage),
    }
    breakdown = getattr(result, "breakdown", None)  # the roll's parts, where the core gives them
    if breakdown is not None:
        payload["breakdown"] = [[label, value] for label, value in breakdown]
    text = [
        f"{system.title}: {result.roll} {result.attack_modifier:+d} against defense "
        f"{result.defense}",
        f"  hit        {result.hit} ({percent(result.hit)})",
        f"  critical   {result.crit} ({percent(result.crit)})",
        f"  miss       {result.miss} ({percent(result.miss)})",
    ]
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
    return _sourced(payload, text, result.sources)


def run_damage(request: DamageRequest) -> Answer:
    system = get_system(request.system)
    setup = request.setup()
    result = damage(system, setup)
    payload = {
        "system": system.slug,
        "expression": result.expression,
        "min": result.minimum,
        "max": result.maximum,
        "mean": _fraction(result.mean),
        "distribution": {
            str(value): str(probability) for value, probability in result.distribution.items()
        },
        "at_least_hp": _fraction(result.at_least_hp),
        "description": result.description,
    }
    text = [
        f"{system.title}: {result.description}"
        + (" (critical hit)" if setup.crit else "")
        + f": min {result.minimum}, max {result.maximum}, mean {result.mean} "
        f"(about {float(result.mean):.2f})"
    ]
    if result.at_least_hp is not None:
        text.append(
            f"  P(damage >= {setup.hp}) = {result.at_least_hp} ({percent(result.at_least_hp)})"
        )
    return _sourced(payload, text, result.sources)


def run_encounter(request: EncounterRequest) -> Answer:
    system = get_system(request.system)
    result = encounter(system, request.party, request.level, request.monsters)
    payload = {
        "system": system.slug,
        "party": result.party,
        "level": result.level,
        "budget": result.budget,
        "total_xp": result.total_xp,
        "share": _fraction(result.share),
        "xp_per_character": _fraction(result.xp_per_character),
        "monsters": [
            {"level": monster.level, "rank": monster.rank, "count": monster.count, "xp": xp}
            for monster, xp in result.lines
        ],
    }
    text = [
        f"{system.title}: budget for {result.party} characters of level {result.level}: "
        f"{result.budget:,} XP",
        *(
            f"  {monster.count} x level {monster.level} {monster.rank}: {xp:,} XP"
            for monster, xp in result.lines
        ),
        f"  total {result.total_xp:,} XP = {percent(result.share)} of the budget, "
        f"{result.xp_per_character} XP per character",
    ]
    return _sourced(payload, text, result.sources)


def run_roll(request: RollRequest) -> Answer:
    expression = parse_dice(request.expression, weapon_die=request.weapon)
    if not request.rolled:
        payload = {"expression": expression.text, "total": None, "dice": None, "seed": request.seed}
        return Answer(payload, [expression.text])
    total, dice = roll_dice(expression, random.Random(request.seed))
    payload = {"expression": expression.text, "total": total, "dice": dice, "seed": request.seed}
    return Answer(payload, [f"{expression.text}: {total}  (dice: {dice})"])


RUNS: dict[str, Callable[[Any], Answer]] = {
    "modifier": run_modifier,
    "pointbuy": run_pointbuy,
    "abilityroll": run_abilityroll,
    "level": run_level,
    "attack": run_attack,
    "damage": run_damage,
    "encounter": run_encounter,
    "roll": run_roll,
}


def answer(request: Request) -> Answer:
    return RUNS[request.NAME](request)
