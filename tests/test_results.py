"""Typed results: the values a calculator's renderer reads, and the one JSON they print as."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from fractions import Fraction

import pytest

from rules_core.calculators import CALCULATORS, Answer
from rules_core.systems import get_system, system_slugs

# The calculators whose answers are typed results (the others still give their JSON).
TYPED = ("modifier", "pointbuy", "level", "encounter")


def answers(name: str) -> Iterator[Answer]:
    """The calculator's answer to its form's initial values, in each system it applies to."""
    calculator = CALCULATORS[name]
    rule = calculator.request.RULE
    for slug in system_slugs():
        if rule is not None and not rule.met(get_system(slug)):
            continue
        values = {field.name: field.initial for field in calculator.fields} | {"system": slug}
        yield calculator.run(calculator.request.from_inputs(values))


@pytest.mark.parametrize("name", TYPED)
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
