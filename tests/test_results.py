"""Typed results: the values a calculator's renderer reads, and the one JSON they print as."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from fractions import Fraction

import pytest

from rules_core.calculators import CALCULATORS, Answer
from rules_core.calculators.roll import RollRequest
from rules_core.dice import parse
from rules_core.errors import NotDefined
from rules_core.systems import get_system, system_slugs
from rules_core.web import handle


def answers(name: str) -> Iterator[Answer]:
    """The calculator's answer to its form's initial values, in each system it applies to."""
    calculator = CALCULATORS[name]
    rule = calculator.request.RULE
    for slug in system_slugs():
        if rule is not None and not rule.met(get_system(slug)):
            continue
        values = {field.name: field.initial for field in calculator.fields} | {"system": slug}
        try:
            yield calculator.run(calculator.request.from_inputs(values))
        except NotDefined:
            continue  # a text without what the form asks first (a system with no checks)


@pytest.mark.parametrize("name", tuple(CALCULATORS))
def test_a_result_is_frozen_and_gives_its_json_without_changing(name: str) -> None:
    found = list(answers(name))
    assert found
    for answer in found:
        result = answer.result
        assert dataclasses.is_dataclass(result) and not isinstance(result, dict)
        first = dataclasses.fields(result)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(result, first, None)
        payload = result.to_json()
        # JSON as it is printed: lists, strings for fractions; asking again gives the same.
        assert json.loads(json.dumps(payload)) == payload == result.to_json() == answer.payload
        # What an answer resting on rules rests on closes it, as the command line's text does
        # (a dice roll rests on none and its JSON has no such keys).
        if result.sources.citations or result.sources.interpretations:
            cited = result.sources.to_json()
            assert list(payload)[len(payload) - len(cited) :] == list(cited)
            assert all(payload[key] == value for key, value in cited.items())


def test_a_roll_keeps_its_highest_dice_and_shows_the_dropped_ones_struck() -> None:
    for seed in range(20):
        request = RollRequest("4d6kh3+2", seed=seed, rolled=True)
        result = CALCULATORS["roll"].run(request).result
        assert result.dice is not None and result.total is not None
        dice, number = result.dice
        assert (len(dice.kept), len(dice.dropped), number.kept, number.dropped) == (3, 1, (), ())
        assert max(dice.dropped) <= min(dice.kept)
        assert result.total == sum(dice.kept) + 2
        assert result.to_json()["dice"] == [[*dice.kept, *dice.dropped], []]
        page = handle("roll", {"expression": "4d6kh3+2", "seed": str(seed), "rolled": "on"})
        listed = re.search(r'<ul class="calc-dice">.*?</ul>', page["html"])
        assert listed is not None and listed.group().count("<li>") == 1  # the number rolls none
        assert f'<span class="calc-kept">{", ".join(map(str, dice.kept))}</span>' in page["html"]
        assert f"dropped <s>{dice.dropped[0]}</s>" in page["html"]


def test_a_roll_carries_the_odds_its_page_shows_with_the_weapon_die() -> None:
    for sides in (4, 8, 12):
        request = RollRequest("2dW+1", weapon=sides)
        result = CALCULATORS["roll"].run(request).result
        expected = parse("2dW+1", weapon_die=sides).distribution()
        assert result.total is None and result.odds.distribution == expected
        assert (result.odds.minimum, result.odds.maximum) == (3, 2 * sides + 1)
        assert result.odds.mean == expected.mean() == sides + 2
        page = handle("roll", {"expression": "2dW+1", "weapon": f"d{sides}", "rolled": "off"})
        assert f"3 to {2 * sides + 1}" in page["html"]
        assert f"Mean {float(result.odds.mean):.2f} (3–{2 * sides + 1})" in page["summary"]


def test_an_encounter_result_adds_up_its_monster_groups() -> None:
    for answer in answers("encounter"):
        result = answer.result
        assert result.monsters
        assert sum(group.xp for group in result.monsters) == result.total_xp
        assert result.share == Fraction(result.total_xp, result.budget)
        assert result.xp_per_character == Fraction(result.total_xp, result.party)
        listed = result.to_json()["monsters"]
        assert [entry["xp"] for entry in listed] == [group.xp for group in result.monsters]
        assert [entry["count"] for entry in listed] == [g.monster.count for g in result.monsters]


def test_damage_to_reach_hit_points_is_read_from_the_result_odds() -> None:
    calculator = CALCULATORS["damage"]
    for slug in system_slugs():
        if not calculator.request.RULE or not calculator.request.RULE.met(get_system(slug)):
            continue
        values = {field.name: field.initial for field in calculator.fields}
        values |= {"system": slug, "expression": "2d6+3", "hp": "10"}
        result = calculator.run(calculator.request.from_inputs(values)).result
        assert result.hp == 10
        assert result.at_least_hp == result.odds.distribution.at_least(10)
        assert result.to_json()["at_least_hp"] == str(result.at_least_hp)
        page = handle("damage", values)
        assert "Chance of at least 10 damage" in page["html"]
        assert f"{float(result.at_least_hp) * 100:.2f}% to deal 10+" in page["summary"]
