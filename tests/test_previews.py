"""Touch-first previews of glossary terms and dice chips, the focus ring's contrast and
the sticky first column of wide tables, in Chromium at 375 px with touch."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from conftest import ARTIFACTS, Returning
from playwright.sync_api import Browser, Page, expect

from rules_core.dice import parse

RULES_PAGE = "orcus/combat/"


@pytest.fixture
def phone(browser: Browser, server: str) -> Iterator[Returning]:
    """A returning reader's phone, closed after the test with no console error and no
    other host asked (Watched.close)."""
    reader = Returning(browser, server, "phone")
    yield reader
    reader.close()


@pytest.fixture
def desktop(browser: Browser, server: str) -> Iterator[Returning]:
    """A returning reader's laptop, closed as the phone."""
    reader = Returning(browser, server, "desktop")
    yield reader
    reader.close()


def open_page(reader: Returning, url: str) -> Page:
    reader.page.goto(url)
    return reader.page


def test_a_tap_on_a_term_shows_its_preview_without_navigating(
    phone: Returning, server: str
) -> None:
    page = open_page(phone, server + RULES_PAGE)
    term = page.locator("a.term-link").first
    definition = term.get_attribute("data-definition")
    href = term.evaluate("link => link.href")
    assert definition
    term.scroll_into_view_if_needed()
    term.tap()
    preview = page.locator('#preview[role="dialog"]')
    expect(preview).to_be_visible()
    expect(preview).to_contain_text(definition)
    expect(preview.get_by_role("link", name="Go to the rule")).to_have_attribute("href", href)
    assert page.url == server + RULES_PAGE
    expect(term).to_have_attribute("aria-expanded", "true")
    box, viewport = preview.bounding_box(), page.viewport_size
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "preview-term-phone.png"))

    term.tap()  # the same word again closes it
    expect(preview).to_be_hidden()
    term.tap()
    expect(preview).to_be_visible()
    page.locator("h1").tap()  # outside
    expect(preview).to_be_hidden()
    assert page.url == server + RULES_PAGE

    # "Go to the rule" leaves for the rule, and the preview does not stay open over it.
    term.tap()
    preview.get_by_role("link", name="Go to the rule").tap()
    page.wait_for_url(href)
    expect(preview).to_be_hidden()


def test_a_tap_on_a_dice_chip_shows_the_cores_figures_and_rolls(
    phone: Returning, server: str
) -> None:
    page = open_page(phone, server + RULES_PAGE)
    chip = page.locator(".dice-chip[data-calculator]").first
    expression = parse(chip.get_attribute("data-roll"))
    distribution = expression.distribution()
    mean = distribution.mean()
    chip.scroll_into_view_if_needed()
    chip.tap()
    preview = page.locator('#preview[role="dialog"]')
    expect(preview).to_be_visible()
    figures = preview.locator(".preview__figures").inner_text()
    assert re.sub(r"\s+", " ", figures) == (
        f"Min {distribution.min} Average {float(mean):g} Max {distribution.max}"
    )
    link = preview.locator("a.preview__go")
    expect(link).to_have_text(chip.get_attribute("data-calculator"))
    expect(link).to_have_attribute("href", chip.evaluate("a => a.href"))
    for _ in range(5):
        preview.get_by_role("button", name="Roll").tap()
        rolled = preview.locator("output").inner_text()
        total = int(re.match(r"Rolled (-?\d+)", rolled).group(1))
        assert distribution.min <= total <= distribution.max
    assert page.url == server + RULES_PAGE
    page.screenshot(path=str(ARTIFACTS / "preview-dice-phone.png"))
    page.keyboard.press("Escape")
    expect(preview).to_be_hidden()


