"""Every attack answer says its own why, for every system and situation of the data.

No system or situation is named here: each test walks the compiled rules, so a situation
added to a rules.yml is checked with no change to this file. An oracle compares each
answer with the answer without the situation: whatever changed the roll must be named.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from command_line import run_cli

from rules_core.errors import NotDefined, RulesError
from rules_core.mechanics.attacks import AttackResult, AttackSetup, attack
from rules_core.mechanics.situations import attack_types, situations
from rules_core.rules.attack import Effect, Situation
from rules_core.systems import System, get_system, system_slugs
from rules_core.web import handle

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = [get_system(slug) for slug in system_slugs() if "attack" in get_system(slug).rules]


def answer(system: System, chosen: tuple[str, ...], kind: str | None) -> AttackResult | None:
    """The attack with these situations, or None where the system refuses it (no attack
    type given where a situation needs one, advantage dice the text does not give)."""
    try:
        return attack(system, AttackSetup(5, 15, situations=chosen, attack_type=kind))
    except (NotDefined, RulesError):
        return None


def odds(result: AttackResult) -> tuple[Any, ...]:
    return result.hit, result.crit


def why(result: AttackResult) -> str:
    """Everything the answer says about why: the roll mode and each reason."""
    return "\n".join([result.roll_mode or "", *(str(reason) for reason in result.because)])


def linked(entry: Situation) -> Iterator[tuple[Effect, str]]:
    """Each `when` branch of a situation and each situation its `if`/`unless` names."""
    for branch in entry.when:
        for other in dict.fromkeys([*branch.if_, *branch.unless]):
            yield branch, other


def cases(system: System) -> Iterator[tuple[tuple[str, ...], str | None]]:
    """Every situation alone and every pair an `if`/`unless` links, with each attack type."""
    table = situations(system)
    for name, entry in table.items():
        pairs = [(name,)] + [(name, other) for _, other in linked(entry)]
        for chosen in dict.fromkeys(pairs):
            for kind in [None, *attack_types(system)]:
                yield chosen, kind


def conferred(system: System, name: str) -> set[str]:
    """Every situation a situation can bring, through `confers` (its branches' too)."""
    table = situations(system)
    reached, todo = set(), [name]
    while todo:
        entry = table[todo.pop()]
        for effect in entry.effects:
            for other in effect.confers:
                if other not in reached:
                    reached.add(other)
                    todo.append(other)
    return reached


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.slug)
def test_every_situation_that_changes_the_roll_is_named_in_the_answer(system: System) -> None:
    table = situations(system)
    checked = 0
    for chosen, kind in cases(system):
        result = answer(system, chosen, kind)
        plain = answer(system, (), result and kind)
        if result is None or plain is None:
            continue
        said = why(result)
        if odds(result) != odds(plain) or result.roll != plain.roll:
            checked += 1
            owner = table[chosen[0]].label
            assert owner in said, (system.slug, chosen, kind, said)
        if result.roll != plain.roll:
            # The mode in words, never only as dice.
            mode = result.roll_mode or ""
            assert mode.startswith(("Advantage", "Disadvantage")), (system.slug, chosen, mode)
            assert any(table[name].label in mode for name in chosen), (system.slug, chosen, mode)
        if len(chosen) == 2:
            alone = answer(system, chosen[:1], kind)
            if alone is not None and (odds(alone), alone.roll) != (odds(result), result.roll):
                # Choosing the linked situation changed the answer: the why says so.
                assert table[chosen[1]].label in said, (system.slug, chosen, kind, said)
    if table:
        assert checked, f"no situation of {system.slug} changes the roll"


@pytest.mark.parametrize("system", SYSTEMS, ids=lambda s: s.slug)
def test_a_branch_on_a_situation_not_chosen_says_the_reading_taken(system: System) -> None:
    table = situations(system)
    for name, entry in table.items():
        for kind in [None, *attack_types(system)]:
            result = answer(system, (name,), kind)
            if result is None:
                continue
            for branch, other in linked(entry):
                if branch.attack_types is not None and kind not in branch.attack_types:
                    continue  # the branch is not this attack's: choosing `other` changes nothing
                if other in conferred(system, name):
                    continue  # chosen with it
                label, other_label = entry.label, table[other].label
                said = [
                    note
                    for note in result.sources.interpretations
                    if note.startswith(f"{label}:") and f"‘{other_label}’" in note
                ]
                assert said, (system.slug, name, kind, other, result.sources.interpretations)
                assert "chosen, so" in said[0] and "Choose" in said[0]


def test_the_roll_choice_and_situations_are_both_named_and_said_to_cancel() -> None:
    """A mode set by the Roll choice against one a situation gives: both, and that they
    cancel (taken from the first system whose text gives advantage dice)."""
    for system in SYSTEMS:
        if "advantage" not in system.rules["attack"]:
            continue
        table = situations(system)
        for name, entry in table.items():
            if entry.disadvantage and not entry.attack_type:
                setup = AttackSetup(5, 15, advantage=True, situations=(name,))
                result = attack(system, setup)
                mode = result.roll_mode or ""
                assert "Roll choice" in mode and entry.label in mode and "cancel" in mode
                assert result.roll == system.rules["attack"]["roll"]
                return
    pytest.fail("no system with advantage dice and a situation giving disadvantage")


