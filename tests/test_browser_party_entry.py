"""A game master types a party into the fight form on a phone, and opens a fight from the
encounter budget: no edit is refused while the party is typed in, and the encounter's link
takes the party kept on the device, or leaves its figures to be entered and asks for them,
never the fight form's examples unmarked.

Systems come from each page's own form, never from slugs written here.
"""

from __future__ import annotations

import json

from conftest import ARTIFACTS, PARTY_STORE, Returning
from playwright.sync_api import Browser, Page, expect

# A party of four and one row of opponents, as a GM types them: row by row, a field at a
# time, the party in the first rows and the opponents in the form's last.
PARTY = [
    {"name": "Mira", "bonus": "7", "damage": "1d8+4", "defense": "17", "hp": "30"},
    {"name": "Bram", "bonus": "5", "damage": "1d6+3", "defense": "15", "hp": "26"},
    {"name": "Cal", "bonus": "6", "damage": "2d6", "defense": "16", "hp": "28"},
    {"name": "Dun", "bonus": "4", "damage": "1d10+2", "defense": "18", "hp": "34"},
]
ORCS = {"name": "Orc", "count": "6", "bonus": "5", "damage": "1d8+2", "defense": "14", "hp": "15"}
ORDER = ("side", "count", "name", "bonus", "damage", "defense", "hp")


def _answer_to_edit(page: Page) -> str:
    """Wait for the answer to the edit just made; what it was: "answered" (the fight's
    odds), "incomplete" (a side has no one yet: what it needs, said where the answer is)
    or "refused" (a value marked as wrong, or no answer)."""
    result = page.locator('.calc[data-calculator="fight"] .calc-result')
    expect(result).to_have_attribute("aria-busy", "false", timeout=60_000)
    classes = (result.get_attribute("class") or "").split()
    if "calc-result--incomplete" in classes:
        return "incomplete"
    if "calc-result--refused" in classes or "calc-result--unanswered" in classes:
        return "refused"
    return "answered"


def type_a_party(page: Page) -> list[tuple[str, str, str]]:
    """Each edit the GM makes (a field set to what they type, where it holds something
    else): the field, what the fight made of it, and what the dock said if not answered."""
    rows = page.locator(".calc-form fieldset.calc-group").count()
    wanted = [
        *({"side": "party", "count": "1", **member} for member in PARTY),
        {"side": "opponents", **ORCS},
    ]
    places = [*range(1, len(PARTY) + 1), rows]  # the opponents in the form's last row
    dock = page.locator('.calc[data-calculator="fight"] .calc-headline')
    edits = []
    for row, values in zip(places, wanted, strict=True):
        for field in ORDER:
            control = page.locator(f"#fight-c{row}_{field}")
            if control.input_value() == values[field]:
                continue  # already so: nothing to type
            control.scroll_into_view_if_needed()
            if field == "side":
                control.select_option(values[field])
            else:
                control.fill(values[field])
            state = _answer_to_edit(page)
            said = dock.get_attribute("data-reason") or "" if state != "answered" else ""
            edits.append((f"c{row}_{field}", state, said))
    return edits


def test_a_party_typed_in_row_by_row_is_never_refused(browser: Browser, server: str) -> None:
    """Over the form as built (four characters, then five opponents in the second row), a
    GM types a party of four into the first rows and a row of orcs into the last. No edit
    is refused: while no one is an opponent (the second row made a party member), the dock
    says what the fight needs and who the party is so far, naming no row of the party."""
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(server + "calculators/fight/")
    _answer_to_edit(page)
    edits = type_a_party(page)
    assert len(edits) >= 30  # a party of four and a row of orcs: every field but a few
    assert [field for field, state, _ in edits if state == "refused"] == []
    waiting = [said for _, state, said in edits if state == "incomplete"]
    assert waiting, "the opponents' row made a party member leaves no opponent"
    for said in waiting:
        needed, _, so_far = said.partition(" The party so far: ")
        assert needed.startswith("Add an opponent: ") and so_far, said
        assert not any(member["name"] in needed for member in PARTY), said
        assert not any(f"Combatant {row}" in needed for row in range(1, len(PARTY) + 1)), said
    assert any("Mira, Bram" in said for said in waiting)  # who is counted, by name
    # The last edit completes the orcs: the fight answered is the party against them.
    assert edits[-1][1] == "answered"
    result = page.locator('.calc[data-calculator="fight"] .calc-result')
    for member in PARTY:
        expect(result).to_contain_text(f"{member['name']} drops")
    expect(result).to_contain_text("Orc 6 drops")
    expect(page.locator(".calc-field-note")).to_have_count(0)  # no row left out at the end
    page.screenshot(path=str(ARTIFACTS / "party-entry-phone.png"))
    phone.close()


