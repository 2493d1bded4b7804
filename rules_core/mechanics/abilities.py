"""Ability scores: score to modifier, point buy, and rolled scores, as each text defines them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rules_core.citations import Sources
from rules_core.dice import Distribution
from rules_core.dice import parse as parse_dice
from rules_core.errors import RulesError
from rules_core.numbers import parse_printed_int, parse_printed_range
from rules_core.rules.characters import (
    PointBuy,
)
from rules_core.systems import System


@dataclass(frozen=True)
class ModifierResult:
    """An ability score's modifier, by the system's rule."""

    score: int
    modifier: int
    sources: Sources


@dataclass(frozen=True)
class PointBuyResult:
    """A set of bought ability scores: its cost against the budget, and what breaks the rules."""

    scores: tuple[int, ...]
    cost: int
    budget: int
    remaining: int
    problems: list[str]
    sources: Sources = field(compare=False)

    @property
    def valid(self) -> bool:
        return not self.problems


def modifier(system: System, score: int) -> ModifierResult:
    rule = system.ability_modifier
    sources = Sources()
    sources.cite(rule.cite)
    low, high = rule.scores
    if not low <= score <= high:
        raise RulesError(f"Ability scores in {system.short_title} run from {low} to {high}.")
    table, scores, modifiers = rule.table, rule.score_column, rule.modifier_column
    if table is not None and scores is not None and modifiers is not None:
        for row in table.rows:
            if score in parse_printed_range(row[scores]):
                return ModifierResult(score, parse_printed_int(row[modifiers]), sources)
    # The text gives the modifier as a formula: subtract 10, halve, round down.
    return ModifierResult(score, (score - 10) // 2, sources)


def _costs(rule: PointBuy) -> dict[int, int]:
    return {
        parse_printed_int(row[rule.score_column]): parse_printed_int(row[rule.cost_column])
        for row in rule.table.rows
    }


def point_buy(system: System, scores: Sequence[int]) -> PointBuyResult:
    rule = system.point_buy
    sources = Sources()
    sources.cite(rule.cite)
    costs = _costs(rule)
    budget = rule.budget
    problems = []
    if len(scores) != rule.count:
        problems.append(f"Give {rule.count} scores, not {len(scores)}.")
    lowest, highest = min(costs), max(costs)
    off_table = [score for score in scores if score not in costs]
    for score in off_table:
        problems.append(
            f"A score of {score} cannot be bought: the cost table runs from {lowest} to {highest}."
        )
    below = rule.below
    under = [score for score in scores if score < below.score]
    if len(under) > below.at_most:
        problems.append(
            f"At most {below.at_most} score may be below {below.score}; "
            f"this set has {len(under)} ({', '.join(map(str, under))})."
        )
    cost = sum(costs[score] for score in scores if score in costs)
    if cost > budget:
        problems.append(f"The scores cost {cost} points; the budget is {budget}.")
    return PointBuyResult(tuple(scores), cost, budget, budget - cost, problems, sources)


def rolled_score(system: System) -> tuple[Distribution, str, Sources]:
    """The distribution of one rolled ability score (e.g. 4d6, drop the lowest)."""
    rule = system.ability_roll
    sources = Sources()
    sources.cite(rule.cite)
    expression = parse_dice(rule.expression)
    return expression.distribution(), expression.text, sources