def test_a_roll_mode_a_situation_confers_is_named_by_the_situation_chosen() -> None:
    """A situation added as CONTRIBUTING's recipe says, conferring one that gives advantage
    or disadvantage: the roll line names the situation the reader ticked, and what it counts
    as (each system whose text gives advantage dice, with such a situation)."""
    checked = 0
    for system in SYSTEMS:
        table = situations(system)
        giving = [
            name
            for name, entry in table.items()
            if (entry.advantage or entry.disadvantage) and not entry.when and not entry.attack_type
        ]
        if "advantage" not in system.rules["attack"] or not giving:
            continue
        rules = copy.deepcopy(dict(system.rules))
        raw = rules["attack"]["situations"]
        raw["ticked-by-the-test"] = {
            "label": "Ticked by the test",
            "confers": [giving[0]],
            "cite": raw[giving[0]]["cite"],
        }
        added = System(system.slug, system.title, system.short_title, system.dice, rules)
        result = answer(added, ("ticked-by-the-test",), None)
        assert result is not None and result.roll_mode, system.slug
        assert f"Ticked by the test (counts as {table[giving[0]].label})" in result.roll_mode
        checked += 1
    assert checked, "no system with advantage dice has a situation giving a roll mode"


def first_dependent_situation() -> tuple[System, str, str, str | None]:
    """The first system with a situation whose `when` has an `if` that changes the roll
    mode: (system, situation, the situation the `if` names, an attack type)."""
    for system in SYSTEMS:
        for name, entry in situations(system).items():
            for branch in entry.when:
                if branch.if_ and (branch.advantage or branch.disadvantage):
                    kinds = attack_types(system)
                    return system, name, branch.if_[0], kinds[0] if kinds else None
    raise AssertionError("no situation's `when` has an `if` that changes the roll mode")


def cli(*args: str) -> str:
    """The command's stdout, run as test_cli.py runs it (in this process)."""
    status, out, err = run_cli(list(args))
    assert status == 0, err
    return out


def test_the_command_line_prints_the_why_and_the_reading_taken() -> None:
    system, name, other, kind = first_dependent_situation()
    label, other_label = situations(system)[name].label, situations(system)[other].label
    args = ["attack", "--system", system.slug, "--bonus", "7", "--defense", "16"]
    args += ["--situation", name] + (["--attack-type", kind] if kind else [])
    text = cli(*args)
    why = text.split("Why:\n", 1)[1].splitlines()[0].strip()
    assert why.startswith(("Advantage", "Disadvantage")) and label in why, text
    assert f"‘{other_label}’" in why  # the branch taken, named
    reading = [line for line in text.splitlines() if line.startswith(f"Interpretation: {label}:")]
    assert reading and f"‘{other_label}’" in reading[0] and "Choose it if it is" in reading[0]

    payload = json.loads(cli(*args, "--json"))
    assert payload["roll_mode"] == why
    assert [reason["source"] for reason in payload["because"]] == [why.split(": ", 1)[1]]
    assert payload["because"][0]["mode"] in ("advantage", "disadvantage")
    assert any(note.startswith(f"{label}:") for note in payload["interpretations"])

    # The page's answer: the docked headline carries the same why, in words.
    inputs = {"system": system.slug, "bonus": "7", "defense": "16", "situations": name}
    response = handle("attack", {**inputs, **({"attack_type": kind} if kind else {})})
    assert response["summary"].splitlines()[1] == why


def test_an_attack_cites_its_own_type_and_not_the_others() -> None:
    checked = 0
    for system in SYSTEMS:
        kinds = system.rules["attack"].get("attack_types", {})
        own = {kind: kinds.get("each", {}).get(kind) for kind in attack_types(system)}
        for kind, entry in own.items():
            if entry is None:
                continue
            result = attack(system, AttackSetup(5, 15, attack_type=kind))
            quotes = {citation.quote for citation in result.sources.citations}
            assert {cited["quote"] for cited in entry["cite"]} <= quotes, (system.slug, kind)
            for other, other_entry in own.items():
                if other != kind and other_entry is not None:
                    assert not quotes & {c["quote"] for c in other_entry["cite"]}, (kind, other)
            checked += 1
    assert checked, "no system gives an attack type its own sentences"


def test_a_fight_says_what_each_sides_situations_do_to_its_attacks() -> None:
    """The fight calculator applies the attack's situations to a side: the same why."""
    system, name, _, _ = first_dependent_situation()
    fought = json.loads(
        cli(
            "fight", "--system", system.slug, "--party-situation", name,
            "--combatant", "party:5:1d8+3:15:20", "--combatant", "opponents:4:1d6+2:14:15",
            "--json",
        )
    )  # fmt: skip
    alone = attack(system, AttackSetup(5, 14, situations=(name,), damage="1d8+3"))
    assert fought["party_why"] == alone.why and alone.why
    assert fought["opponents_why"] == []
