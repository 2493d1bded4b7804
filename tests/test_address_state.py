"""What a calculator's address holds is what the reader saw: only the chosen system's fields
and situations are read from it, and an edit made just before a reload survives the reload.

The situations and systems are read from the built page (each situation's box names the
systems whose text defines it), never written here.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import Watched, wait_live
from playwright.sync_api import Browser, Page, expect

PHONE = {"viewport": {"width": 375, "height": 812}, "has_touch": True, "is_mobile": True}


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
    watched = Watched(browser, server, **PHONE)
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


def test_an_edit_just_before_a_reload_survives_it(browser: Browser, server: str) -> None:
    watched = Watched(browser, server, **PHONE)
    page = watched.page
    page.goto(f"{server}calculators/attack/")
    wait_live(page, "attack")
    # The edit and the reload in one task: the address, written once edits pause, lags.
    page.evaluate("""() => {
      const bonus = document.querySelector("#attack-bonus");
      bonus.value = "11";
      bonus.dispatchEvent(new Event("input", { bubbles: true }));
    }""")
    assert "bonus" not in page.url
    page.reload()
    wait_live(page, "attack")
    expect(page.locator("#attack-bonus")).to_have_value("11")
    assert parse_qs(urlsplit(page.url).query).get("bonus") == ["11"]
    # Handed over once: a later visit at the old address opens what that address says.
    page.goto(f"{server}calculators/attack/")
    wait_live(page, "attack")
    expect(page.locator("#attack-bonus")).not_to_have_value("11")
    watched.close()
