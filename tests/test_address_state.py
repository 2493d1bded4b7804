"""What a calculator's address holds is what the reader saw: only the chosen system's fields
and situations are read from it, and an edit made just before a reload survives the reload.

The situations and systems are read from the built page (each situation's box names the
systems whose text defines it), never written here.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import Returning, wait_live
from playwright.sync_api import Browser, Page, expect


def situation_boxes(page: Page) -> list[dict[str, str]]:
    """Each situation box of the attack calculator: its situation and the systems it is for."""
    return page.evaluate("""() => [...document.querySelectorAll("[data-situation]")].map(
      (box) => ({
        id: box.id,
        situation: box.dataset.situation,
        systems: box.closest("[data-systems]")?.dataset.systems ?? "",
      }))""")


def shared_situation(page: Page) -> tuple[str, dict[str, str], dict[str, str]]:
    """(situation, the box of the system the address names, the box of another system
    with the same situation): a situation two systems' texts both define."""
    boxes_of: dict[str, dict[str, dict[str, str]]] = {}
    for box in situation_boxes(page):
        for system in box["systems"].split():
            boxes_of.setdefault(box["situation"], {}).setdefault(system, box)
    for situation, boxes in sorted(boxes_of.items()):
        if len(boxes) >= 2:
            other, named = list(boxes.values())[:2]
            return situation, named, other
    pytest.skip("no situation is defined by two systems' texts")


def test_an_address_ticks_only_the_chosen_systems_situation(browser: Browser, server: str) -> None:
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.goto(f"{server}calculators/attack/")
    situation, named, other = shared_situation(page)
    named_system, other_system = named["systems"].split()[0], other["systems"].split()[0]
    page.goto(f"{server}calculators/attack/?system={named_system}&situations={situation}")
    wait_live(page, "attack")
    expect(page.locator(f"#{named['id']}")).to_be_checked()
    # The other system's box of the same situation is not ticked by the address.
    expect(page.locator(f"#{other['id']}")).not_to_be_checked()
    assert page.input_value('input[type="hidden"][name="situations"]') == situation
    page.select_option("#attack-system", other_system)
    wait_live(page, "attack")
    # Switching carries the ticked situation over, as the reader saw it ticked, and says so.
    expect(page.locator(f"#{other['id']}")).to_be_visible()
    expect(page.locator(f"#{other['id']}")).to_be_checked()
    expect(page.locator(".calc-switch-note")).to_contain_text("Kept")
    assert page.input_value('input[type="hidden"][name="situations"]') == situation
    watched.close()


def edit_bonus_in_one_task(page: Page, bonus: str, hidden_as_it_leaves: bool = False) -> None:
    """The edit in one task with what the reload that follows needs: the address, written
    once edits pause, lags behind it (asked in the same task, as a busy worker may read
    page.url after the lag's timer has fired)."""
    address = page.evaluate(
        """([bonus, hiddenAsItLeaves]) => {
      const field = document.querySelector("#attack-bonus");
      field.value = bonus;
      field.dispatchEvent(new Event("input", { bubbles: true }));
      window.hiddenAsItLeaves = hiddenAsItLeaves;
      return location.search;
    }""",
        [bonus, hidden_as_it_leaves],
    )
    assert f"bonus={bonus}" not in address


def test_an_edit_just_before_a_reload_survives_it(browser: Browser, server: str) -> None:
    watched = Returning(browser, server, "phone")
    page = watched.page
    # Heard before the page's own listeners, once the test asks: the page hidden as it leaves.
    page.add_init_script("""addEventListener("pagehide", () => {
      if (window.hiddenAsItLeaves) document.dispatchEvent(new Event("visibilitychange"));
    })""")
    page.goto(f"{server}calculators/attack/")
    wait_live(page, "attack")
    # The address still lags as the page leaves.
    edit_bonus_in_one_task(page, "11")
    page.reload()
    wait_live(page, "attack")
    expect(page.locator("#attack-bonus")).to_have_value("11")
    assert parse_qs(urlsplit(page.url).query).get("bonus") == ["11"]
    # The address written after the reload took the old one, before the page hid (a busy
    # phone's timer, or a browser that tells the page it is hidden as it unloads): a
    # visibilitychange heard first as the page leaves writes it.
    edit_bonus_in_one_task(page, "12", hidden_as_it_leaves=True)
    page.reload()
    wait_live(page, "attack")
    expect(page.locator("#attack-bonus")).to_have_value("12")
    assert parse_qs(urlsplit(page.url).query).get("bonus") == ["12"]
    # Taken up by a reload only: the same address opened again, as the edit's address still
    # lags, opens what that address says.
    edit_bonus_in_one_task(page, "13")
    page.goto(f"{server}calculators/attack/?bonus=12")
    wait_live(page, "attack")
    expect(page.locator("#attack-bonus")).to_have_value("12")
    assert parse_qs(urlsplit(page.url).query).get("bonus") == ["12"]
    watched.close()
