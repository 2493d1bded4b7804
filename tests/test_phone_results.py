"""A calculator's answer on a game master's phone (375 px): its tables read column by column."""

from __future__ import annotations

import pytest
from conftest import CALCULATOR_PAGES, Returning, wait_live
from playwright.sync_api import Browser

from rules_core.systems import get_system, system_slugs

# For each row of the dying result's turn table, the space between the text of each cell and
# the text of the next: a Range over a cell's contents is its text's box, not the cell's.
TEXT_GAPS = """(table) => [...table.rows].map((row) => {
  const text = (cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    return range.getBoundingClientRect();
  };
  const boxes = [...row.cells].map(text);
  return {
    cells: [...row.cells].map((cell) => cell.textContent),
    gaps: boxes.slice(1).map((box, index) => box.left - boxes[index].right),
    rights: boxes.map((box) => box.right),
  };
})"""

MIN_GAP_PX = 8


def systems_with_a_dying_rule() -> list[str]:
    return [slug for slug in system_slugs() if get_system(slug).rules.get("dying")]


@pytest.mark.parametrize("slug", systems_with_a_dying_rule())
def test_the_dying_turns_read_column_by_column(browser: Browser, server: str, slug: str) -> None:
    """Each turn's odds, dead, stable, up, still dying, side by side: no two numbers of a
    row run together ("0.00%0.00%"), the header's labels neither, and the numbers of a
    column end at one edge (5.00% over 14.26%), digit under digit."""
    stem = next(stem for stem, calculators in CALCULATOR_PAGES.items() if "dying" in calculators)
    device = Returning(browser, server, "phone")
    page = device.page
    page.goto(f"{server}calculators/{stem}/?system={slug}")
    wait_live(page, "dying")
    table = page.locator('.calc[data-calculator="dying"] .calc-result table.calc-turns')
    rows = table.evaluate(TEXT_GAPS)
    assert len(rows) >= 2, "a header and at least one turn"
    for row in rows:
        assert len(row["gaps"]) >= 2, row
        assert min(row["gaps"]) >= MIN_GAP_PX, row
    turns = [row["rights"] for row in rows[1:]]
    for column in zip(*turns, strict=True):
        assert max(column) - min(column) < 1, (column, turns)
    # The table stays within the page: the columns are apart, not pushed off the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    device.close()
