"""One request model for the command line and the pages: same inputs, same answer.

The property test sends the same form inputs to `rules_core.web.handle` and, written as
options, to the command line, for every calculator: both must answer with the same
payload, or refuse with the same messages (the CLI's prefixed with the option).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import pytest
from command_line import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules_core import systems
from rules_core.calculators import CALCULATORS
from rules_core.errors import NotDefined
from rules_core.fields import Field, situation_choices
from rules_core.requests import WHOLE, InputErrors
from rules_core.systems import get_system, system_slugs
from rules_core.web import handle

# ------------------------------------------------------------------ inputs to options

_NUMBERS = ["7", "+7", "−2", " 7 ", "0", "-3", "15", "１５", "١٥", "1_5", "²", "", "abc", "9" * 30]
_DICE = [
    "2d6+3",
    "1d8+4",
    "4d6kh3",
    "1dW+2",
    "d8 x Level + 3",
    "10 x 1d6",
    "2d8 x 10",
    "2 x Level",
    "2d6+",
    "",
    "-1d4+2",
    "10000d10000",
]
_DIES = ["d8", "8", "1d10", "x9", ""]


def _situations(source: tuple[str, ...]) -> list[str]:
    names = {name for choices in situation_choices(source).values() for name, *_ in choices}
    return sorted(names)


def _value(field: Field) -> st.SearchStrategy[str]:
    if field.kind == "system":
        return st.sampled_from([*system_slugs(), "nowhere"])
    if field.name in ("mode", "roll"):  # the CLI's flags cannot write an unknown choice
        return st.sampled_from([value for value, _ in field.choices])
    if field.kind == "choice":
        return st.sampled_from([*(value for value, _ in field.choices), "sideways"])
    if field.kind == "check":
        return st.sampled_from(["on", "off", ""])
    if field.kind == "dice":
        return st.sampled_from(_DICE)
    if field.kind == "die":
        return st.sampled_from(_DIES)
    if field.kind == "situations":
        names = st.sampled_from([*_situations(field.source), "nope"])
        return st.lists(names, max_size=3).map(",".join)
    low, high = field.minimum or 0, field.maximum or 100
    return st.one_of(st.sampled_from(_NUMBERS), st.integers(low - 2, high + 2).map(str))


@st.composite
def calculator_inputs(draw) -> tuple[str, dict[str, str]]:
    name = draw(st.sampled_from(sorted(CALCULATORS)))
    inputs = {field.name: draw(_value(field)) for field in CALCULATORS[name].fields}
    if name in ("damage", "attack"):  # one resistance option: an amount or the flag, not both
        if draw(st.booleans()):
            inputs["resistant"] = "off"
        else:
            inputs["resistance"] = ""
        if draw(st.booleans()):
            inputs["vulnerable"] = "off"
        else:
            inputs["vulnerability"] = ""
    if name == "encounter":  # an unused row has no level or rank to give on the CLI
        for row in range(1, 5):
            if inputs[f"m{row}_count"].strip() in ("", "0"):
                inputs[f"m{row}_level"], inputs[f"m{row}_rank"] = "1", "standard"
    return name, inputs


def _option(field: Field, value: str) -> list[str]:
    # A blank optional field is an option not given; a blank required one is given blank.
    return [] if value == "" and field.optional else [f"{field.option}={value}"]


def to_argv(name: str, inputs: dict[str, str]) -> list[str]:
    """The same inputs as the command line's options (what a user would type)."""
    argv = [name, "--json"]
    positional: list[str] = []
    for field in CALCULATORS[name].fields:
        value = inputs[field.name]
        if field.option == "EXPR":
            positional = [value]
        elif field.name == "mode":
            argv += [] if value == "normal" else [f"--{value}"]
        elif field.name == "roll":  # check or save: the CLI's --save flag
            argv += [field.option] if value == "save" else []
        elif field.kind == "situations":
            argv += [f"{field.option}={part}" for part in value.split(",") if part]
        elif field.name == "rolled":
            argv += ["--odds-only"] if value != "on" else []
        elif field.name in ("resistant", "vulnerable") or field.kind == "check":
            argv += [field.option] if value == "on" else []
        elif (name == "pointbuy" and field.name != "system") or (
            name in ("encounter", "fight") and field.group
        ):
            continue
        else:
            argv += _option(field, value)
    if name == "pointbuy":
        scores = (inputs[key] for key in ("str", "con", "dex", "int", "wis", "cha"))
        argv.append("--scores=" + ",".join(scores))
    if name == "encounter":
        for row in range(1, 5):
            count = inputs[f"m{row}_count"]
            if count.strip() not in ("", "0"):
                level, rank = inputs[f"m{row}_level"], inputs[f"m{row}_rank"]
                argv.append(f"--monster={level}:{rank}:{count}")
    if name == "fight":
        for field in CALCULATORS[name].fields:
            if field.group and field.name.endswith("_side"):
                # Every row, unused ones too: the form checks each field it shows.
                row = field.name.removesuffix("_side")
                parts = ("side", "bonus", "damage", "defense", "hp", "count", "attacks", "name")
                # A blank count on the form is a row not counted: the command line's 0 (its
                # empty part reads as 1, the README's default).
                given = {p: inputs[f"{row}_{p}"] for p in parts}
                given["count"] = given["count"] if given["count"].strip() else "0"
                argv.append("--combatant=" + ":".join(given[p] for p in parts))
    return argv + (["--", *positional] if positional else [])


