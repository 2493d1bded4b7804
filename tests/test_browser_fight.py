"""The fight calculator at the table, on a phone: a shared link shows the live answer to
its own fight, a row still being typed leaves the complete rows answered (its missing
values noted beside them), and a side with no combatant is refused where the GM looks.

The system is the first of content/systems.yml (as compiled) whose fight calculator
applies; the expected figures are the rules core's own answer to the same inputs.
"""

from __future__ import annotations

from urllib.parse import urlencode

from conftest import ARTIFACTS, Returning, wait_live
from playwright.sync_api import Browser, Page, expect

from rules_core.calculators.address import PAGES
from rules_core.calculators.fight import RULE
from rules_core.systems import get_system, system_slugs
from rules_core.web import handle

SYSTEM = next(slug for slug in system_slugs() if RULE.met(get_system(slug)))

# Five characters (+6, 1d8+3, defense 16, 24 hit points) against six orcs (+5, 1d8+2,
# defense 14, 15 hit points), over 10 rounds.
TYPICAL = {
    "system": SYSTEM, "rounds": "10",
    "c1_side": "party", "c1_count": "5", "c1_bonus": "6", "c1_damage": "1d8+3",
    "c1_defense": "16", "c1_hp": "24",
    "c2_side": "opponents", "c2_count": "6", "c2_bonus": "5", "c2_damage": "1d8+2",
    "c2_defense": "14", "c2_hp": "15",
}  # fmt: skip


def headline_of(inputs: dict[str, str]) -> str:
    """The first line of the core's answer (the headline, as plain text)."""
    answer = handle("fight", inputs, "../../")
    assert answer["ok"], answer
    return answer["summary"].splitlines()[0]


def open_fight(page: Page, server: str, inputs: dict[str, str]) -> None:
    page.goto(f"{server}calculators/{PAGES['fight']}/?{urlencode(inputs)}")
    wait_live(page, "fight")


def test_a_shared_link_to_a_typical_fight_shows_its_live_answer(
    browser: Browser, server: str
) -> None:
    watched = Returning(browser, server, "phone")
    page = watched.page
    open_fight(page, server, TYPICAL)
    expected = headline_of(TYPICAL)
    assert expected != headline_of({"system": SYSTEM}), "the link should ask another fight"
    dock = page.locator("#fight-result .calc-headline")
    expect(dock).to_contain_text(expected, timeout=30_000)
    expect(dock).to_be_in_viewport()
    assert "half over by round" in expected or "still going" in expected
    # Each side standing after each round, a readable chart on the phone.
    chart = page.locator("#fight-result .calc-chart--grouped")
    chart.scroll_into_view_if_needed()
    drawn = chart.get_by_role("img")
    expect(drawn).to_be_visible()
    assert drawn.bounding_box()["width"] > 300
    expect(chart.locator("figcaption")).to_contain_text("Party")
    expect(chart.locator("figcaption")).to_contain_text("Opponents")
    page.screenshot(path=str(ARTIFACTS / "fight-headline-phone.png"))
    # Below the answer's headline, which sticks at the top of the screen as it scrolls.
    chart.evaluate("e => { e.style.scrollMarginTop = '10rem'; e.scrollIntoView() }")
    for scheme in ("default", "slate"):  # the light palette and the dark
        page.evaluate(f"() => document.body.setAttribute('data-md-color-scheme', '{scheme}')")
        # The sides in two colours, each apart from the page's background.
        fills = [
            chart.locator(f"svg[role=img] .calc-bar--s{s}").first.evaluate(
                "e => getComputedStyle(e).fill"
            )
            for s in (0, 1)
        ]
        background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert fills[0] != fills[1] and background not in fills, (scheme, fills, background)
        page.screenshot(path=str(ARTIFACTS / f"fight-standing-chart-{scheme}-phone.png"))
    watched.close()


def test_a_half_typed_row_leaves_the_complete_rows_answered(browser: Browser, server: str) -> None:
    watched = Returning(browser, server, "phone")
    page = watched.page
    open_fight(page, server, TYPICAL)
    # The GM adds a third row: its name, count and attack bonus typed, the rest not yet.
    page.locator("#fight-c3_name").fill("Goblin")
    page.locator("#fight-c3_count").fill("2")
    page.locator("#fight-c3_bonus").fill("4")
    wait_live(page, "fight")
    result = page.locator("#fight-result")
    expect(result.locator(".calc-headline")).to_contain_text(headline_of(TYPICAL))
    # Said by the name typed, and its row.
    expect(result.locator(".calc-headline")).to_contain_text("Goblin (row 3) is not counted yet")
    assert "calc-result--refused" not in (result.get_attribute("class") or "")
    # Beside each value the row lacks, a note; none beside the value typed.
    note = page.locator("#fight-c3_hp-error .calc-field-note")
    expect(note).to_contain_text("Needed to count Goblin (row 3)")
    expect(page.locator("#fight-c3_bonus-error .calc-field-note")).to_have_count(0)
    page.locator("#fight-c3_damage").evaluate("e => e.scrollIntoView({ block: 'center' })")
    expect(note).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "fight-half-typed-row-phone.png"))
    # The row completed, it is counted: the notes go, and the answer is another fight's.
    page.locator("#fight-c3_damage").fill("1d6")
    page.locator("#fight-c3_defense").fill("12")
    page.locator("#fight-c3_hp").fill("8")
    wait_live(page, "fight")
    expect(page.locator(".calc-field-note")).to_have_count(0)
    expect(result.locator(".calc-headline")).not_to_contain_text("not counted")
    watched.close()


