"""The party kept on a game master's phone, offered on the checks page as who rolls: a
member's kept save or check bonus fills Bonus (the live answer following); a member without
one gets words beside Bonus and nothing filled; a bonus typed there is kept for that member
and roll, and the fight page keeps it when it rewrites the party. An old entry without
those bonuses still loads; a corrupt one is ignored as before.

Systems come from the page's own form, never from slugs written here.
"""

from __future__ import annotations

import json
import re
from html import unescape

from conftest import (
    ARTIFACTS,
    MARKUP,
    PARTY_STORE,
    Returning,
    figure,
    keep_party,
    open_calculator,
    settled_address,
    wait_live,
)
from playwright.sync_api import Browser, Page, expect

from rules_core.web import handle


def member(name: str, **rolls: str) -> dict[str, str]:
    """A kept member as the fight page keeps one, with any check and save bonuses given."""
    fields = {"bonus": "5", "damage": "1d8+2", "defense": "16", "hp": "20", "attacks": "1"}
    return {"name": name, **fields, **rolls}


def stored(page: Page) -> list[dict[str, str]]:
    return json.loads(page.evaluate(f"localStorage.getItem('{PARTY_STORE}')"))["members"]


def expected_success(page: Page, inputs: dict[str, str]) -> str:
    """The success chance the rules core gives the page's form with these inputs."""
    values = {
        name: page.locator(f"#check-{name}").input_value() for name in ("system", "roll", "target")
    }
    answered = handle("check", {**values, **inputs}, "../../")
    assert answered["ok"], answered
    cell = re.search(r'<th scope="row">Success</th><td>(.*?)</td>', answered["html"])
    assert cell, answered["html"]
    return unescape(re.sub(r"<[^>]+>", " ", cell.group(1))).split()[0]


def test_the_checks_page_fills_only_the_bonuses_kept_for_each_member(
    browser: Browser, server: str
) -> None:
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(f"{server}calculators/checks/")
    wait_live(page, "check")
    expect(page.locator(".calc-party")).to_have_count(0)  # nothing kept, nothing offered
    keep_party(page, [member("Mira", save="7"), member(MARKUP)], f"{server}calculators/checks/")
    wait_live(page, "check")
    rollers = page.get_by_role("group", name="The party as who rolls")
    expect(rollers.get_by_role("button")).to_have_text(["Mira", MARKUP])
    assert page.locator(".calc-party b").count() == 0  # the markup is the name's text
    for choice in page.locator(".calc-party-choice").all():
        box = choice.bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375, box

    # Mira's save: one tap fills Bonus, and the answer follows.
    page.locator("#check-roll").select_option("save")
    wait_live(page, "check")
    rollers.get_by_role("button", name="Mira").tap()
    bonus = page.locator("#check-bonus")
    expect(bonus).to_have_value("7")
    expect(rollers.get_by_role("button", name="Mira")).to_have_attribute("aria-pressed", "true")
    wait_live(page, "check")
    assert figure(page, "check", "Success").split()[0] == expected_success(page, {"bonus": "7"})
    assert "bonus=7" in settled_address(page)

    # Her check is not kept: words beside Bonus, nothing filled, Bonus ready to type in.
    page.locator("#check-roll").select_option("check")
    beside = page.locator("#check-bonus-party")
    expect(beside).to_have_text(
        "Mira's check bonus is not kept yet: type it here and it is kept for Mira."
    )
    expect(bonus).to_have_value("7")  # still the save's, as it was: nothing put in
    expect(bonus).to_be_focused()
    assert "check" not in stored(page)[0]

    # The other member has no save: nothing filled, the words name him as text.
    page.locator("#check-roll").select_option("save")
    expect(bonus).to_have_value("7")
    rollers.get_by_role("button", name=MARKUP).tap()
    expect(beside).to_have_text(
        f"{MARKUP}'s save bonus is not kept yet: type it here and it is kept for {MARKUP}."
    )
    expect(bonus).to_have_value("7")
    assert page.locator(".calc b").count() == 0
    beside_box = beside.bounding_box()
    assert beside_box and beside_box["x"] + beside_box["width"] <= 375, beside_box
    page.screenshot(path=str(ARTIFACTS / "party-checks-not-kept-phone.png"))

    # Typed, it is kept for him and that roll, and the answer follows.
    bonus.press_sequentially("4")
    expect(bonus).to_have_value("4")
    expect(beside).to_have_text(f"Kept as {MARKUP}'s save bonus.")
    wait_live(page, "check")
    assert figure(page, "check", "Success").split()[0] == expected_success(page, {"bonus": "4"})
    kept = {one["name"]: one for one in stored(page)}
    assert kept[MARKUP]["save"] == "4" and "check" not in kept[MARKUP]
    assert kept["Mira"]["save"] == "7" and kept["Mira"]["bonus"] == "5"

    # Opened again, choosing him fills what was typed.
    page.goto(f"{server}calculators/checks/")
    wait_live(page, "check")
    page.locator("#check-roll").select_option("save")
    wait_live(page, "check")
    rollers = page.get_by_role("group", name="The party as who rolls")
    rollers.get_by_role("button", name=MARKUP).tap()
    expect(page.locator("#check-bonus")).to_have_value("4")
    page.screenshot(path=str(ARTIFACTS / "party-checks-choices-phone.png"))

    # The fight page rewrites the party from its rows: the kept bonuses stay with the names.
    page.goto(f"{server}calculators/fight/")
    wait_live(page, "fight")
    page.get_by_role("button", name="Fill in the party").tap()
    box = page.locator("#fight-c1_bonus")
    box.scroll_into_view_if_needed()
    box.tap()
    box.fill("")
    box.press_sequentially("6")
    expect(page.locator(".calc[data-calculator='fight'] .calc-party")).to_contain_text(
        f"Kept on this device: Mira, {MARKUP}."
    )
    kept = {one["name"]: one for one in stored(page)}
    assert kept["Mira"]["bonus"] == "6" and kept["Mira"]["save"] == "7"
    # Renamed a letter at a time, she keeps her save through every name in between.
    name = page.locator("#fight-c1_name")
    name.scroll_into_view_if_needed()
    name.tap()
    name.press("End")
    name.press("Backspace")
    name.press_sequentially("anda")
    expect(name).to_have_value("Miranda")
    kept = {one["name"]: one for one in stored(page)}
    assert "Mira" not in kept and kept["Miranda"]["save"] == "7", kept
    assert kept[MARKUP]["save"] == "4"
    # Forget forgets them too.
    page.get_by_role("button", name="Forget").tap()
    assert page.evaluate(f"localStorage.getItem('{PARTY_STORE}')") is None
    phone.close()


