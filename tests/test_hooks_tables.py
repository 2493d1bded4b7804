"""Arithmetic tables are recomputed; misprints must be recorded, and are shown as printed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hooks.content.loader import load_content
from hooks.content.tables import Erratum, Table, load_table
from hooks.content.yaml_lines import ContentError
from hooks.pages.tables import check_table, render_table


def table(columns, rows, check=None, errata=()) -> Table:
    return Table(
        system="test",
        name="sample",
        path=Path("content/test/tables/sample.yml"),
        title="Table - Sample",
        columns=columns,
        rows=rows,
        row_lines=list(range(4, 4 + len(rows))),
        check=check,
        check_line=2,
        errata=list(errata),
    )


AVERAGES = {"kind": "dice-average", "count": "#"}


def test_correct_dice_averages_pass() -> None:
    assert (
        check_table(table(["#", "d6", "d10"], [["2", "7", "11"], ["36", "126", "198"]], AVERAGES))
        == []
    )


def test_unrecorded_misprint_fails_with_line() -> None:
    sample = table(["#", "d6", "d10"], [["2", "7", "11"], ["36", "126", "190"]], AVERAGES)
    with pytest.raises(ContentError) as caught:
        check_table(sample)
    assert caught.value.line == 5
    assert "prints 190 but computes to 198" in caught.value.message


def test_recorded_misprint_is_reported_and_rendered_as_printed() -> None:
    erratum = Erratum("36", "d10", "36 x 5.5 = 198.", 9)
    sample = table(["#", "d6", "d10"], [["36", "126", "190"]], AVERAGES, [erratum])
    mismatches = check_table(sample)
    assert [(m.row, m.column, m.printed, m.computed) for m in mismatches] == [
        ("36", "d10", "190", "198")
    ]
    markdown = render_table(sample, mismatches)
    assert "| 36 | 126 | 190 <sup>[erratum](#table-sample-errata" in markdown
    assert "- Row 36, column d10: printed 190, computed 198. 36 x 5.5 = 198." in markdown
    assert '!!! erratum "Erratum"' in markdown
    assert "Checked by the build" in markdown


def test_stale_erratum_fails() -> None:
    erratum = Erratum("2", "d6", "wrong note", 9)
    sample = table(["#", "d6"], [["2", "7"]], AVERAGES, [erratum])
    with pytest.raises(ContentError, match="computes correctly"):
        check_table(sample)


def test_ability_modifier_ranges() -> None:
    check = {"kind": "ability-modifier", "score": "Score", "modifier": "Modifier"}
    good = table(["Score", "Modifier"], [["1", "-5"], ["2-3", "−4"], ["10-11", "+0"]], check)
    assert check_table(good) == []
    bad = table(["Score", "Modifier"], [["12-14", "+1"]], check)
    with pytest.raises(ContentError, match="computes to \\+1, \\+2"):
        check_table(bad)


def test_cumulative_totals() -> None:
    check = {"kind": "cumulative", "step": "Next", "total": "Total"}
    rows = [["1", "1,000", "-"], ["2", "1,250", "1,000"], ["3", "N/A", "2,250"]]
    assert check_table(table(["Level", "Next", "Total"], rows, check)) == []
    rows[2][2] = "2,500"
    with pytest.raises(ContentError, match="prints 2,500 but computes to 2250"):
        check_table(table(["Level", "Next", "Total"], rows, check))


def test_pipes_in_cells_are_escaped() -> None:
    markdown = render_table(table(["A", "B"], [["x | y", "z"]]), [])
    assert "| x \\| y | z |" in markdown


CUMULATIVE = {"kind": "cumulative", "step": "Step", "total": "Total"}
MODIFIERS = {"kind": "ability-modifier", "score": "Score", "modifier": "Modifier"}


@pytest.mark.parametrize(
    ("columns", "rows", "check", "word", "column"),
    [
        (["#", "d6"], [["2", "7"], ["4", "fourteen"]], AVERAGES, "fourteen", "d6"),
        (["#", "d6"], [["2", "7"], ["four", "14"]], AVERAGES, "four", "#"),
        (["L", "Step", "Total"], [["1", "10", "-"], ["2", "ten", "10"]], CUMULATIVE, "ten", "Step"),
        (
            ["L", "Step", "Total"],
            [["1", "10", "-"], ["2", "5", "lots"]],
            CUMULATIVE,
            "lots",
            "Total",
        ),
        (["Score", "Modifier"], [["10-11", "+0"], ["twelve", "+1"]], MODIFIERS, "twelve", "Score"),
        (["Score", "Modifier"], [["10-11", "+0"], ["12-13", "one"]], MODIFIERS, "one", "Modifier"),
    ],
)
def test_a_word_in_a_checked_cell_names_its_line_column_and_fix(
    columns, rows, check, word, column
) -> None:
    with pytest.raises(ContentError) as caught:
        check_table(table(columns, rows, check))
    error = caught.value
    assert error.line == 5  # the second row
    assert f"column '{column}' holds '{word}'" in error.message
    assert "write the cell as printed, in digits" in error.message
    assert str(error).startswith("content/test/tables/sample.yml:5: ")


def test_a_word_in_a_real_checked_table_stops_the_load(tmp_path: Path) -> None:
    """Every checked table of the real content, with a word in a checked cell."""
    content = Path(__file__).resolve().parent.parent / "content"
    copy = tmp_path / "content"
    shutil.copytree(content, copy)
    checked = [
        table
        for system in load_content(copy).values()
        for table in system.tables.values()
        if table.check
    ]
    assert checked
    for sample in checked:
        # The last column the check names, in the last row.
        column = [value for key, value in sample.check.items() if key != "kind"][-1]
        row = list(sample.rows[-1])
        row[sample.columns.index(column)] = "many"
        lines = sample.path.read_text(encoding="utf-8").split("\n")
        index = sample.row_lines[-1] - 1
        lines[index] = lines[index][: lines[index].index("[")] + json.dumps(row)
        sample.path.write_text("\n".join(lines), encoding="utf-8")
        # (Loaded with its system, the table is refused before: the source text prints no
        # "many", tests/test_source_text.py.)
        with pytest.raises(ContentError) as caught:
            check_table(load_table(sample.system, sample.path))
        assert (caught.value.path, caught.value.line) == (str(sample.path), index + 1)
        assert f"column '{column}' holds 'many'" in caught.value.message