def test_a_row_typed_in_but_not_counted_is_said_and_the_rest_answered(
    browser: Browser, server: str
) -> None:
    """A member typed into an empty row before its count is set: the fight answers the
    rows counted, and beside the count says what would count this one."""
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(server + "calculators/fight/")
    _answer_to_edit(page)
    page.locator("#fight-c3_name").fill("Bram")
    assert _answer_to_edit(page) == "answered"
    expect(page.locator("#fight-c3_count-error")).to_have_text("Needed to count Bram (row 3).")
    expect(page.locator('.calc[data-calculator="fight"] .calc-result')).to_contain_text(
        "Bram (row 3) is not counted yet: set its count."
    )
    phone.close()


def _open_encounter(page: Page, server: str) -> str:
    """The encounter page, answered; the system its form has chosen."""
    page.goto(server + "calculators/encounter/")
    result = page.locator('.calc[data-calculator="encounter"] .calc-result')
    expect(result).to_have_attribute("aria-busy", "false", timeout=60_000)
    return page.locator('.calc[data-calculator="encounter"] [name="system"]').input_value()


def test_the_encounter_link_takes_the_party_kept_on_the_device(
    browser: Browser, server: str
) -> None:
    phone = Returning(browser, server, "phone")
    page = phone.page
    system = _open_encounter(page, server)
    members = [{**member, "system": system, "attacks": "1"} for member in PARTY]
    page.evaluate(
        "([key, kept]) => localStorage.setItem(key, kept)",
        [PARTY_STORE, json.dumps({"version": 1, "members": members})],
    )
    _open_encounter(page, server)
    link = page.locator("a.calc-fight-link")
    expect(link).to_have_text(
        "Fight odds for these monsters against Mira, Bram, Cal and Dun "
        "(the party kept on this device)"
    )
    link.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "encounter-link-kept-party.png"))
    link.click()
    page.wait_for_url("**/calculators/fight/**")
    for row, member in enumerate(PARTY, start=1):
        for field in ("name", "bonus", "damage", "defense", "hp"):
            expect(page.locator(f"#fight-c{row}_{field}")).to_have_value(member[field])
    # The monsters' figures are asked for, at the monsters' row: the party is complete.
    headline = page.locator('.calc[data-calculator="fight"] .calc-headline')
    expect(headline).to_have_attribute(
        "data-reason",
        "Add an opponent: to count Combatant 5, enter its attack bonus, damage, defense and "
        "hit points. The party so far: Mira, Bram, Cal and Dun.",
    )
    expect(page.locator("#fight-c5_bonus")).to_have_value("")
    phone.close()


def test_the_encounter_link_without_a_kept_party_asks_for_its_figures(
    browser: Browser, server: str
) -> None:
    phone = Returning(browser, server, "phone")
    page = phone.page
    _open_encounter(page, server)
    link = page.locator("a.calc-fight-link")
    expect(link).to_have_text("Fight odds for these monsters")
    link.click()
    page.wait_for_url("**/calculators/fight/**")
    # The party's figures are blank, never the form's examples, and asked for first.
    for field in ("bonus", "damage", "defense", "hp"):
        expect(page.locator(f"#fight-c1_{field}")).to_have_value("")
    headline = page.locator('.calc[data-calculator="fight"] .calc-headline')
    expect(headline).to_have_attribute(
        "data-reason",
        "Add a party member: to count Combatant 1, enter its attack bonus, damage, defense "
        "and hit points.",
    )
    expect(page.locator("#fight-c1_bonus-error")).to_have_text("Needed to count Combatant 1.")
    page.screenshot(path=str(ARTIFACTS / "encounter-link-party-asked.png"))
    # No answer is shown as if it were this party's: what the fight needs, in its place.
    result = page.locator('.calc[data-calculator="fight"] .calc-result')
    expect(result).to_contain_class("calc-result--incomplete")
    expect(headline.locator(".calc-headline-text, strong").first).to_be_hidden()
    phone.close()