def _random_parts_dropped(name: str, inputs: dict[str, str], payload: dict[str, Any]) -> dict:
    """An unseeded roll differs between two runs; its odds do not."""
    if name == "roll" and inputs["seed"] == "":
        return {key: value for key, value in payload.items() if key not in ("total", "dice")}
    return payload


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=calculator_inputs())
def test_cli_and_web_give_the_same_answer_and_the_same_refusals(case) -> None:
    name, inputs = case
    web = handle(name, inputs, "")
    argv = to_argv(name, inputs)
    status, out, err = run_cli(argv)
    if web["ok"] and "data" in web:
        assert status == 0, (argv, err)
        cli = json.loads(out)
        assert _random_parts_dropped(name, inputs, cli) == _random_parts_dropped(
            name, inputs, web["data"]
        )
    elif web["ok"]:  # the system's text does not define it: the same NotDefined
        assert status == 2 and err.startswith(f"error: {web['message']}"), (argv, err, web)
    else:
        assert status == 2, (argv, out, web)
        options = {
            field.name: field.option for field in CALCULATORS[name].request.fields_for(inputs)
        }
        # What a request lacks as a whole is the web's message; the notes beside the fields
        # that would give it follow, as the command line says them.
        said = {**({WHOLE: web["message"]} if web.get("incomplete") else {}), **web["errors"]}
        as_fields = "; ".join(
            text if field == WHOLE else f"{options[field]}: {text}"
            for field, text in (*said.items(), *web.get("notes", {}).items())
        )
        as_rules = "; ".join(web["errors"].values())  # a rule's refusal, at the primary field
        assert err in (f"error: {as_fields}\n", f"error: {as_rules}\n"), (argv, err, web)


# ------------------------------------------------------------------ advantage and disadvantage


def _systems_with(path: tuple[str, ...]) -> list[str]:
    found = []
    for slug in system_slugs():
        value: Any = get_system(slug).rules
        for key in path:
            value = value.get(key) if isinstance(value, Mapping) else None
        if value is not None:
            found.append(slug)
    return found


@pytest.mark.parametrize("slug", system_slugs())
def test_advantage_and_disadvantage_together_is_one_answer(slug: str) -> None:
    inputs = {"system": slug, "bonus": "5", "defense": "14", "mode": "both", "damage": ""}
    web = handle("attack", inputs)
    status, out, err = run_cli(to_argv("attack", {**_attack_defaults(), **inputs}))
    if slug in _systems_with(("attack", "advantage")):
        both = get_system(slug).rules["attack"]["advantage"]["both"]
        assert web["data"]["interpretations"] == json.loads(out)["interpretations"]
        assert both in web["data"]["interpretations"]
        assert web["data"] == json.loads(out)
        assert "calc-interpretation" in web["html"]
    else:
        assert status == 2 and web["ok"] and "calc-undefined" in web["html"]
        assert web["message"].startswith(f"{get_system(slug).title} does not define advantage")
        assert err.startswith(f"error: {web['message']}")


def _attack_defaults() -> dict[str, str]:
    return {field.name: field.initial for field in CALCULATORS["attack"].fields}


# ------------------------------------------------------------------ numbers as people write them


@pytest.mark.parametrize(("written", "read"), [("+7", "7"), ("−2", "-2"), (" 7 ", "7")])
def test_numbers_are_read_as_people_write_them(written: str, read: str) -> None:
    base = {"system": "orcus", "defense": "16", "bonus": read}
    assert handle("attack", {**base, "bonus": written})["data"] == handle("attack", base)["data"]
    argv = ["attack", "--system=orcus", "--defense=16", "--json"]
    assert run_cli([*argv, f"--bonus={written}"])[1] == run_cli([*argv, f"--bonus={read}"])[1]


@pytest.mark.parametrize("written", ["１５", "١٥", "1_5", "²", "15.0", "0x10", "1e3", "--5"])
def test_other_numerals_are_refused_with_one_message(written: str) -> None:
    web = handle("modifier", {"system": "orcus", "score": written})
    message = web["errors"]["score"]
    assert message.startswith("Enter a whole number")
    status, _, err = run_cli(["modifier", "--system=orcus", f"--score={written}"])
    assert status == 2 and err == f"error: --score: {message}\n"


