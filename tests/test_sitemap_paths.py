"""In Chromium, on a random port: a local build's sitemap paths resolve to where the site is
served (Material's instant loading reads them), every page of every system included, so
the calculators' Python stays loaded from a calculator to the rule it cites and back."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from conftest import CALCULATOR_PAGES, WASM_FILE, Returning, wait_live
from playwright.sync_api import Browser, expect

ROOT = Path(__file__).resolve().parent.parent
SLUGS = yaml.safe_load((ROOT / "content" / "systems.yml").read_text(encoding="utf-8"))["systems"]

READ_SITEMAP = """async () => {
  const text = await (await fetch(new URL("../../sitemap.xml", location.href))).text();
  const parsed = new DOMParser().parseFromString(text, "text/xml");
  return [...parsed.getElementsByTagName("loc")].map((loc) => loc.textContent);
}"""


def test_sitemap_entries_resolve_here_for_every_system(browser: Browser, server: str):
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(f"{server}{SLUGS[0]}/terms/")
    locations = page.evaluate(READ_SITEMAP)
    assert all(location.startswith(server) for location in locations)
    for slug in SLUGS:
        assert f"{server}{slug}/terms/" in locations
    assert f"{server}calculators/attack/" in locations
    context.close()


def test_python_stays_loaded_from_a_calculator_to_its_rule_and_back(
    browser: Browser, server: str
) -> None:
    """Check the rule, then recompute: following a citation and coming back is instant
    navigation, the same page and the same Python, and the answer is live again at once."""
    device = Returning(browser, server, "phone")
    page = device.page
    wasm: list[str] = []
    page.on("request", lambda r: r.url.endswith(WASM_FILE) and wasm.append(r.url))
    stem, (calculator, *_) = next(iter(CALCULATOR_PAGES.items()))
    page.goto(f"{server}calculators/{stem}/")
    wait_live(page, calculator)
    page.evaluate("window.sameDocument = true")
    for slug in SLUGS:
        citation = page.locator(f'.calc-result a[href*="{slug}/"]').first
        if citation.count():
            break
    else:
        raise AssertionError("no citation in the first calculator's answer")
    rule = citation.get_attribute("href")
    citation.click()
    expect(page).to_have_url(re.compile(re.escape(rule.lstrip("./").split("#")[0])))
    page.go_back()
    expect(page).to_have_url(re.compile(f"calculators/{stem}/"))
    wait_live(page, calculator)
    assert page.evaluate("window.sameDocument") is True
    assert len(wasm) == 1
    device.close()
