"""Accessibility: axe-core (node_modules/axe-core, pinned in package-lock.json) in Chromium.

A rules page, a comparison page and every calculator page for each system (the first
chosen through the address, `?system=...`, the others on the page; each once the live
result is in; the dice roller, which has no system, once), in the light and the dark
palette, must show no violation of impact "serious" or "critical". No rule is switched off
and no element is excluded.

The palette is the reader's: the mkdocs.yml palettes follow `prefers-color-scheme` on a
first visit, so a rules page and a comparison page are each loaded in a returning reader's
browser context emulating each colour scheme (what the theme kept cleared, as on a first
visit), and the test checks that the theme did show it. A calculator page is loaded once,
in the light palette, and switched to the dark one by the header's toggle, as a reader
does: Python starts once for it.

axe is added with `add_init_script`, which Chromium runs in each new document through
DevTools before the page's own scripts and outside the page's Content-Security-Policy;
`add_script_tag` would add an inline script, which that policy rightly blocks.
"""

from __future__ import annotations

import json

import pytest
from conftest import ARTIFACTS, CALCULATOR_PAGES, ROOT, Returning, wait_live
from playwright.sync_api import Browser, Page, expect

from hooks.postprocess.a11y import label_search_dialog
from rules_core.systems import system_slugs

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
PALETTES = {"light": "default", "dark": "slate"}  # colour scheme -> Material's palette
SYSTEMS = system_slugs()  # content/systems.yml, as compiled
BLOCKING = ("serious", "critical")
RUN_AXE = "() => axe.run(document, { resultTypes: ['violations'] })"


def reader(browser: Browser, server: str, scheme: str) -> Returning:
    """A returning reader's laptop page preferring the colour scheme given, with axe in each
    document it opens."""
    assert AXE.exists(), "run `npm ci`: axe-core is pinned in package-lock.json"
    # The worker's plain returning reader on a laptop, its page told the scheme the reader
    # prefers: not one more context to make for the dark one.
    opened = Returning(browser, server, "desktop")
    opened.page.emulate_media(color_scheme=scheme)
    opened.page.add_init_script(path=str(AXE))
    return opened


def violations(page: Page, scheme: str, where: str) -> list[str]:
    """axe's serious and critical violations on the page as it is now, one line each."""
    shown = page.evaluate("() => document.body.dataset.mdColorScheme")
    assert shown == PALETTES[scheme], f"{where}: the {scheme} palette is not the one shown"
    # axe reads colours as painted: a fade under way (the header's title, as a click scrolls
    # the page) is read half done, a contrast the page never rests at. A loop (a spinner) is
    # an animation, not a transition, and is read as it is.
    page.wait_for_function(
        "() => !document.getAnimations().some((running) => running instanceof CSSTransition)"
    )
    result = page.evaluate(RUN_AXE)
    found = []
    for violation in result["violations"]:
        if violation["impact"] not in BLOCKING:
            continue
        for node in violation["nodes"]:
            summary = " ".join(node.get("failureSummary", "").split())
            found.append(
                f"{scheme} {where}: {violation['id']} ({violation['impact']}) at "
                f"{json.dumps(node['target'])}: {summary[:300]}"
            )
    return found


@pytest.mark.parametrize("path", ["orcus/combat/", "compare/critical-hits/"])
def test_pages_in_both_palettes(browser: Browser, server: str, path: str) -> None:
    found = []
    for scheme in PALETTES:
        palette = reader(browser, server, scheme)
        palette.page.goto(server + path)
        found += violations(palette.page, scheme, path)
        palette.close()
    assert found == [], "\n".join(found)


def switch_palette(page: Page, scheme: str) -> None:
    """The reader's own switch, the header's toggle (kept by the theme for the pages after):
    the palette of `scheme` is shown once its colours have faded in."""
    page.locator("label.md-header__button[for]:visible").click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", PALETTES[scheme])


