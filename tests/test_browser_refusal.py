"""On a phone, where the game master is looking: a refused answer says why and how to fix
it in the docked answer and beside the box just changed, and a switch of system keeps what
the new system also has and says what it dropped.

Systems and situations come from the rules data, never from slugs written here.
"""

from __future__ import annotations

from itertools import permutations

from conftest import ARTIFACTS, Returning, wait_live
from playwright.sync_api import Browser, Locator, Page, expect
from test_browser import _a_situation_needing_an_attack_type

from rules_core.calculators import CALCULATORS
from rules_core.mechanics.situations import attack_types, depends_on, situations
from rules_core.systems import get_system, system_slugs


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
    watched = Returning(browser, server, "phone")
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
    # A field of no named row: the button names it by its label alone.
    expect(go).to_have_text("Go to Attack type")
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


def test_a_shared_link_that_is_refused_says_so_in_the_dock(browser: Browser, server: str) -> None:
    """A shared link whose inputs are refused: the build's figures (for the defaults) stay
    hidden beside them, and the refusal is what the dock shows, readable, with its button."""
    found = _a_situation_needing_an_attack_type()
    assert found, "no system has a situation that depends on the attack type to test with"
    system, name, _ = found
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.goto(f"{server}calculators/attack/?system={system}&situations={name}")
    message = page.locator("#attack-attack_type-error")
    expect(message).to_contain_text("attack type", timeout=60_000)
    said = page.locator("#attack-result .calc-headline .calc-refusal")
    expect(said).to_be_visible()
    expect(said).to_contain_text(message.inner_text())
    assert said.evaluate("e => getComputedStyle(e).visibility") == "visible"
    expect(said.get_by_role("button")).to_be_in_viewport()
    # The figures for the default inputs are not shown beside these.
    figures = page.locator("#attack-result .calc-headline > :not(.calc-refusal)")
    for index in range(figures.count()):
        expect(figures.nth(index)).to_be_hidden()
    page.screenshot(path=str(ARTIFACTS / "refusal-shared-link-phone.png"))
    watched.close()


def _systems_sharing_a_situation() -> tuple[str, str, str, str, str] | None:
    """(from, to, a situation both define, one only `from` defines, an attack type both
    define) from the rules data, for the attack calculator."""
    attack_type = next(f for f in CALCULATORS["attack"].fields if f.name == "attack_type")
    with_field = CALCULATORS["attack"].field_systems(attack_type) or system_slugs()
    for first, second in permutations(system_slugs(), 2):
        one, other = situations(get_system(first)), situations(get_system(second))
        # A situation that asks a question beside its tile first: its label is said alone.
        shared = sorted(
            (name for name in one if name in other), key=lambda name: not depends_on(other[name])
        )
        only = [name for name in one if name not in other]
        kinds = [
            k for k in attack_types(get_system(first)) if k in attack_types(get_system(second))
        ]
        if shared and only and kinds and first in with_field and second in with_field:
            return first, second, shared[0], only[0], kinds[0]
    return None


def test_a_system_switch_keeps_what_both_have_and_says_what_it_dropped(
    browser: Browser, server: str
) -> None:
    found = _systems_sharing_a_situation()
    assert found, "no two systems share a situation and an attack type to test with"
    first, second, shared, only, kind = found
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.goto(f"{server}calculators/attack/?system={first}")
    wait_live(page, "attack")
    page.select_option("#attack-attack_type", kind)
    wait_live(page, "attack")
    tick(page, page.locator(f"#attack-situations-{first}-{shared}"))
    wait_live(page, "attack")
    tick(page, page.locator(f"#attack-situations-{first}-{only}"))
    wait_live(page, "attack")
    select = page.locator("#attack-system")
    select.scroll_into_view_if_needed()
    select.select_option(second)
    wait_live(page, "attack")
    expect(page.locator(f"#attack-situations-{second}-{shared}")).to_be_checked()
    expect(page.locator("#attack-attack_type")).to_have_value(kind)
    assert page.locator("#attack-situations").input_value() == shared
    dropped = situations(get_system(first))[only].label
    note = page.locator(".calc-switch-note")
    expect(note).to_contain_text(dropped)
    expect(note).to_contain_text("dropped")
    expect(note).to_contain_text(get_system(second).short_title)
    kept = situations(get_system(second))[shared].label
    expect(note).to_contain_text(f"‘{kept}’")
    expect(note).to_be_in_viewport()
    assert above_the_dock(page, note)
    page.screenshot(path=str(ARTIFACTS / "system-switch-phone.png"))
    # What was dropped stays dropped: back on the first system, only the shared one is ticked.
    select.select_option(first)
    wait_live(page, "attack")
    expect(page.locator(f"#attack-situations-{first}-{shared}")).to_be_checked()
    expect(page.locator(f"#attack-situations-{first}-{only}")).not_to_be_checked()
    watched.close()


def _a_choice_one_system_lacks() -> tuple[str, str, str] | None:
    """(from, to, an attack type only `from` names) for two systems with the attack type."""
    attack_type = next(f for f in CALCULATORS["attack"].fields if f.name == "attack_type")
    with_field = CALCULATORS["attack"].field_systems(attack_type) or system_slugs()
    for first, second in permutations(with_field, 2):
        lacking = [
            k for k in attack_types(get_system(first)) if k not in attack_types(get_system(second))
        ]
        if lacking:
            return first, second, lacking[0]
    return None


def test_each_system_is_offered_its_own_choices_and_a_switch_drops_one_it_lacks(
    browser: Browser, server: str
) -> None:
    found = _a_choice_one_system_lacks()
    assert found, "no two systems name different attack types to test with"
    first, second, kind = found
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.goto(f"{server}calculators/attack/?system={first}")
    wait_live(page, "attack")
    field = page.locator("#attack-attack_type")
    shown = "select => [...select.options].filter(o => !o.hidden).map(o => o.value)"
    built = field.evaluate("select => select.value")  # the form's own default
    for system in (first, second):
        page.select_option("#attack-system", system)
        offered = field.evaluate(shown)
        assert [v for v in offered if v != built] == list(attack_types(get_system(system)))
    page.select_option("#attack-system", first)
    field.select_option(kind)
    wait_live(page, "attack")
    label = field.evaluate("select => select.selectedOptions[0].textContent")
    page.select_option("#attack-system", second)
    wait_live(page, "attack")
    expect(field).to_have_value(built)
    note = page.locator(".calc-switch-note")
    expect(note).to_contain_text(f"{label}: dropped")
    watched.close()
