"""In Chromium, on a random port: a local build's sitemap paths resolve to where the site is
served (Material's instant loading reads them), limited to the page's own system, and each
system's pages search their own index."""

from __future__ import annotations

from pathlib import Path

import yaml
from playwright.sync_api import Browser

ROOT = Path(__file__).resolve().parent.parent
SLUGS = yaml.safe_load((ROOT / "content" / "systems.yml").read_text(encoding="utf-8"))["systems"]

READ_SITEMAP = """async () => {
  const text = await (await fetch(new URL("../../sitemap.xml", location.href))).text();
  const parsed = new DOMParser().parseFromString(text, "text/xml");
  return [...parsed.getElementsByTagName("loc")].map((loc) => loc.textContent);
}"""


def test_sitemap_entries_resolve_here_within_the_pages_system(browser: Browser, server: str):
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    slug = SLUGS[0]
    page.goto(f"{server}{slug}/terms/")
    locations = page.evaluate(READ_SITEMAP)
    assert f"{server}{slug}/terms/" in locations
    assert f"{server}calculators/attack/" in locations
    assert all(location.startswith(server) for location in locations)
    others = [f"{server}{other}/" for other in SLUGS if other != slug]
    assert not [location for location in locations if location.startswith(tuple(others))]
    page.locator("input.md-search__input").fill("attack")
    page.keyboard.press("End")
    page.wait_for_selector(".md-search-result__item", timeout=60_000)
    assert f"{server}search/scope-{slug}.json" in fetched
    assert f"{server}search/search_index.json" not in fetched
    context.close()


def test_pages_outside_any_system_keep_only_their_own_links(browser: Browser, server: str):
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(f"{server}calculators/attack/")
    locations = page.evaluate(READ_SITEMAP)
    assert f"{server}compare/" in locations
    assert not [url for url in locations if url[len(server) :].split("/")[0] in SLUGS]
    context.close()
