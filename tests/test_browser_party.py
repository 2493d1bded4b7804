"""The party kept on a game master's phone: entered once on the fight page, offered on the
attack calculator when it is next opened, as one-tap choices that fill its fields (the live answer
following), and offered back to an empty fight form. A corrupt entry leaves the pages
working; names with markup are shown as text.

Systems come from each page's own form, never from slugs written here.
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

from rules_core.mechanics.situations import situations
from rules_core.systems import get_system, system_slugs
from rules_core.web import handle


def type_into(page: Page, selector: str, text: str) -> None:
    """Replace a box's text as a reader does: a tap, select all, type."""
    box = page.locator(selector)
    box.scroll_into_view_if_needed()
    box.tap()
    box.fill("")
    box.press_sequentially(text)


def enter_the_party(page: Page) -> None:
    """Two named party members on the fight page: the first row renamed, a third row added."""
    type_into(page, "#fight-c1_name", "Mira")
    type_into(page, "#fight-c1_count", "1")
    type_into(page, "#fight-c1_bonus", "9")
    type_into(page, "#fight-c1_damage", "1d10+4")
    page.locator("#fight-c3_side").select_option("party")
    for field, value in (("count", "1"), ("bonus", "3"), ("damage", "1d6+1"),
                         ("defense", "15"), ("hp", "18"), ("name", MARKUP)):  # fmt: skip
        type_into(page, f"#fight-c3_{field}", value)


def stored(page: Page) -> list[dict[str, str]]:
    return json.loads(page.evaluate(f"localStorage.getItem('{PARTY_STORE}')"))["members"]


def member(name: str, system: str | None = None) -> dict[str, str]:
    """A kept member, for a system (as the fight form's select names it) or, kept before
    members had one, for none."""
    fields = {"bonus": "5", "damage": "1d8+2", "defense": "16", "hp": "20", "attacks": "1"}
    return {"name": name, **({"system": system} if system else {}), **fields}


def systems_of(page: Page, select: str) -> list[tuple[str, str]]:
    """The form's systems, (value, title) as its select names them (the short title)."""
    options = page.locator(f"{select} option")
    return [
        (option.get_attribute("value") or "", option.get_attribute("data-short") or "")
        for option in options.all()
    ]


def a_target_situation() -> tuple[str, str]:
    """A system and a situation of the target's it answers on its own ("Target prone")."""
    for system in system_slugs():
        for name, situation in situations(get_system(system)).items():
            if (
                situation.side == "target"
                and handle("attack", {"system": system, "situations": name})["ok"]
            ):
                return system, name
    raise AssertionError("no system has a situation of the target's to test with")


def expected_figure(page: Page, inputs: dict[str, str], label: str) -> str:
    """The figure the rules core gives these inputs, for the system the page shows."""
    system = page.locator("#attack-system").input_value()
    answered = handle("attack", {"system": system, **inputs}, "../../")
    assert answered["ok"], answered
    cell = re.search(rf'<th scope="row">{label}</th><td>(.*?)</td>', answered["html"])
    assert cell, answered["html"]
    return unescape(re.sub(r"<[^>]+>", " ", cell.group(1))).split()[0]


