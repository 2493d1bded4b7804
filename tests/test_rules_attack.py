"""The typed attack rules (rules_core.rules.attack) hold what each system's data says.

Systems, situations and keys come from the compiled data, never from names written here.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

import pytest

from rules_core.citations import Citation
from rules_core.rules.attack import Effect
from rules_core.systems import get_system, system_slugs

SYSTEMS = [get_system(slug) for slug in system_slugs() if "attack" in get_system(slug).rules]


def _as_data(value: Any) -> Any:
    """A typed value as the compiled data spells it, to compare the two."""
    if isinstance(value, Citation):
        return value.to_json()
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, tuple):
        return [_as_data(item) for item in value]
    return value


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda system: system.slug)
def test_the_attack_rules_are_read_once_per_system(system) -> None:
    assert system.attack is system.attack


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda system: system.slug)
def test_each_situation_holds_every_key_of_its_data(system) -> None:
    typed = system.attack
    assert typed is not None
    data = system.rules["attack"].get("situations", {})
    assert list(typed.situations) == list(data)
    for name, entry in data.items():
        situation = typed.situations[name]
        branches = [(situation, entry), *zip(situation.when, entry.get("when", []), strict=True)]
        for effect, raw in branches:
            for kind in dataclasses.fields(Effect):
                key = kind.name.rstrip("_")
                read = getattr(effect, kind.name)
                if key in raw:
                    assert _as_data(read) == raw[key], f"{name}.{key}"
                else:
                    assert read == kind.default, f"{name}.{key}"
        assert [c.url for c in situation.cite] == [c["url"] for c in entry["cite"]]
        assert situation.label == entry["label"]


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda system: system.slug)
def test_the_natural_roll_rules_are_the_datas(system) -> None:
    typed = system.attack
    assert typed is not None
    data = system.rules["attack"]
    assert typed.roll == data["roll"]
    assert typed.critical.from_ == data["critical"]["from"]
    for key in ("always_hit", "always_miss", "crit_fail"):
        rule = getattr(typed, key)
        assert (rule.naturals if rule else None) == (
            tuple(data[key]["naturals"]) if key in data else None
        )
    assert typed.type_names == tuple(data.get("attack_types", {}).get("names", ()))
