"""The calculators in a real Chromium (Debian's package, driven by Playwright).

The site is built once into a temporary folder and served on 127.0.0.1; every page
must compute with the Python core running in Pyodide, keep its inputs in the address,
show bad input next to its field, log no console error, and request nothing from any
other host. Screenshots at desktop and phone widths go to test-artifacts/.
"""

from __future__ import annotations

from fractions import Fraction
from urllib.parse import parse_qs, urlsplit

from conftest import ARTIFACTS, CALCULATOR_PAGES, Watched, figure, wait_live
from playwright.sync_api import Browser, expect


def test_every_calculator_computes_live(browser: Browser, server: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for width, label in ((1280, "desktop"), (375, "phone")):
        watched = Watched(browser, server, width)
        for slug, calculators in CALCULATOR_PAGES.items():
            watched.page.goto(f"{server}calculators/{slug}/")
            for calculator in calculators:
                wait_live(watched.page, calculator)
            watched.page.screenshot(path=str(ARTIFACTS / f"{slug}-{label}.png"), full_page=True)
        watched.close()


def test_the_live_result_takes_over_without_a_jump(browser: Browser, server: str) -> None:
    watched = Watched(browser, server, 375)
    page = watched.page
    held = []  # the rules core's wheel waits here until the build-time result is measured
    watched.context.route("**/rules_core-*.whl", lambda route: held.append(route))
    page.goto(f"{server}calculators/damage/")
    result = page.locator("#damage-result")
    expect(result).to_have_attribute("aria-busy", "true")
    busy = page.locator('.calc[data-calculator="damage"] .calc-status--busy')
    expect(busy).to_be_visible()
    page.locator("#damage-result details summary").click()  # the distribution table, open
    # Material has wrapped the build-time table for scrolling by now.
    expect(result.locator(".md-typeset__scrollwrap table")).to_have_count(1)
    built, built_box = result.inner_html(), result.bounding_box()
    assert held, "Python should be waiting for the rules core"
    held[0].continue_()
    wait_live(page, "damage")
    expect(busy).to_have_count(0)
    # The same markup, the table the reader opened still open, in the same place.
    assert result.inner_html() == built
    assert result.bounding_box() == built_box
    watched.close()


def test_a_calculator_that_cannot_start_keeps_the_build_time_result(
    browser: Browser, server: str
) -> None:
    context = browser.new_context()
    context.route("**/rules_core-*.whl", lambda route: route.abort())
    page = context.new_page()
    page.goto(f"{server}calculators/damage/")
    result = page.locator("#damage-result")
    built = result.inner_html()
    expect(page.locator(".calc-status-text")).to_contain_text(
        "The calculator could not start", timeout=60_000
    )
    expect(result).to_have_attribute("aria-busy", "false")
    expect(page.locator(".calc-status--busy")).to_have_count(0)
    assert result.inner_html() == built
    context.close()


def test_attack_changes_round_trip_through_the_address(browser: Browser, server: str) -> None:
    watched = Watched(browser, server)
    page = watched.page
    page.goto(f"{server}calculators/attack/")
    wait_live(page, "attack")
    assert figure(page, "attack", "Hit").startswith("55.00%")
    page.select_option("#attack-system", "into-the-unknown")
    page.select_option("#attack-mode", "advantage")
    page.fill("#attack-bonus", "6")
    page.fill("#attack-defense", "16")
    expect(page.locator("#attack-result")).to_contain_text("79.75%")  # 319/400
    address = page.url
    query = parse_qs(urlsplit(address).query)
    assert query["system"] == ["into-the-unknown"] and query["mode"] == ["advantage"]
    # Back goes to the previous state (the system changed, advantage not yet chosen),
    # forward returns to the result.
    page.go_back()
    expect(page.locator("#attack-mode")).to_have_value("normal")
    expect(page.locator("#attack-result")).to_contain_text("11/20")
    page.go_forward()
    expect(page.locator("#attack-mode")).to_have_value("advantage")
    expect(page.locator("#attack-result")).to_contain_text("319/400")
    # The address alone reproduces the result, in a fresh page.
    fresh = watched.context.new_page()
    fresh.goto(address)
    wait_live(fresh, "attack")
    expect(fresh.locator("#attack-result")).to_contain_text("319/400")
    assert fresh.locator("#attack-mode").input_value() == "advantage"
    watched.close()


def test_bad_input_is_shown_next_to_the_field(browser: Browser, server: str) -> None:
    watched = Watched(browser, server)
    page = watched.page
    page.goto(f"{server}calculators/damage/")
    wait_live(page, "damage")
    before = page.locator("#damage-result").inner_html()
    page.fill("#damage-expression", "10000d10000")
    expect(page.locator("#damage-expression-error")).to_contain_text("dice")
    expect(page.locator("#damage-expression")).to_have_attribute("aria-invalid", "true")
    assert page.locator("#damage-result").inner_html() == before  # the last good result stays
    page.fill("#damage-expression", "abc")
    expect(page.locator("#damage-expression-error")).not_to_be_empty()
    page.fill("#damage-expression", "2d6+3")
    expect(page.locator("#damage-expression-error")).to_be_empty()
    page.goto(f"{server}calculators/encounter/")
    wait_live(page, "encounter")
    page.fill("#encounter-party", "-4")
    expect(page.locator("#encounter-party-error")).to_contain_text("from 1 to 100")
    page.goto(f"{server}calculators/abilities/")
    wait_live(page, "modifier")
    page.fill("#modifier-score", "x")
    expect(page.locator("#modifier-score-error")).to_contain_text("whole number")
    watched.close()


def test_a_system_without_the_rule_says_so(browser: Browser, server: str) -> None:
    watched = Watched(browser, server)
    page = watched.page
    page.goto(f"{server}calculators/level/?system=into-the-unknown")
    wait_live(page, "level")
    result = page.locator("#level-result")
    expect(result).to_contain_text("does not define XP and levels")
    link = result.locator("a").first
    expect(link).to_have_attribute("href", "../../into-the-unknown/adventuring/#gold-for-xp")
    watched.close()


def test_point_buy_shows_live_remaining_points(browser: Browser, server: str) -> None:
    watched = Watched(browser, server)
    page = watched.page
    page.goto(f"{server}calculators/abilities/")
    wait_live(page, "pointbuy")
    page.fill("#pointbuy-str", "18")
    expect(page.locator("#pointbuy-result")).to_contain_text("Not valid")
    assert figure(page, "pointbuy", "Remaining") == "-7"
    # The page's other widgets follow a change of system.
    page.select_option("#modifier-system", "into-the-unknown")
    expect(page.locator("#pointbuy-system")).to_have_value("into-the-unknown")
    expect(page.locator("#pointbuy-result")).to_contain_text("does not define a point-buy")
    watched.close()


def test_dice_roller_rolls_with_a_seed(browser: Browser, server: str) -> None:
    watched = Watched(browser, server)
    page = watched.page
    page.goto(f"{server}calculators/dice/?expression=3d6&seed=42")
    wait_live(page, "roll")
    page.click(".calc-roll")
    expect(page.locator("#roll-result .calc-rolled")).to_contain_text("Rolled")
    first = page.locator("#roll-result .calc-rolled").inner_text()
    page.click(".calc-roll")
    expect(page.locator("#roll-result .calc-rolled")).to_have_text(first)
    mean = figure(page, "roll", "Mean").split()[0]
    assert Fraction(mean) == Fraction("10.50")
    watched.close()


def test_a_dice_chip_opens_the_damage_calculator(browser: Browser, server: str) -> None:
    watched = Watched(browser, server)
    page = watched.page
    page.goto(f"{server}orcus/core-mechanic/")
    chip = page.locator("a.dice-chip", has_text="3d4+3").first
    title = chip.get_attribute("title")
    assert title == "3d4+3: 6 to 15, average 10.5"
    chip.click()
    wait_live(page, "damage")
    assert page.locator("#damage-system").input_value() == "orcus"
    assert page.locator("#damage-expression").input_value() == "3d4+3"
    assert figure(page, "damage", "Range") == "6 to 15"
    assert figure(page, "damage", "Mean").split()[0] == "10.50"
    watched.close()


def test_a_table_row_opens_its_calculator(browser: Browser, server: str) -> None:
    watched = Watched(browser, server)
    page = watched.page
    page.goto(f"{server}orcus/levels/")
    page.get_by_role("link", name="11", exact=True).first.click()  # level 11 of the table
    wait_live(page, "level")
    assert figure(page, "level", "Level") == "11"
    assert figure(page, "level", "Tier") == "Prestige"
    watched.close()