def test_a_party_entered_on_the_fight_page_is_offered_on_the_attack_page(
    browser: Browser, server: str
) -> None:
    phone = Returning(browser, server, "phone")
    page = phone.page
    # The party is kept for the fight form's system: the one whose target can be prone.
    system, prone = a_target_situation()
    page.goto(f"{server}calculators/fight/?system={system}")
    wait_live(page, "fight")
    note = page.locator(".calc[data-calculator='fight'] .calc-party")
    expect(note).to_contain_text("kept on this device")
    enter_the_party(page)
    expect(note).to_contain_text(f"Kept on this device: Mira, {MARKUP}.")
    assert {member["system"] for member in stored(page)} == {system}
    # The names are the answer's too, as text: "Mira drops".
    wait_live(page, "fight")
    result = page.locator("#fight-result")
    expect(result).to_contain_text("Mira drops")
    expect(result).to_contain_text(f"{MARKUP} drops")
    assert result.locator("b").count() == 0
    # The address still holds every row: a shared link reproduces the fight.
    assert "c1_name=Mira" in settled_address(page)
    page.locator("#fight-c1_name").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "party-fight-rows-phone.png"))

    page.goto(f"{server}calculators/attack/?system={system}")
    wait_live(page, "attack")
    attacker = page.get_by_role("group", name="The party as the attacker")
    target = page.get_by_role("group", name="The party as the target")
    expect(attacker.get_by_role("button")).to_have_text(["Mira", MARKUP])
    expect(target.get_by_role("button")).to_have_text(["Mira", MARKUP])
    assert page.locator(".calc-party b").count() == 0  # the markup is the name's text
    for choice in page.locator(".calc-party-choice").all():
        box = choice.bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= 375, box
    page.screenshot(path=str(ARTIFACTS / "party-attack-choices-phone.png"))

    # One tap: Mira attacks. Her bonus and damage are the form's, and the answer follows.
    attacker.get_by_role("button", name="Mira").tap()
    expect(page.locator("#attack-bonus")).to_have_value("9")
    # What was filled stays on the screen, with its label, the target's situations unfolded
    # below it (the answer is docked at the bottom).
    target_side = page.locator("details.calc-side[data-side='target']:not([hidden])")
    expect(target_side).to_have_attribute("open", "")
    page.wait_for_timeout(300)  # any scroll the tap makes has ended
    expect(page.locator("#attack-bonus")).to_be_in_viewport()
    expect(page.locator("label[for='attack-bonus']")).to_be_in_viewport()
    expect(target_side.locator("summary")).to_be_in_viewport()
    page.screenshot(path=str(ARTIFACTS / "party-attack-attacker-tapped-phone.png"))
    expect(page.locator("#attack-damage")).to_have_value("1d10+4")
    expect(attacker.get_by_role("button", name="Mira")).to_have_attribute("aria-pressed", "true")
    wait_live(page, "attack")
    inputs = {"bonus": "9", "damage": "1d10+4"}
    assert figure(page, "attack", "Hit").split()[0] == expected_figure(page, inputs, "Hit")
    assert "bonus=9" in settled_address(page)
    # The second tap: the target's situations are unfolded ("can Mira hit the prone orc?"),
    # the tile one tap away (below the filled fields: brought up as a reader's swipe does).
    tile = page.locator(f"label[for='attack-situations-{system}-{prone}']")
    expect(tile).to_be_visible()
    tile.tap()
    expect(page.locator(f"#attack-situations-{system}-{prone}")).to_be_checked()
    wait_live(page, "attack")
    inputs["situations"] = prone
    assert figure(page, "attack", "Hit").split()[0] == expected_figure(page, inputs, "Hit")
    page.screenshot(path=str(ARTIFACTS / "party-attack-two-taps-phone.png"))
    # The other as the target: its defense.
    target.get_by_role("button", name=MARKUP).tap()
    expect(page.locator("#attack-defense")).to_have_value("15")
    wait_live(page, "attack")
    inputs["defense"] = "15"
    assert figure(page, "attack", "Hit").split()[0] == expected_figure(page, inputs, "Hit")
    phone.close()