def test_an_overlong_value_is_not_echoed_whole() -> None:
    for written in ["9" * 150, "x" * 150, "1" * 40 + "x"]:
        message = handle("level", {"system": "orcus", "xp": written})["errors"]["xp"]
        assert written not in message and len(message) < 100, message
        _, _, err = run_cli(["level", "--system=orcus", f"--xp={written}"])
        assert written not in err and message in err


# ------------------------------------------------------------------ which fields a system shows


def _field(calculator: str, name: str) -> Field:
    return next(f for f in CALCULATORS[calculator].fields if f.name == name)


def test_fields_follow_the_rules_data_not_the_slugs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give Orcus an escalation die and take advantage from every system: the form follows."""
    real = systems._load()
    changed = copy.deepcopy(real)  # plain dicts to change
    changed["orcus"]["rules"]["attack"]["escalation"] = {"max": 6}
    for entry in changed.values():
        (entry["rules"].get("attack") or {}).pop("advantage", None)
    monkeypatch.setattr(systems, "_load", lambda: changed)
    attack = CALCULATORS["attack"]
    escalation = attack.field_systems(_field("attack", "escalation"))
    assert escalation is not None and "orcus" in escalation
    assert attack.field_systems(_field("attack", "mode")) == ()
    built = CALCULATORS["attack"].request.from_inputs({**_attack_defaults(), "escalation": "2"})
    assert built.escalation == 2  # Orcus (the default system) now takes it


@pytest.mark.parametrize(
    ("calculator", "field", "path"),
    [
        ("attack", "mode", ("attack", "advantage")),
        ("attack", "escalation", ("attack", "escalation")),
        ("attack", "resist", ("attack", "resist")),
        ("attack", "extra_crit", ("damage", "critical", "extra_dice")),
        ("damage", "extra_crit", ("damage", "critical", "extra_dice")),
        ("level", "xp", ("levels",)),
        ("modifier", "score", ("ability_modifier",)),
        ("encounter", "party", ("encounter",)),
        ("encounter", "m1_rank", ("encounter",)),
    ],
)
def test_a_field_shows_exactly_where_its_rule_is_defined(
    calculator: str, field: str, path: tuple[str, ...]
) -> None:
    listed = CALCULATORS[calculator].field_systems(_field(calculator, field))
    expected = _systems_with(path)
    assert (listed if listed is not None else system_slugs()) == tuple(expected)


def test_resistance_fields_follow_the_kind_of_rule() -> None:
    kinds = {
        slug: {
            name: ((get_system(slug).rules.get("damage") or {}).get(name) or {}).get("kind")
            for name in ("resistance", "vulnerability")
        }
        for slug in system_slugs()
    }
    damage = CALCULATORS["damage"]
    for field, rule, kind in [
        ("resistance", "resistance", "subtract"),
        ("vulnerability", "vulnerability", "add"),
        ("resistant", "resistance", "halve"),
        ("vulnerable", "vulnerability", "double"),
    ]:
        expected = tuple(slug for slug in system_slugs() if kinds[slug][rule] == kind)
        assert damage.field_systems(_field("damage", field)) == expected, field


@pytest.mark.parametrize(
    ("inputs", "note_of"),
    [
        ({"calculator": "attack", "system": "orcus", "escalation": "2"}, "escalation"),
        ({"calculator": "attack", "system": "orcus", "resist": "12"}, "resist"),
        ({"calculator": "damage", "system": "4e-core", "resistance": "5"}, "resistance"),
        ({"calculator": "damage", "system": "into-the-unknown", "extra_crit": "1d6"}, "extra_crit"),
        ({"calculator": "damage", "system": "3d6-combat", "vulnerability": "3"}, "vulnerability"),
    ],
)
def test_a_field_the_system_lacks_is_refused_with_its_note(inputs: dict, note_of: str) -> None:
    name = inputs.pop("calculator")
    system = get_system(inputs["system"])
    note = system.rules["not_defined"][note_of]["note"]
    web = handle(name, inputs)
    assert web["ok"] and "calc-undefined" in web["html"] and note in web["message"]
    with pytest.raises(NotDefined, match=note[:20]):
        CALCULATORS[name].request.from_inputs(
            {**{f.name: f.initial for f in CALCULATORS[name].fields}, **inputs}
        )


def test_field_errors_are_data_keyed_by_field() -> None:
    with pytest.raises(InputErrors) as error:
        CALCULATORS["attack"].request.from_inputs(
            {"system": "orcus", "bonus": "x", "defense": "", "attacks": "1"}
        )
    assert set(error.value.errors) == {"bonus", "defense"}