def test_an_old_entry_loads_and_a_corrupt_bonus_is_ignored(browser: Browser, server: str) -> None:
    old = {"name": "Mira", "bonus": "9", "damage": "1d10+4", "defense": "15", "hp": "18",
           "attacks": "1"}  # fmt: skip
    cases = {
        json.dumps({"version": 1, "members": [old]}): True,  # v1 as first kept: no bonuses
        json.dumps({"version": 1, "members": [{**old, "save": 7}]}): False,
        json.dumps({"version": 1, "members": [{**old, "check": "9" * 201}]}): False,
        # A system that is not a string of a slug's length: the entry is ignored, as above.
        json.dumps({"version": 1, "members": [{**old, "system": 7}]}): False,
        json.dumps({"version": 1, "members": [{**old, "system": "x" * 65}]}): False,
        # One of none of the form's systems: that member is not offered, the others are.
        json.dumps(
            {
                "version": 1,
                "members": [old, {**old, "name": "Bram", "system": "not one of the form's"}],
            }
        ): True,
    }
    # One phone for all the cases: each case's entry replaces the whole of what is kept.
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(f"{server}404.html")  # a page of the site without Python, to keep the first entry
    for kept, offered in cases.items():
        page.evaluate("([key, kept]) => { localStorage.clear(); localStorage.setItem(key, kept) }",
                      [PARTY_STORE, kept])  # fmt: skip
        page.goto(f"{server}calculators/checks/")
        wait_live(page, "check")
        if offered:
            rollers = page.get_by_role("group", name="The party as who rolls")
            expect(rollers.get_by_role("button")).to_have_text(["Mira"])
            rollers.get_by_role("button", name="Mira").tap()
            expect(page.locator("#check-bonus-party")).to_contain_text("is not kept yet")
            expect(page.locator("#check-bonus")).to_have_value("0")
        else:
            expect(page.locator(".calc-party")).to_have_count(0)
        page.locator("#check-bonus").fill("3")
        page.locator("#check-bonus").dispatch_event("input")
        wait_live(page, "check")
        assert figure(page, "check", "Success").split()[0] == expected_success(page, {"bonus": "3"})
        if not offered:
            open_calculator(page, server, "attack")  # the visit's next page: Python stays
            wait_live(page, "attack")
            expect(page.locator(".calc-party")).to_have_count(0)
    phone.close()  # no error on the console, no request to another host


def test_the_other_members_kept_checks_fill_the_group_check_only_when_all_are_kept(
    browser: Browser, server: str
) -> None:
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(f"{server}calculators/checks/")
    wait_live(page, "check")
    # A system with group checks, as the page's own form names it.
    group_systems = page.locator(".calc-field:has(#check-group)").get_attribute("data-systems")
    assert group_systems, "the group check field names its systems"
    keep_party(
        page,
        [member("Mira", check="3"), member("Bram", check="2"), member("Tess")],
        f"{server}calculators/checks/?system={group_systems.split()[0]}&roll=check",
    )
    wait_live(page, "check")
    rollers = page.get_by_role("group", name="The party as who rolls")
    rollers.get_by_role("button", name="Mira").tap()
    expect(page.locator("#check-bonus")).to_have_value("3")
    page.locator("details.calc-more > summary").tap()
    others = page.locator(".calc-party-others")
    expect(others).to_have_text(
        "Not filled in from the party: no check bonus is kept for Tess "
        "(choose each above and type it in Bonus)."
    )
    expect(page.locator("#check-group")).to_have_value("")
    # Tess's check typed, the others are all kept: one tap fills the group check.
    rollers.get_by_role("button", name="Tess").tap()
    expect(page.locator("#check-bonus")).to_be_focused()
    page.locator("#check-bonus").press_sequentially("0")
    expect(page.locator("#check-bonus-party")).to_have_text("Kept as Tess's check bonus.")
    rollers.get_by_role("button", name="Mira").tap()
    expect(others).to_contain_text("The others' kept check bonuses: Bram 2, Tess 0.")
    others.get_by_role("button", name="Fill in").tap()
    expect(page.locator("#check-group")).to_have_value("2, 0")
    wait_live(page, "check")
    expect(page.locator("#check-result")).to_contain_text("Member 3")
    others.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "party-checks-group-phone.png"))
    box = others.bounding_box()
    assert box and box["x"] + box["width"] <= 375, box
    phone.close()
