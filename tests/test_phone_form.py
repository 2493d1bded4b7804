"""A game master's phone (375 px): the form's controls are easy to hit and never hidden by
the answer docked at the bottom, with the soft keyboard up (a shorter viewport) too.

Each calculator page is walked once on a phone, Python started once for it: its reflow at
200 % text and 320 px (tests/test_reflow.py's checks), its fields with the keyboard up, and
its answers announced (test_accessibility.assert_each_new_answer_is_announced)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import (
    ARTIFACTS,
    CALCULATOR_PAGES,
    DEVICES,
    FIELD_AND_DOCK,
    Returning,
    open_calculator,
    placed,
    wait_live,
)
from playwright.sync_api import Browser, Page, expect
from test_accessibility import assert_each_new_answer_is_announced
from test_reflow import VIEWS, laid_out_anew, reflows

from hooks.pages.embed import FOLDER as EMBEDS
from rules_core.calculators import CALCULATORS
from rules_core.mechanics.situations import situations
from rules_core.systems import get_system, system_slugs

PHONE = DEVICES["phone"]["viewport"]
KEYBOARD_UP = {"width": 375, "height": 420}  # 812 px less a phone keyboard's ~390
# Where a focused field settles: in view, above the dock; and the dock, within a quarter of
# the room under the header.
CLEAR = "where.onScreen && !where.underDock"
A_QUARTER = "where.dock.every((height) => height <= where.room / 4 + 1)"
CONTROLS = ".calc-form input[type=text], .calc-form select, .calc-form summary"
FIELDS = ".calc-form input[type=text], .calc-form select"


def focus_each(page: Page, controls: str, dock_within_a_quarter: bool) -> int:
    """Focus each visible control in turn (which scrolls it into view): each lies on screen
    under the header and under no docked answer, and the dock within a quarter of the room
    if asked. How many were checked."""
    settled = f"{A_QUARTER} && {CLEAR}" if dock_within_a_quarter else CLEAR
    checked = 0
    for control in page.locator(controls).all():
        if not control.is_visible():
            continue
        control.focus()
        where = placed(control, FIELD_AND_DOCK, settled)
        if dock_within_a_quarter:
            assert all(height <= where["room"] / 4 + 1 for height in where["dock"]), where
        assert where["onScreen"] and not where["underDock"], where
        checked += 1
    return checked


@pytest.mark.parametrize("stem", list(CALCULATOR_PAGES))
def test_a_calculator_on_a_phone_reflows_keeps_its_fields_clear_of_the_dock_and_says_answers(
    browser: Browser, server: str, stem: str
) -> None:
    """A phone's journey through a calculator page, its live answers in, on one Python
    start: the page laid out in turn at each view of tests/test_reflow.py (200 % text, then
    320 px; the device pixels stay the first view's four), with the keyboard up at 375 px,
    and at 375 px.

    - At each view: every word whole, nothing sideways; the docked answer takes at most a
      quarter of the screen under the header (a line where its words would take more);
      every control, brought into view by focus, lies above it.
    - With the keyboard up: every field, brought into view by focus, lies on screen above
      the dock.
    - At 375 px: a new answer is announced through the status line
      (test_accessibility.assert_each_new_answer_is_announced)."""
    device = Returning(browser, server, **VIEWS["200% text"])
    page = device.page
    page.goto(f"{server}calculators/{stem}/")
    for calculator in CALCULATOR_PAGES[stem]:
        wait_live(page, calculator)
    for view, options in VIEWS.items():
        laid_out_anew(page, options["viewport"])
        assert reflows(page) == {"broken": [], "sideways": []}, view
        assert focus_each(page, CONTROLS, dock_within_a_quarter=True), view
        page.screenshot(path=str(ARTIFACTS / f"reflow-{stem}-{view.split()[0]}.png"))
    laid_out_anew(page, KEYBOARD_UP)
    assert focus_each(page, FIELDS, dock_within_a_quarter=False)
    laid_out_anew(page, PHONE)
    assert_each_new_answer_is_announced(device, stem)
    device.close()


BOXES = """(form) => {
  form.querySelectorAll("details.calc-more").forEach((more) => { more.open = true; });
  return [...form.querySelectorAll("input[type=text], select")]
    .filter((box) => box.offsetParent !== null && !box.closest(".calc-choices"))
    .map((box) => {
      const r = box.getBoundingClientRect(), more = !!box.closest(".calc-more");
      return { top: Math.round(r.top), bottom: Math.round(r.bottom), more };
    });
}"""


def test_the_boxes_of_a_row_are_level(browser: Browser, server: str) -> None:
    """On a phone a label may take two lines beside one that takes one ("Failures already
    marked" beside "Bonus to death saves"): the boxes of a row still share one top, so
    none reads as the next row's. Under "More options" too, whose short fields share
    rows as the others do."""
    device = Returning(browser, server, "phone")
    page = device.page
    rows_checked = {"form": 0, "more options": 0}
    for stem, calculators in CALCULATOR_PAGES.items():
        open_calculator(page, server, stem)  # by the drawer's link after the first: one Python
        for calculator in calculators:
            wait_live(page, calculator)
        page.screenshot(path=str(ARTIFACTS / f"{stem}-phone.png"), full_page=True)
        for form in page.locator(".calc-form").all():
            boxes = form.evaluate(BOXES)
            for one in boxes:
                beside = [b for b in boxes if b["top"] < one["bottom"] and one["top"] < b["bottom"]]
                assert {b["top"] for b in beside} == {one["top"]}, (stem, beside)
                rows_checked["more options" if one["more"] else "form"] += len(beside) > 1
    assert all(rows_checked.values()), rows_checked
    device.close()


def systems_with_situations() -> list[str]:
    return [slug for slug in system_slugs() if situations(get_system(slug))]


TILES = """(form) => [...form.querySelectorAll(".calc-choices .calc-check")]
  .filter((tile) => tile.offsetParent !== null)
  .map((tile) => {
    const t = tile.getBoundingClientRect(), b = tile.querySelector("input").getBoundingClientRect();
    return { tile: [t.left, t.top, t.right, t.bottom], box: [b.width, b.height] };
  })"""


CLOSED_SIDES = """(form) => [...form.querySelectorAll("details.calc-side > summary")]
  .filter((summary) => summary.offsetParent !== null)
  .map((summary) => Math.round(summary.getBoundingClientRect().top))"""

# For each block of tiles, its last tile's width, whether it is alone on its row, and the
# row's width.
LAST_TILES = """(form) => [...form.querySelectorAll(".calc-choices")]
  .map((choices) => [...choices.children].filter((tile) => tile.offsetParent !== null))
  .filter((tiles) => tiles.length)
  .map((tiles) => {
    const top = (tile) => Math.round(tile.getBoundingClientRect().top);
    const last = tiles.at(-1);
    return {
      alone: tiles.filter((tile) => top(tile) === top(last)).length === 1,
      width: last.getBoundingClientRect().width,
      row: last.parentElement.clientWidth,
    };
  })"""


@pytest.mark.parametrize("slug", systems_with_situations())
def test_situations_are_tiles_with_room_between_them(
    browser: Browser, server: str, slug: str
) -> None:
    """Each situation a tile of its own: a box of at least 24 px, a tile at least 44 px
    high (all of it ticks the box), and no tile touching another. Closed, the sides share
    one row; a tile alone on its block's last row takes the row (a long label there
    takes two lines, not five), so a side is in reach without a swipe."""
    assert "attack" in CALCULATORS
    device = Returning(browser, server, "phone")
    page = device.page
    page.goto(f"{server}calculators/attack/?system={slug}")
    wait_live(page, "attack")
    form = page.locator('.calc[data-calculator="attack"] form')
    assert len(set(form.evaluate(CLOSED_SIDES))) <= 1
    for summary in form.locator("details.calc-side:visible > summary").all():
        summary.click()
    for block in form.evaluate(LAST_TILES):
        assert not block["alone"] or block["width"] >= block["row"] - 1, block
    tiles = form.evaluate(TILES)
    assert len(tiles) == len(situations(get_system(slug)))
    for tile in tiles:
        assert min(tile["box"]) >= 24 and tile["tile"][3] - tile["tile"][1] >= 44, tile
    for index, (left, top, right, bottom) in enumerate(t["tile"] for t in tiles):
        for other in [t["tile"] for t in tiles[index + 1 :]]:
            apart = other[0] >= right + 4 or other[2] <= left - 4
            apart = apart or other[1] >= bottom + 4 or other[3] <= top - 4
            assert apart, (left, top, right, bottom, other)
    # Ticking by the tile's text, not the box.
    first = form.locator(".calc-choices .calc-check:visible").first
    first.click(position={"x": first.bounding_box()["width"] - 8, "y": 12})
    expect(first.locator("input")).to_be_checked()
    device.close()


def test_back_to_top_never_covers_a_calculator(browser: Browser, server: str) -> None:
    """On a phone the theme shows "Back to top" as the reader scrolls up a page, but not on
    a page with calculators, where it would cover the form: also when the reader comes to
    it by the site's own links (an instant navigation keeps the page's root, where the
    scripts mark a page with calculators), and leaves it for a page of rules."""
    device = Returning(browser, server, "phone")
    page = device.page
    top = page.locator(".md-top")

    def scrolled_up() -> None:
        """Down the page, then up: the theme then shows the button (drops its `hidden`)."""
        page.mouse.wheel(0, 1200)
        expect(top).to_have_attribute("hidden", "")
        page.mouse.wheel(0, -300)
        expect(top).not_to_have_attribute("hidden", "")

    page.goto(server)
    stem, (calculator, *_) = next(iter(CALCULATOR_PAGES.items()))
    open_calculator(page, server, stem)  # by the drawer's link: the same document
    page.wait_for_function("() => window.documentsEmitted === 2")
    wait_live(page, calculator)
    scrolled_up()
    expect(top).to_have_css("display", "none")
    # A rule the answer cites, by its link: the same document, a page of rules.
    page.locator(f'.calc[data-calculator="{calculator}"] .calc-sources a').first.click()
    page.wait_for_function("() => window.documentsEmitted === 3")
    expect(page.locator(".calc")).to_have_count(0)
    scrolled_up()
    expect(top).not_to_have_css("display", "none")
    device.close()


def test_pages_shrink_above_the_soft_keyboard(site: Path) -> None:
    """Where the browser supports it, the keyboard shrinks the page instead of covering
    it, so the docked answer stays above the keyboard. (An embed page is a frame: its host
    page's viewport says what the keyboard does.)"""
    for page in site.rglob("*.html"):
        if page.is_relative_to(site / "assets") or page.is_relative_to(site / EMBEDS):
            continue
        head = page.read_text(encoding="utf-8").split("</head>", 1)[0]
        assert 'interactive-widget=resizes-content"' in head, page
