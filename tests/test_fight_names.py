"""A fight's rows named as the table calls them: the answer, its JSON and the command line
say "Mira drops", numbering a named row of several ("Orc 1") and on across the side's rows of
that name; unnamed rows keep their place, and no two labels on a side are the same."""

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


def _labels_of(*rows: tuple[int, str]) -> list[str]:
    """The opponents' labels of a fight whose opponent rows are (count, name)."""
    inputs = {**_table(), "c3_count": "0"}
    for row, (count, name) in enumerate(rows, start=3):
        inputs |= {f"c{row}_side": "opponents", f"c{row}_count": str(count),
                   f"c{row}_bonus": "3", f"c{row}_damage": "1d6", f"c{row}_defense": "13",
                   f"c{row}_hp": "3", f"c{row}_name": name}  # fmt: skip
    page = handle("fight", inputs, "../")
    assert page["ok"], page
    return [row["name"] for row in page["data"]["opponents"]]


def test_two_rows_of_one_name_are_numbered_as_one_group() -> None:
    assert _labels_of((3, "Orc"), (1, "Orc")) == ["Orc 1", "Orc 2", "Orc 3", "Orc 4"]
    assert _labels_of((1, "Orc"), (1, "Orc")) == ["Orc 1", "Orc 2"]
    # Another name between them keeps its own; the Orcs are numbered in the order attacked.
    assert _labels_of((2, "Orc"), (1, "Goblin"), (1, "Orc")) == [
        "Orc 1", "Orc 2", "Goblin", "Orc 3",
    ]  # fmt: skip
    # Unnamed rows keep their place in the order among named ones.
    assert _labels_of((1, "Orc"), (1, ""), (1, "Orc")) == ["Orc 1", "Opponent 2", "Orc 2"]


def test_a_name_that_reads_as_another_label_is_told_apart_by_its_place() -> None:
    # A row named as an unnamed row's label: the unnamed one keeps it, the name adds its place.
    labels = _labels_of((2, ""), (1, "Opponent 2"))
    assert labels == ["Opponent 1", "Opponent 2", "Opponent 2 (Opponent 3)"]
    # A name that reads as a numbered one of another name's group.
    labels = _labels_of((2, "Orc"), (1, "Orc 2"))
    assert labels == ["Orc 1", "Orc 2 (Opponent 2)", "Orc 2 (Opponent 3)"]
    # Even a name typed as the label the first clash would give is told apart.
    labels = _labels_of((2, ""), (1, "Opponent 2"), (1, "Opponent 2 (Opponent 3)"))
    assert len(set(labels)) == len(labels) == 4
    assert labels[:2] == ["Opponent 1", "Opponent 2"]


@pytest.mark.parametrize(
    "rows",
    [
        ((1, ""), (1, "Opponent 1"), (1, "Opponent 1"), (2, "Opponent 1")),
        ((2, "A"), (2, "A 1"), (1, "A 1 1"), (1, "")),
        ((1, "Orc"), (1, "orc"), (1, "Orc 1"), (1, "Orc 1 (Opponent 3)")),
    ],
)
def test_every_label_on_a_side_is_unique(rows: tuple[tuple[int, str], ...]) -> None:
    labels = _labels_of(*rows)
    assert len(set(labels)) == len(labels) == sum(count for count, _ in rows)


def test_the_command_line_numbers_two_rows_of_one_name_as_one_group(capsys) -> None:
    status = main(
        ["fight", "--system", SYSTEMS[0], "--rounds", "2", "--json",
         "--combatant", "party:5:1d8+3:16:12:1:1:Mira",
         "--combatant", "party:4:1d6:14:10:1:1:Mira",
         "--combatant", "opponents:3:1d6:13:5:2::Orc",
         "--combatant", "opponents:3:1d6:13:5:1::Orc",
         "--combatant", "opponents:3:1d6:13:5",
         "--combatant", "opponents:3:1d6:13:5:1::Opponent 4"]
    )  # fmt: skip
    assert status == 0
    printed = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in printed["party"]] == ["Mira 1", "Mira 2"]
    assert [row["name"] for row in printed["opponents"]] == [
        "Orc 1", "Orc 2", "Orc 3", "Opponent 4", "Opponent 4 (Opponent 5)",
    ]  # fmt: skip
    status = main(
        ["fight", "--system", SYSTEMS[0], "--rounds", "2",
         "--combatant", "party:5:1d8+3:16:12",
         "--combatant", "opponents:3:1d6:13:5:2::Orc",
         "--combatant", "opponents:3:1d6:13:5:1::Orc"]
    )  # fmt: skip
    assert status == 0
    text = capsys.readouterr().out
    for label in ("Orc 1", "Orc 2", "Orc 3"):
        assert text.count(f"  {label} drops: ") == 1