@pytest.mark.parametrize("slug", list(CALCULATOR_PAGES))
def test_calculator_pages_for_each_system_in_both_palettes(
    browser: Browser, server: str, slug: str
) -> None:
    """The page as a light-preferring reader loads it, then switched to the dark palette by
    the header's toggle, as a reader at the table does: one Python for the page, not one
    per palette (test_pages_in_both_palettes checks a dark-preferring reader is shown the
    dark palette on load; the theme paints both from the same attributes)."""
    opened = reader(browser, server, "light")
    page = opened.page
    address = f"calculators/{slug}/?system={SYSTEMS[0]}"
    page.goto(server + address)
    chosen = page.locator('.calc select[name="system"]')
    # Each system after the first is switched to on the page, as a reader at the table does:
    # one Python for the page, not one per system. The dice roller has no system to switch:
    # its page is the same for each.
    has_systems = chosen.count() > 0
    systems = SYSTEMS if has_systems else SYSTEMS[:1]
    found = []
    for scheme in PALETTES:
        if scheme != "light":
            switch_palette(page, scheme)
        for index, system in enumerate(systems):
            for choice in chosen.all():
                choice.select_option(system)
            for calculator in CALCULATOR_PAGES[slug]:
                wait_live(page, calculator)
            if has_systems:
                expect(chosen.first).to_have_value(system)
            switched = has_systems and (index or scheme != "light")
            where = f"calculators/{slug}/ switched to {system}" if switched else address
            found += violations(page, scheme, where)
            if index == 0 and scheme == "light":  # the page as a desktop reader first sees it
                page.screenshot(path=str(ARTIFACTS / f"{slug}-desktop.png"), full_page=True)
    if slug == "damage":
        # Bad input: the message next to its field, the last result kept and marked stale.
        page.fill("#damage-expression", "2d")
        expect(page.locator("#damage-expression-error")).not_to_be_empty()
        expect(page.locator("#damage-result")).to_contain_class("calc-result--stale")
        found += violations(page, "dark", "calculators/damage/ with a bad expression")
        switch_palette(page, "light")
        found += violations(page, "light", "calculators/damage/ with a bad expression")
    opened.close()
    assert found == [], "\n".join(found)


def test_the_search_dialog_is_named_once() -> None:
    theme = '<div class="md-search" data-md-component="search" role="dialog">'
    named = label_search_dialog(f"<body>{theme}</div></body>")
    assert f'{theme[:-1]} aria-label="Search">' in named
    assert label_search_dialog(named) == named


def _ax_node(cdp, selector: str) -> dict:
    """The accessibility node Chromium builds for the first element matching selector."""
    document = cdp.send("DOM.getDocument", {"depth": 0})
    found = cdp.send(
        "DOM.querySelector", {"nodeId": document["root"]["nodeId"], "selector": selector}
    )
    assert found["nodeId"], f"no element {selector}"
    nodes = cdp.send("Accessibility.getPartialAXTree", {"nodeId": found["nodeId"]})["nodes"]
    return next(node for node in nodes if not node.get("ignored")) | {"domId": found["nodeId"]}


def assert_each_new_answer_is_announced(device: Returning, slug: str) -> None:
    """On a phone the result box gives way to its children (display: contents) so its
    headline can dock; the answer is announced through the status line instead, which
    Chromium's accessibility tree must hold as a polite live region with the headline.
    For the page of `slug` open on `device`, live (tests/test_phone_form.py's journey)."""
    page = device.page
    calculator = CALCULATOR_PAGES[slug][0]
    widget = page.locator(f'.calc[data-calculator="{calculator}"]')
    field = widget.locator('input[type="text"]:visible').first
    field.fill(str(int(field.input_value() or 0) + 1) if field.input_value().isdigit() else "2d4")
    wait_live(page, calculator)
    headline = widget.locator(".calc-headline, .calc-undefined").first.text_content().strip()
    expect(widget.locator(".calc-announce")).to_have_text(headline)
    cdp = device.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("Accessibility.enable")
    status = _ax_node(cdp, f'.calc[data-calculator="{calculator}"] .calc-status')
    properties = {p["name"]: p["value"].get("value") for p in status.get("properties", [])}
    assert status["role"]["value"] == "status", status["role"]
    assert properties.get("live") == "polite" and properties.get("atomic") is True, properties
    said = cdp.send(
        "Accessibility.queryAXTree",
        {"nodeId": status["domId"], "accessibleName": headline, "role": "StaticText"},
    )["nodes"]
    assert said, f"{slug}: the status line does not hold '{headline}' for screen readers"
    cdp.detach()
