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


# ------------------------------------------------------- a named row in the core's words


def _half_typed(**more: str) -> dict[str, str]:
    """The table with a fourth row, of two opponents, being typed: its damage and hit
    points not yet."""
    return _table(c4_side="opponents", c4_count="2", c4_bonus="4", c4_defense="13", **more)


def test_a_half_typed_named_row_is_said_by_its_name_and_row(capsys) -> None:
    page = handle("fight", _half_typed(c4_name="Orc"), "../")
    assert page["ok"], page
    said = "Orc (row 4) is not counted yet: enter its damage and hit points."
    assert page["data"]["left_out"] == [{"row": 4, "missing": ["damage", "hp"], "said": said}]
    assert said in page["summary"]
    assert page["notes"] == {
        "c4_damage": "Needed to count Orc (row 4).",
        "c4_hp": "Needed to count Orc (row 4).",
    }
    assert "Combatant 4" not in page["summary"]
    # Unnamed, or named blank, it keeps its legend.
    for name in ("", "   "):
        page = handle("fight", _half_typed(c4_name=name), "../")
        assert "Combatant 4 is not counted yet" in page["summary"]
        assert set(page["notes"].values()) == {"Needed to count Combatant 4."}
    # The command line says it by its name too.
    status = main(
        ["fight", "--system", SYSTEMS[0], "--rounds", "3",
         "--combatant", "party:5:1d6+1:14:9:2", "--combatant", "opponents:3:1d4:12:5:2",
         "--combatant", "opponents::1d4:12:5:2::Orc"]
    )  # fmt: skip
    assert status == 0
    assert "  Orc (row 3) is not counted yet: enter its attack bonus." in capsys.readouterr().out


def test_two_half_typed_rows_of_one_name_are_told_apart_by_their_row() -> None:
    inputs = _half_typed(c4_name="Orc", c5_side="opponents", c5_count="1", c5_name="Orc")
    page = handle("fight", inputs, "../")
    assert page["ok"], page
    said = [line["said"] for line in page["data"]["left_out"]]
    assert said[0].startswith("Orc (row 4) is not counted yet")
    assert said[1].startswith("Orc (row 5) is not counted yet")
    assert page["notes"]["c5_hp"] == "Needed to count Orc (row 5)."


def test_a_refused_name_is_refused_alone_and_named_in_no_other_message() -> None:
    page = handle("fight", _half_typed(c4_name="Orc\nMira"), "../")
    assert not page["ok"]
    assert list(page["errors"]) == ["c4_name"]
    assert "notes" not in page


def test_a_named_row_with_markup_is_said_as_text() -> None:
    hostile = '<img src=x onerror="alert(1)">'
    page = handle("fight", _half_typed(c4_name=hostile), "../")
    assert page["ok"], page
    assert "<img" not in page["html"]
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; (row 4) is not counted" in page["html"]
    # The summary and the notes are plain text, set as text by the page.
    assert f"{hostile} (row 4) is not counted yet" in page["summary"]
    assert page["notes"]["c4_hp"] == f"Needed to count {hostile} (row 4)."


def test_a_side_missing_is_said_in_plain_words_naming_the_row() -> None:
    # The opponents' only row half typed, named: its name and row.
    only = {**_table(c3_name="Orc"), "c3_damage": "", "c3_hp": ""}
    page = handle("fight", only, "../")
    assert not page["ok"] and page["incomplete"]
    assert page["message"].startswith(
        "Add an opponent: to count Orc (row 3), enter its damage and hit points."
    )
    assert page["notes"]["c3_hp"] == "Needed to count Orc (row 3)."
    # Typed in but not counted: its count.
    page = handle("fight", {**_table(c3_name="Orc"), "c3_count": "0"}, "../")
    assert page["message"].startswith("Add an opponent: to count Orc (row 3), set its count.")
    page = handle("fight", {**_table(), "c3_count": "0"}, "../")
    assert page["message"].startswith("Add an opponent: to count Combatant 3, set its count.")
    # The party's the same, in its own words.
    party = {**_table(c1_name="Mira"), "c1_hp": "", "c2_count": "0"}
    page = handle("fight", party, "../")
    assert page["message"].startswith(
        "Add a party member: to count Mira (row 1), enter its hit points."
    )
    page = handle("fight", {**_table(), "c1_count": "0", "c2_count": "0"}, "../")
    assert page["message"].startswith("Add a party member: to count Combatant 1, set its count.")
    assert "has none" not in page["message"]