def test_an_empty_fight_form_offers_the_party_and_forgets_it_on_request(
    browser: Browser, server: str
) -> None:
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(f"{server}calculators/fight/")
    wait_live(page, "fight")
    enter_the_party(page)
    wait_live(page, "fight")
    page.goto(f"{server}calculators/fight/")  # the form as built, without the names
    wait_live(page, "fight")
    expect(page.locator("#fight-c1_name")).to_have_value("")
    # The party's own button comes first and stands out; "Forget" is a link after the names.
    note = page.locator(".calc-party")
    fill = note.get_by_role("button", name="Fill in the party")
    forget = note.get_by_role("button", name="Forget")
    follows = "(fill, forget) => fill.compareDocumentPosition(forget) & 4"  # forget after
    assert fill.evaluate(follows, forget.element_handle())
    assert forget.evaluate("(button) => getComputedStyle(button).borderTopStyle") == "none"
    assert fill.evaluate("(button) => getComputedStyle(button).borderTopStyle") != "none"
    fill.tap()
    expect(page.locator("#fight-c1_name")).to_have_value("Mira")
    expect(page.locator("#fight-c1_bonus")).to_have_value("9")
    expect(page.locator("#fight-c2_name")).to_have_value(MARKUP)
    expect(page.locator("#fight-c2_side")).to_have_value("party")
    # The opponents the form held come after the party, as they were.
    expect(page.locator("#fight-c3_side")).to_have_value("opponents")
    expect(page.locator("#fight-c3_count")).to_have_value("5")
    wait_live(page, "fight")
    expect(page.locator("#fight-result")).to_contain_text("Mira drops")
    expect(page.get_by_role("button", name="Fill in the party")).to_have_count(0)
    # Forgotten at once, and it can be undone: the party kept again as it was.
    kept = stored(page)
    page.get_by_role("button", name="Forget").tap()
    assert page.evaluate(f"localStorage.getItem('{PARTY_STORE}')") is None
    expect(page.locator(".calc-party")).to_contain_text("Forgotten on this device: Mira")
    page.get_by_role("button", name="Undo").tap()
    assert stored(page) == kept
    # Forgotten: nothing is kept, and the attack page offers nothing.
    page.get_by_role("button", name="Forget").tap()
    assert page.evaluate(f"localStorage.getItem('{PARTY_STORE}')") is None
    page.goto(f"{server}calculators/attack/")
    wait_live(page, "attack")
    expect(page.locator(".calc-party")).to_have_count(0)
    phone.close()


def test_a_corrupt_or_old_kept_party_leaves_the_pages_working(
    browser: Browser, server: str
) -> None:
    for kept in ("{not json", '{"version": 0, "members": [{"name": "Mira"}]}',
                 '{"version": 1, "members": [{"name": 7}]}', "null"):  # fmt: skip
        phone = Returning(browser, server, "phone")
        page = phone.page
        page.goto(f"{server}404.html")  # a page of the site without Python
        keep_party(page, kept, f"{server}calculators/attack/")
        wait_live(page, "attack")
        expect(page.locator(".calc-party")).to_have_count(0)
        type_into(page, "#attack-bonus", "9")
        wait_live(page, "attack")
        assert figure(page, "attack", "Hit").split()[0] == expected_figure(
            page, {"bonus": "9"}, "Hit"
        )
        open_calculator(page, server, "fight")  # the visit's next page: Python stays
        wait_live(page, "fight")
        expect(page.locator(".calc-party")).to_contain_text("kept on this device")
        expect(page.get_by_role("button", name="Fill in the party")).to_have_count(0)
        phone.close()  # no error on the console, no request to another host