def test_the_keyboard_opens_and_closes_the_preview_and_a_mouse_click_follows_the_link(
    desktop: Returning, server: str
) -> None:
    page = open_page(desktop, server + RULES_PAGE)
    term = page.locator("a.term-link:not([href^='./#'])").first  # a rule on another page
    href = term.evaluate("link => link.href")
    definition = term.get_attribute("data-definition")
    term.focus()
    page.keyboard.press("Enter")
    preview = page.locator('#preview[role="dialog"]')
    expect(preview).to_be_visible()
    go = preview.get_by_role("link", name="Go to the rule")
    expect(go).to_be_focused()
    page.keyboard.press("Escape")
    expect(preview).to_be_hidden()
    expect(term).to_be_focused()
    # On a desktop, the mouse hovers (the browser's tooltip: the link's title, set on the
    # way in, not at load) and a click follows the link.
    assert page.locator("a.term-link[title]").count() <= 1  # the focused one
    term.hover()
    expect(term).to_have_attribute("title", definition)
    expect(preview).to_be_hidden()
    term.click()
    page.wait_for_url(href)
    expect(page.locator("h1")).not_to_have_text("Combat")
    expect(page.locator('#preview[role="dialog"]')).to_be_hidden()  # none, or closed


def relative_luminance(rgb: tuple[float, float, float]) -> float:
    def linear(channel: float) -> float:
        channel /= 255
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(channel) for channel in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(one: tuple[float, float, float], other: tuple[float, float, float]) -> float:
    lighter, darker = sorted((relative_luminance(one), relative_luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def rgb(css: str) -> tuple[float, float, float]:
    numbers = re.findall(r"[\d.]+", css)
    assert css.startswith("rgb") and len(numbers) >= 3, css
    return tuple(float(number) for number in numbers[:3])


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_the_focus_ring_reaches_3_to_1_against_what_it_surrounds(
    desktop: Returning, server: str, scheme: str
) -> None:
    """The ring's colour and the backgrounds are read from the page's computed CSS."""
    page = open_page(desktop, server + RULES_PAGE)
    page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    page.keyboard.press("Tab")  # from now on, focus shows as it does for the keyboard
    checked = 0
    for target, background in (
        ("article a.term-link", ".md-main"),
        (".md-header__button.md-logo", ".md-header"),
        (".md-tabs__link", ".md-tabs"),
    ):
        element = page.locator(target).first
        element.focus()
        assert element.evaluate("e => e.matches(':focus-visible')"), target
        outline = element.evaluate(
            "e => [getComputedStyle(e).outlineColor, getComputedStyle(e).outlineStyle,"
            " parseFloat(getComputedStyle(e).outlineWidth)]"
        )
        behind = page.evaluate(
            """selector => {
                let node = document.querySelector(selector);
                while (node) {
                    const colour = getComputedStyle(node).backgroundColor;
                    if (colour !== "rgba(0, 0, 0, 0)") return colour;
                    node = node.parentElement;
                }
                return "rgb(255, 255, 255)";
            }""",
            background,
        )
        assert outline[1] == "solid" and outline[2] >= 2, (target, outline)
        ratio = contrast(rgb(outline[0]), rgb(behind))
        assert ratio >= 3, (scheme, target, outline[0], behind, round(ratio, 2))
        checked += 1
    assert checked == 3


def test_the_theme_amber_was_below_3_to_1_on_white() -> None:
    """The control for the test above: the arithmetic tells the old ring apart."""
    assert contrast((255, 170, 0), (255, 255, 255)) < 2
    assert contrast((180, 83, 9), (255, 255, 255)) >= 3


def test_a_wide_tables_first_column_stays_in_view_when_scrolled(
    phone: Returning, server: str
) -> None:
    page = open_page(phone, server + "orcus/levels/")
    table = page.locator("article table").first
    table.scroll_into_view_if_needed()
    scrolled = table.evaluate("t => { t.scrollLeft = 200; return t.scrollLeft; }")
    assert scrolled > 0, "the table must be wider than a phone for this test"
    page.wait_for_timeout(100)
    table_box = table.bounding_box()
    for cell in (table.locator("th").first, table.locator("tbody td").first):
        box = cell.bounding_box()
        assert box is not None and abs(box["x"] - table_box["x"]) < 1.5, box
    # The second column has moved out of view under it.
    second = table.locator("tbody td").nth(1).bounding_box()
    assert second["x"] < table_box["x"] + 1
    page.screenshot(path=str(ARTIFACTS / "table-sticky-phone.png"))
