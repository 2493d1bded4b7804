"""The dice recogniser on sentences of the four texts: what is marked and what is not."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from hooks.content.loader import load_content
from hooks.content.tables import Table, TableCalculator
from hooks.content.yaml_lines import ContentError
from hooks.pages.dice_chips import (
    calculator_for,
    chip_link,
    find_dice,
    sentence_around,
)
from hooks.pages.tables import render_table
from rules_core.calculators import CALCULATORS
from rules_core.dice import parse
from rules_core.systems import system_slugs

ROOT = Path(__file__).resolve().parent.parent
# The registry's calculators, without the checks calculator, as before it was added.
OFFERED = frozenset(CALCULATORS) - {"check"}

MARKED = [
    # (sentence from a text, the expressions it must mark)
    ("Dice rolls are described with expressions such as “3d4+3,” which means", ["3d4+3"]),
    ("You generate a number between 1 and 100 by rolling d% here.", ["d%"]),
    ("Roll 4d6 for each of the six ability scores", ["4d6"]),
    ('and the Hit effect is "3dW damage" that means you do 3d10 damage.', ["3dW", "3d10"]),
    ('If it is "3dW + Strength modifier damage" and your Strength', ["3dW"]),
    ("it fell, to a maximum of 50d10.", ["50d10"]),
    ("every attack involves rolling 3d6 + Level + Volition + Escalation.", ["3d6"]),
    ("NPCs are healed either 1d6 per level or 1d10 per level if it matters.", ["1d6", "1d10"]),
    (
        "The number of days depends on the size (Village 2d6, Town 4d6, City 6d6).",
        ["2d6", "4d6", "6d6"],
    ),
    ("After 2d20 days, make a DC 13 CHA check", ["2d20"]),
    ("Roll a d20 (the higher you roll, the better).", ["d20"]),
    ("a hit deals 1d8 + 4 damage, or 2d6-1 on a miss", ["1d8 + 4", "2d6-1"]),
]

NOT_MARKED = [
    # Looks like dice, is not: variables, multiplied dice, page numbers, words.
    "Instead of rolling YdX, roll 1dX and multiply the result by Y.",
    "you could instead convert that into 10 x 1d6.",
    "Bear in mind that this will give much swingier results (like 2d8 x 10).",
    "See page 12d for details; the 3rd edition; d-day; add 2d.",
    "Hit: X x Level + Volition, where X is the damage die indicated by your stance.",
    "The 10000d10000 roll is beyond any table.",
]


@pytest.mark.parametrize(("sentence", "expected"), MARKED)
def test_dice_in_the_texts_are_marked(sentence: str, expected: list[str]) -> None:
    chips = find_dice(sentence)
    assert [chip.text for chip in chips] == expected
    for chip in chips:
        assert sentence[chip.start : chip.end] == chip.text


@pytest.mark.parametrize("sentence", NOT_MARKED)
def test_things_that_only_look_like_dice_are_left_alone(sentence: str) -> None:
    assert [chip.text for chip in find_dice(sentence)] == []


def test_hover_figures_come_from_the_core() -> None:
    (chip,) = find_dice("roll 3d4+3 now")
    distribution = parse("3d4+3").distribution()
    assert chip.summary == f"3d4+3: {distribution.min} to {distribution.max}, average 10.5"
    assert chip.mean == distribution.mean() == Fraction(21, 2)
    (weapon,) = find_dice("deal 2dW damage")
    assert weapon.summary == "2dW: 2 to 16, average 9 (with a d8 weapon)"
    link = chip_link(weapon, "orcus", "../", "deal 2dW damage", OFFERED)
    assert link.startswith("[2dW](../calculators/damage.md?system=orcus&expression=2dW&weapon=d8 ")
    assert '"2dW: 2 to 16, average 9 (with a d8 weapon)"){ .dice-chip ' in link
    # The preview's figures are the core's, exactly as the tooltip says them.
    assert 'data-min="2" data-mean="9" data-max="16" data-roll="2d8"' in link


@pytest.mark.parametrize(
    ("sentence", "offered", "calculator", "page"),
    [
        ("a hit deals 1d8 + 4 damage", OFFERED, "damage", "damage"),
        ("To make an attack roll, roll a d20 and add the modifiers.", OFFERED, "attack", "attack"),
        ("every attack involves rolling 3d6 + Level + Volition.", OFFERED, "attack", "attack"),
        ("To make a saving throw, roll a d20.", OFFERED, None, None),
        ("To make a saving throw, roll a d20.", OFFERED | {"check"}, "check", "checks"),
        ("Make a DC 13 CHA check with a d20 + 2.", OFFERED | {"check"}, "check", "checks"),
        ("Roll a d20 (the higher you roll, the better).", OFFERED, "roll", "dice"),
        ("NPCs are healed 1d6 per level.", OFFERED, "damage", "damage"),
    ],
)
def test_a_chip_opens_the_calculator_its_sentence_is_about(
    sentence: str, offered: frozenset[str], calculator: str | None, page: str | None
) -> None:
    chip = find_dice(sentence)[0]
    assert calculator_for(chip, sentence, offered) == calculator
    link = chip_link(chip, "orcus", "../", sentence, offered)
    if calculator is None:
        # No calculator fits: a button with the figures, never a link to another one.
        assert link.startswith('<button type="button" class="dice-chip"') and "href" not in link
        assert 'data-min="1" data-mean="10.5" data-max="20" data-roll="1d20"' in link
    else:
        assert link.startswith(f"[{chip.text}](../calculators/{page}.md?")


def test_the_sentence_is_the_one_around_the_chip() -> None:
    text = "Deal 2d6 damage. To make a saving throw, roll a d20. Then 1d4: attack."
    chips = find_dice(text)
    sentences = [sentence_around(text, chip.start, chip.end) for chip in chips]
    assert sentences == [
        "Deal 2d6 damage",
        " To make a saving throw, roll a d20",
        " Then 1d4",
    ]


def test_no_d20_of_a_check_or_save_on_the_real_pages_opens_the_damage_calculator() -> None:
    systems = load_content(ROOT / "content")
    checked = 0
    for system in systems.values():
        for page in system.pages.values():
            for token in page.tokens:
                for child in token.children or []:
                    if child.type != "text":
                        continue
                    for chip in find_dice(child.content):
                        sentence = sentence_around(child.content, chip.start, chip.end)
                        if chip.is_d20 and re.search(r"sav(e|ing)|check", sentence, re.I):
                            checked += 1
                            assert calculator_for(chip, sentence, OFFERED) not in ("damage", "roll")
    assert checked >= 3


def test_every_chip_on_the_real_pages_parses() -> None:
    systems = load_content(ROOT / "content")
    total = 0
    for system in systems.values():
        for page in system.pages.values():
            for token in page.tokens:
                for child in token.children or []:
                    if child.type == "text":
                        total += len(find_dice(child.content))
    assert total >= 25


def test_tables_link_rows_to_their_calculator() -> None:
    systems = load_content(ROOT / "content")
    levels = systems["orcus"].tables["levels"]
    markdown = render_table(levels, [])
    assert "| [2](../calculators/level.md?system=orcus&xp=1000 " in markdown
    averages = systems["3d6-combat"].tables["damage-averages"]
    markdown = render_table(averages, [])
    assert "[14](../calculators/damage.md?system=3d6-combat&expression=4d6 " in markdown
    scores = systems["orcus"].tables["ability-scores"]
    assert "[2-3](../calculators/abilities.md?system=orcus&score=2 " in render_table(scores, [])


def test_a_table_calculator_must_exist() -> None:
    levels: Table = load_content(ROOT / "content")["orcus"].tables["levels"]
    wrong = replace(levels, calculator=TableCalculator("nope", "row", {}, 40))
    with pytest.raises(ContentError, match="no calculator named 'nope'"):
        render_table(wrong, [])
    wrong = replace(levels, calculator=TableCalculator("level", "row", {"gold": "{Level}"}, 40))
    with pytest.raises(ContentError, match="has no input 'gold'"):
        render_table(wrong, [])


@pytest.mark.parametrize(
    ("sentence", "filled"),
    [
        ("a hit deals 2dW + 4 damage", {"system", "expression", "weapon"}),
        ("the attack is 3dW + Strength", {"system"}),  # the attack's dice are its own fields
        ("Roll a d20 (the higher you roll, the better).", {"expression"}),  # no system
        ("Make a DC 13 CHA check with a d20 + 2.", {"system"}),
    ],
)
def test_a_chip_fills_in_the_fields_its_calculator_has(sentence: str, filled: set[str]) -> None:
    chip = find_dice(sentence)[0]
    link = chip_link(chip, system_slugs()[0], "../", sentence)
    href = re.match(r"\[[^\]]*\]\(([^ ]+) ", link).group(1)
    query = dict(parse_qsl(urlsplit(href).query))
    calculator = calculator_for(chip, sentence)
    assert set(query) == filled
    assert filled <= {field.name for field in CALCULATORS[calculator].fields}
