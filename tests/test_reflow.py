"""Every page reflows at 320 CSS px and at 200 % text (WCAG 2.2, 1.4.10 and 1.4.4): no word
breaks inside itself, nothing scrolls sideways but a wide table in its own box, and on a
calculator no field lies under the docked answer.

200 % text is emulated as a phone applies it: Chrome on Android and Safari on iOS zoom the
page by the text scale, so a 375x812 screen at 200 % lays pages out in 188x406 CSS px, drawn
at four device pixels to the CSS pixel (two for the screen, two for the zoom). That is the
layout the reader gets (the CSS viewport, media queries and rem all follow the zoom), which a
root font-size of 200 % would not give: it doubles the text inside a 375 px layout, which no
phone does for web pages.

Every calculator comes from the registry (rules_core.calculators), every page from the built
site. A calculator page with its live answers is walked at both views by the phone's journey
through it (tests/test_phone_form.py), which also checks that no field lies under its dock.
"""

from __future__ import annotations

from pathlib import Path

from conftest import ARTIFACTS, CALCULATOR_PAGES, Returning, Watched, hold_python, wait_live
from playwright.sync_api import Browser, Page, expect

VIEWS = {
    "200% text": {
        "viewport": {"width": 188, "height": 406},
        "device_scale_factor": 4,
        "is_mobile": True,
        "has_touch": True,
    },
    "320 px": {
        "viewport": {"width": 320, "height": 568},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
    },
}

# Words broken inside themselves, and what scrolls sideways. A word is what lies between
# spaces, or after a hyphen or slash, where a line may break; code and the closed menu and
# search are left out (a file name or an address is no word).
REFLOW = """() => {
  const broken = [];
  // A page's main part: the site's, or an embed page's (the calculator alone).
  const main = document.querySelector(".md-main, .embed-main");
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !parent.getClientRects().length) continue;
    if (parent.closest("code, pre, .md-sidebar, .md-search")) continue;
    if (getComputedStyle(parent).visibility === "hidden") continue;
    for (const word of node.data.matchAll(/[^\\s\\-–—/]+[\\-/]?/g)) {
      if (word[0].length < 2 || /^[\\w.-]+\\.[a-z]{2,}\\/?$/i.test(word[0])) continue;
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0.5)
        .map((r) => Math.round(r.bottom)));
      if (lines.size > 1) broken.push(word[0]);
    }
  }
  const sideways = [];
  if (document.scrollingElement.scrollWidth > innerWidth + 1) {
    sideways.push(`the page: ${document.scrollingElement.scrollWidth} px in ${innerWidth}`);
  }
  for (const element of document.querySelectorAll("body *")) {
    if (!/(auto|scroll)/.test(getComputedStyle(element).overflowX)) continue;
    if (element.scrollWidth <= element.clientWidth + 1) continue;
    if (!element.getClientRects().length) continue;
    if (element.closest("table, .md-typeset__scrollwrap, .md-sidebar, .md-search, .md-nav")) {
      continue;
    }
    sideways.push(`${element.tagName.toLowerCase()}.${[...element.classList].join(".")}`);
  }
  return { broken, sideways };
}"""


def reflows(page: Page) -> dict[str, list[str]]:
    return page.evaluate(REFLOW)


def built_pages(site: Path) -> list[str]:
    """Every page of the built site, by its address."""
    pages = []
    for path in sorted(site.rglob("index.html")):
        relative = path.parent.relative_to(site).as_posix()
        if not relative.startswith("assets"):
            pages.append("" if relative == "." else f"{relative}/")
    return pages


def laid_out_anew(page: Page, size: dict[str, int]) -> None:
    """The page at `size`, back at its top, once the frames that answer the resize are drawn
    (a docked answer refits in them)."""
    page.set_viewport_size(size)
    page.evaluate("() => scrollTo(0, 0)")
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def test_every_page_reflows(browser: Browser, server: str, site: Path) -> None:
    """Rules pages, Terms, GM screens, Compare pages, the calculators as built: every word
    whole, nothing sideways but a table in its box. Each page is loaded at 320 px, then laid
    out again at 200 % text (its viewport resized, as when a reader raises the text size on
    an open page; drawn at the 320 px view's two device pixels): one load for both views."""
    loaded, resized = "320 px", "200% text"
    # As built: no live answer changes a page while it is measured.
    watched = Watched(browser, server, **VIEWS[loaded])
    hold_python(watched.context)
    page = watched.page
    pages = built_pages(site)
    assert any(address.endswith("gm-screen/") for address in pages)
    failures = {}
    for address in pages:
        page.set_viewport_size(VIEWS[loaded]["viewport"])
        page.goto(f"{server}{address}")
        for view in (loaded, resized):
            if view == resized:
                laid_out_anew(page, VIEWS[resized]["viewport"])
            found = reflows(page)
            if found["broken"] or found["sideways"]:
                failures[f"{address or 'home'} at {view}"] = found
    watched.close()
    assert failures == {}


def test_a_long_system_name_is_shown_whole(browser: Browser, server: str) -> None:
    """The system's select shows the chosen system's whole title, on as many lines as it
    takes, at 200 % text too, and follows the value however it is set."""
    device = Returning(browser, server, **VIEWS["200% text"])
    page = device.page
    stem, (calculator, *_) = next(iter(CALCULATOR_PAGES.items()))
    page.goto(f"{server}calculators/{stem}/")
    wait_live(page, calculator)
    select = page.locator(f"#{calculator}-system")
    titles = select.locator("option").all_inner_texts()
    longest = max(range(len(titles)), key=lambda i: len(titles[i]))
    value = select.locator("option").nth(longest).get_attribute("value")
    shown = page.locator(".calc-select", has=select).locator(".calc-select-text")
    select.select_option(value)
    expect(shown).to_have_text(titles[longest])
    assert shown.evaluate("(box) => box.scrollWidth <= box.clientWidth + 1")
    assert reflows(page)["broken"] == []
    # Set by the page (as the address, a switch or the party set it), it follows too.
    select.evaluate("(select) => { select.value = select.options[0].value; }")
    expect(shown).to_have_text(titles[0])
    device.close()


def test_a_refused_docks_first_line_is_its_refusal_and_points_where_the_fields_are(
    browser: Browser, server: str
) -> None:
    """A shared link whose inputs are refused: the dock starts with the refusal (no band of
    the hidden figures above it), and says the other marked fields are below, where they
    are, and says so again as they scroll into view."""
    assert "fight" in CALCULATOR_PAGES["fight"]
    phone = Returning(browser, server, "phone")
    page = phone.page
    page.goto(f"{server}calculators/fight/?c1_bonus=x&c2_bonus=y&c2_hp=0")
    wait_live_or_refused = page.locator("#fight-result")
    expect(wait_live_or_refused).to_have_attribute("aria-busy", "false", timeout=60_000)
    refusal = page.locator("#fight-result .calc-headline > .calc-refusal")
    expect(refusal).to_contain_text("2 more marked below.")
    gap = refusal.evaluate(
        "(r) => r.getBoundingClientRect().top - r.parentElement.getBoundingClientRect().top"
    )
    assert gap < 20, gap
    page.locator("#fight-c2_hp").scroll_into_view_if_needed()
    page.locator("#fight-c2_hp").evaluate("(box) => box.scrollIntoView({ block: 'center' })")
    expect(refusal).not_to_contain_text("below")
    page.screenshot(path=str(ARTIFACTS / "refused-dock-phone.png"))
    phone.close()
