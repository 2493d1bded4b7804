"""A calculator's build-time figures answer its default inputs: on a phone, they are never
painted beside other inputs (a shared link's, or those Back brings), not even for the
frames before the page's script has read the address or Python has answered."""

from __future__ import annotations

import json

from conftest import ARTIFACTS, CALCULATOR_PAGES, Device, HeldWheel, Returning, wait_live
from playwright.sync_api import Browser, Page, expect

from rules_core.calculators import CALCULATORS


def _a_shared_link() -> tuple[str, str, str]:
    """(page, calculator, query): the first calculator of the registry with a number field,
    and an address that sets that field one above its default (another answer)."""
    for page, calculators in CALCULATOR_PAGES.items():
        for name in calculators:
            for field in CALCULATORS[name].fields:
                if field.initial.isdigit():
                    return page, name, f"?{field.name}={int(field.initial) + 1}"
    raise AssertionError("no calculator has a number field: the test checks nothing")


# Counts the frames that paint the calculator's build-time figures readable: from each time
# its result enters the page (the first load, an instant navigation back to it) until the
# built headline is replaced by a live one.
WATCH_BUILT_FIGURES = """
window.builtFiguresPainted = 0;
const watched = new WeakSet();
new MutationObserver(() => {
  const result = document.querySelector(`#${CALCULATOR}-result`);
  if (!result || watched.has(result)) return;
  // The result may be parsed before its figures are: a later mutation brings them.
  const built = result.querySelector(".calc-headline");
  if (!built) return;
  watched.add(result);
  const frame = () => {
    if (!result.isConnected || result.querySelector(".calc-headline") !== built) return;
    const shown = (element) => getComputedStyle(element).visibility !== "hidden";
    const readable =
      [...result.children].some((child) => child !== built && shown(child)) ||
      (shown(built) && getComputedStyle(built).color !== "rgba(0, 0, 0, 0)");
    if (readable) window.builtFiguresPainted++;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}).observe(document, { childList: true, subtree: true });
"""


def _watch(page: Page, calculator: str) -> None:
    page.add_init_script(f"const CALCULATOR = {json.dumps(calculator)};" + WATCH_BUILT_FIGURES)


def _screenshot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"unasked-{name}.png"))


def test_a_shared_link_never_shows_the_defaults_answer_as_its_own(
    browser: Browser, server: str
) -> None:
    """Python held back: the link's inputs on screen, the built figures hidden and a note
    in their place, from the first frame; once Python answers, its answer, unmarked."""
    slug, calculator, query = _a_shared_link()
    watched = Device(browser, server, "phone")
    page = watched.page
    _watch(page, calculator)
    wheel = HeldWheel(watched.context)  # Python waits: only the built answer is on the page
    page.goto(f"{server}calculators/{slug}/{query}")
    result = page.locator(f"#{calculator}-result")
    # The address read, the figures still those built: none painted readable, from the start.
    expect(page.locator(f"#{calculator}-result[aria-busy]")).to_have_count(1)
    assert page.evaluate("window.builtFiguresPainted") == 0
    expect(result).to_contain_class("calc-result--unasked")
    result.locator(".calc-headline").scroll_into_view_if_needed()
    # Python is held back at the rules core: said in the figures' place, how far it has got.
    starting = '"Answer to these inputs: starting the calculators\' Python…"'
    for _ in range(600):
        note = result.locator(".calc-headline").evaluate(
            "h => getComputedStyle(h, '::after').content"
        )
        if note == starting:
            break
        assert "Answer to these inputs: " in note and "Python" in note, note
        page.wait_for_timeout(100)
    assert note == starting, note
    _screenshot(page, "shared-link-held")
    wheel.release()
    wait_live(page, calculator)
    expect(result).not_to_contain_class("calc-result--unasked")
    _screenshot(page, "shared-link-live")
    assert page.evaluate("window.builtFiguresPainted") == 0
    watched.close()


def test_back_from_a_citation_never_shows_the_defaults_answer(
    browser: Browser, server: str
) -> None:
    """Back from a citation of the answer: Material brings the page as built again, whose
    figures are never painted before the answer to the address's inputs replaces them."""
    slug, calculator, query = _a_shared_link()
    watched = Returning(browser, server, "phone")
    page = watched.page
    page.goto(f"{server}calculators/{slug}/{query}")
    wait_live(page, calculator)
    result = page.locator(f"#{calculator}-result")
    answer = result.inner_text()
    address = page.url
    citation = result.locator("a[href]").first
    citation.evaluate("link => link.click()")  # an instant navigation, as a tap
    expect(page).not_to_have_url(address)
    expect(result).to_have_count(0)  # the cited page shown (its address comes first)
    # From here on: every frame of the page Back brings (a document Material fetches again).
    page.evaluate(f"() => {{ const CALCULATOR = {json.dumps(calculator)}; {WATCH_BUILT_FIGURES} }}")
    # A phone's processor: the page as built stays longer before its answer replaces it.
    watched.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 6})
    page.go_back()
    expect(page).to_have_url(address)
    wait_live(page, calculator)
    expect(result).not_to_contain_class("calc-result--unasked")
    assert result.inner_text() == answer
    _screenshot(page, "back-live")
    assert page.evaluate("window.builtFiguresPainted") == 0
    watched.close()
