"""A fight's rows named as the table calls them: the answer, its JSON and the command line
say "Mira drops", numbering a named row of several ("Orc 1"); unnamed rows keep their place."""

from __future__ import annotations

import json

import pytest

from rules_core.calculators.fight import NAME_LENGTH, RULE
from rules_core.cli import main
from rules_core.systems import get_system, system_slugs
from rules_core.web import handle

SYSTEMS = [slug for slug in system_slugs() if RULE.met(get_system(slug))]

pytestmark = pytest.mark.unit


def _table(**names: str) -> dict[str, str]:
    """A named party member, an unnamed one, and a row of three opponents."""
    return {
        "system": SYSTEMS[0], "rounds": "3",
        "c1_side": "party", "c1_count": "1", "c1_bonus": "5", "c1_damage": "1d8+3",
        "c1_defense": "16", "c1_hp": "12",
        "c2_side": "party", "c2_count": "1", "c2_bonus": "4", "c2_damage": "1d6",
        "c2_defense": "14", "c2_hp": "10",
        "c3_side": "opponents", "c3_count": "3", "c3_bonus": "3", "c3_damage": "1d6",
        "c3_defense": "13", "c3_hp": "5",
        "c4_count": "0", "c5_count": "0",
        **names,
    }  # fmt: skip


def test_named_rows_name_who_drops_on_the_page_and_in_its_data() -> None:
    page = handle("fight", _table(c1_name="Mira", c3_name="Orc"), "../")
    assert page["ok"], page
    data = page["data"]
    assert [row["name"] for row in data["party"]] == ["Mira", "Party member 2"]
    assert [row["name"] for row in data["opponents"]] == ["Orc 1", "Orc 2", "Orc 3"]
    assert "Mira drops" in page["html"] and "Orc 3 drops" in page["html"]
    # The odds are the unnamed table's: a name changes what is said, not the fight.
    unnamed = handle("fight", _table(), "../")["data"]
    assert [row["name"] for row in unnamed["opponents"]] == [
        "Opponent 1",
        "Opponent 2",
        "Opponent 3",
    ]
    assert data["party_wins"] == unnamed["party_wins"]
    assert [r["drops"] for r in data["party"]] == [r["drops"] for r in unnamed["party"]]


def test_a_name_with_markup_is_shown_as_text() -> None:
    page = handle("fight", _table(c1_name='<img src=x onerror="alert(1)">'), "../")
    assert page["ok"], page
    assert "<img" not in page["html"]
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; drops" in page["html"]


def test_a_name_too_long_or_of_control_characters_is_refused_next_to_it() -> None:
    page = handle("fight", _table(c1_name="M" * (NAME_LENGTH + 1)), "../")
    assert not page["ok"]
    assert str(NAME_LENGTH) in page["errors"]["c1_name"]
    page = handle("fight", _table(c3_name="Orc\n  Mira drops: 0.00%"), "../")
    assert not page["ok"]
    assert "c3_name" in page["errors"]


def test_the_command_line_names_a_row_by_its_last_part(capsys) -> None:
    status = main(
        ["fight", "--system", SYSTEMS[0], "--rounds", "3",
         "--combatant", "party:5:1d8+3:16:12:1:1:Mira",
         "--combatant", "party:4:1d6:14:10",
         "--combatant", "opponents:3:1d6:13:5:3::Orc: the big one"]
    )  # fmt: skip
    assert status == 0
    text = capsys.readouterr().out
    assert "  Mira drops: " in text
    assert "  Party member 2 drops: " in text
    assert "  Orc: the big one 3 drops: " in text
    status = main(
        ["fight", "--system", SYSTEMS[0], "--rounds", "3", "--json",
         "--combatant", "party:5:1d8+3:16:12:1:1:Mira",
         "--combatant", "opponents:3:1d6:13:5:2::Orc"]
    )  # fmt: skip
    assert status == 0
    printed = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in printed["party"]] == ["Mira"]
    assert [row["name"] for row in printed["opponents"]] == ["Orc 1", "Orc 2"]


def test_the_command_lines_help_says_how_to_name_a_row(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["fight", "--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert "[:ATTACKS A ROUND][:NAME]" in helped
    assert "name, is plain text" in helped