def test_a_member_kept_for_one_system_is_offered_only_on_that_system(
    browser: Browser, server: str
) -> None:
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(f"{server}calculators/attack/")
    wait_live(page, "attack")
    (one, _), (other, other_title) = systems_of(page, "#attack-system")[:2]
    assert other_title, "the select names each system by a short title"
    # Mira kept for the other system: not offered here, and the line says for which.
    keep_party(page, [member("Mira", other)], f"{server}calculators/attack/?system={one}")
    wait_live(page, "attack")
    party = page.locator(".calc[data-calculator='attack'] .calc-party")
    expect(party).to_have_text(f"The party kept on this device is for {other_title}.")
    expect(party.get_by_role("button")).to_have_count(0)
    party.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "party-attack-other-system-phone.png"))
    # The form switched to her system offers her; switched back, no longer.
    page.locator("#attack-system").select_option(other)
    attacker = page.get_by_role("group", name="The party as the attacker")
    expect(attacker.get_by_role("button")).to_have_text(["Mira"])
    attacker.get_by_role("button", name="Mira").tap()
    expect(page.locator("#attack-bonus")).to_have_value("5")
    page.locator("#attack-system").select_option(one)
    expect(party).to_have_text(f"The party kept on this device is for {other_title}.")
    # A member kept before members had a system is offered for every system.
    keep_party(page, [member("Mira", other), member("Tess")], page.url)
    wait_live(page, "attack")
    for system, _ in systems_of(page, "#attack-system"):
        page.locator("#attack-system").select_option(system)
        names = ["Mira", "Tess"] if system == other else ["Tess"]
        expect(attacker.get_by_role("button")).to_have_text(names)

    # The checks page: the same line, her system offers her, and choosing another releases her.
    keep_party(page, [member("Mira", other)], f"{server}calculators/checks/?system={one}")
    wait_live(page, "check")
    party = page.locator(".calc[data-calculator='check'] .calc-party").first
    expect(party).to_have_text(f"The party kept on this device is for {other_title}.")
    page.screenshot(path=str(ARTIFACTS / "party-checks-other-system-phone.png"))
    assert other in [value for value, _ in systems_of(page, "#check-system")]
    page.locator("#check-system").select_option(other)
    rollers = page.get_by_role("group", name="The party as who rolls")
    rollers.get_by_role("button", name="Mira").tap()
    expect(page.locator("#check-bonus-party")).to_contain_text("Mira's")
    page.locator("#check-bonus").press_sequentially("4")
    expect(page.locator("#check-bonus-party")).to_contain_text("Kept as Mira's")
    roll = page.locator("#check-roll").input_value()
    # Kept for her, her system as it was.
    assert [(entry["system"], entry.get(roll)) for entry in stored(page)] == [(other, "4")]
    page.locator("#check-system").select_option(one)
    expect(party).to_have_text(f"The party kept on this device is for {other_title}.")
    expect(page.locator("#check-bonus-party")).to_be_hidden()
    phone.close()


def test_the_fight_page_keeps_the_members_of_other_systems(browser: Browser, server: str) -> None:
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(f"{server}calculators/fight/")
    wait_live(page, "fight")
    (one, one_title), (other, other_title) = systems_of(page, "#fight-system")[:2]
    keep_party(page, [member("Tess", other)], f"{server}calculators/fight/?system={one}")
    wait_live(page, "fight")
    note = page.locator(".calc[data-calculator='fight'] .calc-party")
    expect(note).to_contain_text(f"For {other_title}: Tess.")
    expect(page.get_by_role("button", name="Fill in the party")).to_have_count(0)
    # Rows entered for this system are kept for it, beside hers.
    enter_the_party(page)
    expect(note).to_contain_text(f"Kept on this device: Mira, {MARKUP}. For {other_title}: Tess.")
    kept = {(entry["name"], entry["system"]) for entry in stored(page)}
    assert kept == {("Mira", one), (MARKUP, one), ("Tess", other)}, kept
    # Her system's form fills in only her.
    page.goto(f"{server}calculators/fight/?system={other}")
    wait_live(page, "fight")
    expect(note).to_contain_text(f"Kept on this device: Tess. For {one_title}: Mira, {MARKUP}.")
    page.get_by_role("button", name="Fill in the party").tap()
    expect(page.locator("#fight-c1_name")).to_have_value("Tess")
    expect(page.locator("#fight-c2_side")).to_have_value("opponents")
    # Tess's row edited: hers rewritten, theirs kept.
    type_into(page, "#fight-c1_bonus", "7")
    kept = {(entry["name"], entry["system"], entry["bonus"]) for entry in stored(page)}
    assert kept == {("Mira", one, "9"), (MARKUP, one, "3"), ("Tess", other, "7")}, kept
    # "Forget all" forgets every system's.
    page.get_by_role("button", name="Forget all").tap()
    assert page.evaluate(f"localStorage.getItem('{PARTY_STORE}')") is None
    phone.close()