# ------------------------------------------------------- labels unique across the sides


def _sides(party: list[tuple[int, str]], opponents: list[tuple[int, str]]) -> dict[str, list]:
    """Both sides' labels of a fight of those rows, each (count, name)."""
    inputs: dict[str, str] = {"system": SYSTEMS[0], "rounds": "1"}
    rows = [("party", *row) for row in party] + [("opponents", *row) for row in opponents]
    for row, (side, count, name) in enumerate(rows, start=1):
        inputs |= {f"c{row}_side": side, f"c{row}_count": str(count), f"c{row}_bonus": "3",
                   f"c{row}_damage": "1d4", f"c{row}_defense": "13", f"c{row}_hp": "2",
                   f"c{row}_name": name}  # fmt: skip
    for row in range(len(rows) + 1, 6):
        inputs[f"c{row}_count"] = "0"
    page = handle("fight", inputs, "../")
    assert page["ok"], page
    return {side: [row["name"] for row in page["data"][side]] for side in ("party", "opponents")}


def test_a_name_on_both_sides_says_which_side() -> None:
    assert _sides([(1, "Orc")], [(1, "Orc")]) == {
        "party": ["Orc (party)"],
        "opponents": ["Orc (opponents)"],
    }
    # Every one of that name, numbered within its side as before.
    assert _sides([(1, "Mira"), (2, "Orc")], [(2, "Orc"), (1, ""), (1, "Orc")]) == {
        "party": ["Mira", "Orc 1 (party)", "Orc 2 (party)"],
        "opponents": ["Orc 1 (opponents)", "Orc 2 (opponents)", "Opponent 3",
                      "Orc 3 (opponents)"],
    }  # fmt: skip
    # A name on one side only keeps its label.
    assert _sides([(1, "Mira")], [(3, "Orc")]) == {
        "party": ["Mira"],
        "opponents": ["Orc 1", "Orc 2", "Orc 3"],
    }
    # A name read as the other side's label: the place keeps it, the name says its side.
    assert _sides([(1, ""), (1, "Opponent 1")], [(1, ""), (1, "Party member 1")]) == {
        "party": ["Party member 1", "Opponent 1 (party)"],
        "opponents": ["Opponent 1", "Party member 1 (opponents)"],
    }


@pytest.mark.parametrize(
    ("party", "opponents"),
    [
        ([(1, "Orc"), (1, "Orc (party)")], [(1, "Orc")]),
        ([(2, "Orc")], [(1, "Orc 1 (party)"), (1, "Orc 1"), (1, "Orc (opponents)")]),
        ([(1, "Orc 1"), (1, "Orc")], [(1, "Orc 1"), (1, "Orc (party)"), (1, "Orc")]),
        ([(1, ""), (1, "Opponent 1 (party)")], [(1, ""), (1, "Party member 1")]),
    ],
)
def test_every_label_in_a_fight_is_unique(party: list, opponents: list) -> None:
    labels = _sides(party, opponents)
    every = labels["party"] + labels["opponents"]
    assert len(set(every)) == len(every) == sum(count for count, _ in party + opponents)


def test_the_command_line_says_which_side_a_name_on_both_is(capsys) -> None:
    status = main(
        ["fight", "--system", SYSTEMS[0], "--rounds", "2",
         "--combatant", "party:5:1d8+3:16:12:1:1:Orc",
         "--combatant", "party:4:1d6:14:10:1:1:Mira",
         "--combatant", "opponents:3:1d6:13:5:2::Orc"]
    )  # fmt: skip
    assert status == 0
    text = capsys.readouterr().out
    for label in ("Orc (party)", "Mira", "Orc 1 (opponents)", "Orc 2 (opponents)"):
        assert text.count(f"  {label} drops: ") == 1
    status = main(
        ["fight", "--system", SYSTEMS[0], "--rounds", "2", "--json",
         "--combatant", "party:5:1d8+3:16:12:1:1:Orc",
         "--combatant", "opponents:3:1d6:13:5:1::Orc"]
    )  # fmt: skip
    assert status == 0
    printed = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in printed["party"]] == ["Orc (party)"]
    assert [row["name"] for row in printed["opponents"]] == ["Orc (opponents)"]
