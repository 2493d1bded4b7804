"""On a phone, where the game master is looking: a refused answer says why and how to fix
it in the docked answer and beside the box just changed.

Systems and situations come from the rules data, never from slugs written here.
"""

from __future__ import annotations

from conftest import ARTIFACTS, Device, wait_live
from playwright.sync_api import Browser, Locator, Page, expect
from test_browser import _a_situation_needing_an_attack_type

from rules_core.situations import attack_types
from rules_core.systems import get_system


def tick(page: Page, box: Locator) -> None:
    """Tick a situation as a reader does: its side unfolded, then a tap on its tile, brought
    above the answer docked at the foot of the screen."""
    fold = page.locator("details.calc-side", has=box)
    if fold.count() and fold.get_attribute("open") is None:
        fold.locator("summary").scroll_into_view_if_needed()
        fold.locator("summary").tap()
        expect(fold).to_have_attribute("open", "")
    box.evaluate("box => box.scrollIntoView({ block: 'center' })")
    box.tap()
    expect(box).to_be_checked()


def above_the_dock(page: Page, element: Locator) -> bool:
    """Wholly on screen, below the site's header and above the docked answer."""
    return page.evaluate(
        """(element) => {
          const box = element.getBoundingClientRect();
          const header = document.querySelector(".md-header").getBoundingClientRect();
          const dock = document.querySelector(".calc-headline").getBoundingClientRect();
          return box.height > 0 && box.top >= header.bottom - 1 && box.bottom <= dock.top + 1;
        }""",
        element.element_handle(),
    )


def test_a_refusal_is_said_in_the_dock_and_beside_the_box_just_ticked(
    browser: Browser, server: str
) -> None:
    found = _a_situation_needing_an_attack_type()
    assert found, "no system has a situation that depends on the attack type to test with"
    system, name, _ = found
    watched = Device(browser, server, "phone")
    page = watched.page
    page.goto(f"{server}calculators/attack/?system={system}")
    wait_live(page, "attack")
    box = page.locator(f"#attack-situations-{system}-{name}")
    tick(page, box)
    field = page.locator("#attack-attack_type")
    message = page.locator("#attack-attack_type-error")
    expect(message).to_contain_text("attack type", timeout=30_000)
    reason = message.inner_text()
    # The docked answer says the refusal itself, and offers to go to the field.
    dock = page.locator("#attack-result .calc-headline")
    expect(dock).to_be_in_viewport()
    expect(dock).to_contain_text(reason)
    go = dock.get_by_role("button")
    expect(go).to_have_count(1)
    expect(go).to_be_in_viewport()
    # Beside the box just ticked, in view with it: the same reason.
    beside = page.locator(".calc-refusal-near")
    expect(beside).to_contain_text(reason)
    expect(beside).to_be_in_viewport()
    expect(box).to_be_in_viewport()
    assert not above_the_dock(page, field), "the field should start out of view for this test"
    page.screenshot(path=str(ARTIFACTS / "refusal-in-dock-phone.png"))
    go.tap()
    expect(field).to_be_focused()
    page.wait_for_function(
        """(field) => {
          const box = field.getBoundingClientRect();
          const dock = document.querySelector(".calc-headline").getBoundingClientRect();
          return box.top >= 0 && box.bottom <= dock.top + 1;
        }""",
        arg=field.element_handle(),
        timeout=5_000,
    )
    assert above_the_dock(page, field)
    # The dock's "Details" tap is not what the button does: the form stays in view.
    assert above_the_dock(page, box) or above_the_dock(page, field)
    page.screenshot(path=str(ARTIFACTS / "refusal-go-to-field-phone.png"))
    # The fix taken, the refusal is gone from the dock and from beside the box.
    kind = next(
        value
        for value in field.locator("option").evaluate_all("os => os.map(o => o.value)")
        if value in attack_types(get_system(system))
    )
    field.select_option(kind)
    wait_live(page, "attack")
    expect(dock.get_by_role("button")).to_have_count(0)
    expect(beside).to_have_count(0)
    watched.close()