def test_a_side_emptied_says_what_it_needs_in_the_dock_not_as_an_error(
    browser: Browser, server: str
) -> None:
    """The opponents' row emptied of its attack bonus, then of its hit points: the fight
    has no opponent left. Not a value refused: the dock says what would give one, in place
    of the last answer's figures, and beside each value the row lacks, what it counts."""
    watched = Returning(browser, server, "phone")
    page = watched.page
    open_fight(page, server, TYPICAL)
    page.locator("#fight-c2_bonus").fill("")
    page.locator("#fight-c2_hp").fill("")
    dock = page.locator("#fight-result .calc-headline")
    expect(dock).to_have_attribute(
        "data-reason",
        "Add an opponent: to count Combatant 2, enter its attack bonus and hit points. "
        "The party so far: 5 counted.",
        timeout=30_000,
    )
    expect(page.locator("#fight-result")).to_contain_class("calc-result--incomplete")
    expect(dock).to_be_in_viewport()
    for field in ("bonus", "hp"):
        expect(page.locator(f"#fight-c2_{field}-error")).to_have_text(
            "Needed to count Combatant 2."
        )
    expect(page.locator('[aria-invalid="true"]')).to_have_count(0)  # nothing is wrong
    page.screenshot(path=str(ARTIFACTS / "fight-side-missing-phone.png"))
    # Given back, the fight is answered.
    page.locator("#fight-c2_bonus").fill("5")
    page.locator("#fight-c2_hp").fill("15")
    wait_live(page, "fight")
    expect(page.locator("#fight-result")).not_to_contain_class("calc-result--incomplete")
    watched.close()


def _empty_the_opponents_row(page: Page) -> None:
    """Row 2's attack bonus refused (a word, not a number), then its hit points changed:
    refused at its attack bonus, with a button in the dock, and beside the row being edited,
    to go to it."""
    page.locator("#fight-c2_bonus").fill("x")
    page.locator("#fight-c2_hp").fill("16")
    expect(page.locator("#fight-c2_bonus-error")).to_contain_text(
        "Enter a whole number", timeout=30_000
    )


def test_the_button_to_a_refused_field_names_its_row(browser: Browser, server: str) -> None:
    """Every combatant row has the same fields: the button says which row's, by the name
    typed in it, else by its legend, so a GM with five rows on a phone knows where it goes."""
    watched = Returning(browser, server, "phone")
    page = watched.page
    dock = page.locator("#fight-result .calc-headline")
    # A named row: its name.
    open_fight(page, server, {**TYPICAL, "c1_name": "Mira", "c2_name": "Orc"})
    _empty_the_opponents_row(page)
    go = dock.locator(".calc-refusal-go")
    expect(go).to_have_text("Go to Orc's attack bonus")
    expect(go).to_be_in_viewport()
    beside = page.locator("fieldset.calc-group", has=page.locator("#fight-c2_hp"))
    expect(beside.locator(".calc-refusal-go")).to_have_text("Go to Orc's attack bonus")
    page.screenshot(path=str(ARTIFACTS / "fight-go-to-named-row-phone.png"))
    go.tap()
    expect(page.locator("#fight-c2_bonus")).to_be_focused()
    # An unnamed row: its legend.
    open_fight(page, server, TYPICAL)
    _empty_the_opponents_row(page)
    expect(dock.locator(".calc-refusal-go")).to_have_text("Go to Combatant 2's attack bonus")
    # A name two rows share tells them apart no better than the label: the legend again.
    open_fight(page, server, {**TYPICAL, "c2_name": "Orc", "c3_count": "1", "c3_name": "Orc"})
    _empty_the_opponents_row(page)
    expect(dock.locator(".calc-refusal-go")).to_have_text("Go to Combatant 2's attack bonus")
    # A name is text, never markup: a name of markup is shown as its characters.
    hostile = '<img src=x onerror="window.injected=1">'
    open_fight(page, server, {**TYPICAL, "c2_name": hostile})
    _empty_the_opponents_row(page)
    go = dock.locator(".calc-refusal-go")
    expect(go).to_have_text(f"Go to {hostile}'s attack bonus")
    expect(go.locator("img")).to_have_count(0)
    assert page.evaluate("() => window.injected") is None
    watched.close()
