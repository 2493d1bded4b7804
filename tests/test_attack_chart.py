"""The attack chart's highlighted bar is the answer's: where a situation changes the
target's defense (cover, a target on total defense), the bar marked on the chart, in its
table and in its caption has the headline's chance to hit, and the labels say which
defense the bars are (the defense as typed, before the situations; each bar's odds with
them). The systems and situations are found from the data, none named here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

import pytest

from rules_core.calculators.attack import AttackRequest, render, run
from rules_core.citations import Sources
from rules_core.errors import RulesError
from rules_core.mechanics.situations import attack_types, resolve, situations
from rules_core.systems import get_system, system_slugs

BONUS, DEFENSE = 7, 18


def _defense_changing() -> Iterator[tuple[str, str, str | None]]:
    """(system, situation, attack type) for each situation of the data that changes the
    defense, with the first attack type (or none) under which it does."""
    for slug in system_slugs():
        system = get_system(slug)
        if not system.defines("attack"):
            continue
        for name in situations(system):
            for kind in (None, *attack_types(system)):
                try:
                    applied = resolve(system, (name,), kind, Sources())
                except RulesError:
                    continue  # e.g. the situation needs an attack type, or is another's
                if sum(value for _, value in applied.defense):
                    yield slug, name, kind
                    break


CASES = list(_defense_changing())


def test_some_situation_of_the_data_changes_the_defense() -> None:
    assert CASES, "no situation of the data changes the defense: the tests below test nothing"


def _one(pattern: str, markup: str) -> re.Match[str]:
    found = list(re.finditer(pattern, markup))
    assert len(found) == 1, (pattern, len(found))
    return found[0]


@pytest.mark.parametrize(("slug", "situation", "kind"), CASES)
def test_the_highlighted_bar_has_the_headlines_chance(
    slug: str, situation: str, kind: str | None
) -> None:
    request = AttackRequest(
        system=slug, bonus=BONUS, defense=DEFENSE, situations=(situation,), attack_type=kind
    )
    result = run(request).result
    odds = result.odds
    assert odds.defense != DEFENSE  # the situation changes the defense
    markup = render(result, request, "").markup
    first_part = r'<div class="calc-headline"><span class="calc-part">Hit ([0-9.]+%)'
    headline = _one(first_part, markup).group(1)

    # The bars are the defense as typed: the highlighted one is the typed defense, and its
    # figure, on the chart and in its table, is the headline's.
    bar = _one(r'<text class="calc-bar-label"[^>]*>([^<]*)</text>', markup).group(1)
    assert bar.startswith(f"{DEFENSE} ") and bar.endswith(f": {headline}"), (bar, headline)
    row = _one(
        r'<tr class="calc-row--on"><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>', markup
    )
    assert row.groups() == (str(DEFENSE), str(odds.hit), headline)
    assert dict(result.hit_by_defense)[DEFENSE] == odds.hit

    # The labels say so: the axis is the defense before the situations, the highlighted
    # bar names the defense after them, and each bar is the answer for that typed defense.
    caption = _one(r"<figcaption>([^<]*)</figcaption>", markup).group(1)
    header = _one(r"<thead><tr><th>([^<]*)</th>", markup).group(1)
    assert "before situations" in caption and "before situations" in header.lower()
    assert f"{DEFENSE} ({odds.defense} after situations): {headline}" in caption
    for defense, chance in result.hit_by_defense:
        assert chance == run(replace(request, defense=defense)).result.odds.hit, defense


def test_without_a_change_to_the_defense_the_chart_says_defense_alone() -> None:
    """A chart no situation shifts reads as before: bars of the defense, nothing more."""
    slug = next(slug for slug in system_slugs() if get_system(slug).defines("attack"))
    request = AttackRequest(system=slug, bonus=BONUS, defense=DEFENSE)
    markup = render(run(request).result, request, "").markup
    assert "situations" not in _one(r"<figcaption>([^<]*)</figcaption>", markup).group(1)
    assert _one(r"<thead><tr><th>([^<]*)</th>", markup).group(1) == "Defense"
