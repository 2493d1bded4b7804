"""Every kind of effect of the vocabulary (rules_core.rules.attack.Effect) is resolved and
said: a kind added to the vocabulary that the resolver, describe_effects or the GM screen
does not handle fails here.

The situations are made here from the vocabulary itself (no effect kind is named), and
added as data to the first system with attack rules in content/systems.yml.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from hooks.content.rules_schema import EFFECTS
from hooks.pages.gm_screen import _effects as gm_screen_words
from rules_core.citations import Sources
from rules_core.mechanics.situations import Applied, resolve
from rules_core.rules.attack import EFFECT_KINDS, VALUES, Effect
from rules_core.systems import System, get_system, system_slugs

SYSTEM = next(system for system in map(get_system, system_slugs()) if system.defines("attack"))
OTHER = "other-situation"
# A value of each kind the vocabulary's values take ("names" name the other situation).
A_VALUE: dict[str, Any] = {
    "integer": 1,
    "count": 1,
    "flag": True,
    "fraction": "1/2",
    "names": [OTHER],
}
KINDS = {field.name: field for field in dataclasses.fields(Effect)}


def _key(kind: str) -> str:
    return kind.rstrip("_")


def _value(kind: str) -> Any:
    return A_VALUE[KINDS[kind].metadata["value"]]


def _with_situations(subject: dict[str, Any]) -> System:
    """SYSTEM with two situations alone: the subject, and another that does all the
    vocabulary's effects but naming (for the subject to confer or prevent)."""
    other: dict[str, Any] = {"label": "Other", "cite": []}
    for kind in EFFECT_KINDS:
        if KINDS[kind].metadata["value"] != "names":
            other[_key(kind)] = _value(kind)
    rules = copy.deepcopy(SYSTEM.rules)
    rules["attack"]["situations"] = {"subject": subject, OTHER: other}
    return dataclasses.replace(SYSTEM, rules=rules)


def _resolved(system: System, chosen: tuple[str, ...]) -> Applied:
    return resolve(system, chosen, None, Sources())


def test_the_vocabulary_is_the_schemas() -> None:
    assert list(EFFECTS) == [f"{_key(field.name)}?" for field in dataclasses.fields(Effect)]
    assert {field.metadata["value"] for field in dataclasses.fields(Effect)} <= set(VALUES)


@pytest.mark.parametrize("kind", EFFECT_KINDS)
def test_each_effect_kind_changes_the_attack(kind: str) -> None:
    plain = _with_situations({"label": "Subject", "cite": []})
    doing = _with_situations({"label": "Subject", "cite": [], _key(kind): _value(kind)})
    # Conferring another situation shows with the subject alone, preventing one with both.
    changes = [
        dataclasses.replace(_resolved(doing, chosen), because=())
        != dataclasses.replace(_resolved(plain, chosen), because=())
        for chosen in (("subject",), ("subject", OTHER))
    ]
    assert any(changes), f"{kind} does nothing to a resolved attack"


@pytest.mark.parametrize("kind", EFFECT_KINDS)
def test_each_effect_kind_is_said_in_the_why_and_on_the_gm_screen(kind: str) -> None:
    doing = _with_situations({"label": "Subject", "cite": [], _key(kind): _value(kind)})
    said = [
        reason
        for chosen in (("subject",), ("subject", OTHER))
        for reason in _resolved(doing, chosen).because
        if reason.source == "Subject" and (reason.mode or reason.effects)
    ]
    assert said, f"the answer's why does not say what {kind} does"
    rules = doing.attack
    assert rules is not None
    effect = rules.situations["subject"]
    assert gm_screen_words(effect, rules.situations, rules.critical.from_), (
        f"the GM screen does not say what {kind} does"
    )
