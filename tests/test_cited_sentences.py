"""A citation in an answer, or a Compare quote, lands on its sentence, highlighted: in
Chromium at 375 px, by the theme's instant navigation and by a full page load."""

from __future__ import annotations

import json

import pytest
from conftest import ARTIFACTS, ROOT, wait_live
from playwright.sync_api import Browser, BrowserContext, Page, expect

from hooks.content.loader import load_content

HIGHLIGHTED = """() => {
  const marked = CSS.highlights.get("cited-sentence");
  return marked ? [...marked].map((range) => range.toString().replace(/\\s+/g, " ").trim()) : [];
}"""


def _attack_systems() -> list[str]:
    """The systems whose rules data has attacks, in the order of content/systems.yml."""
    data = json.loads((ROOT / "rules_core" / "data" / "systems.json").read_text("utf-8"))
    return [
        slug
        for slug in load_content(ROOT / "content")
        if "attack" in data["systems"][slug]["rules"]
    ]


@pytest.fixture
def phone(browser: Browser) -> BrowserContext:
    context = browser.new_context(
        viewport={"width": 375, "height": 812}, has_touch=True, is_mobile=True
    )
    yield context
    context.close()


def _in_view_under_header(page: Page, identifier: str) -> bool:
    return page.evaluate(
        """(id) => {
          const top = document.getElementById(id).getBoundingClientRect().top;
          const header = document.querySelector(".md-header").getBoundingClientRect().bottom;
          return top >= header && top < window.innerHeight / 2;
        }""",
        identifier,
    )


@pytest.mark.parametrize("slug", _attack_systems())
def test_a_citation_in_an_answer_lands_on_its_sentence(
    phone: BrowserContext, server: str, slug: str
) -> None:
    page = phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server}calculators/attack/?system={slug}&bonus=5&defense=15")
    wait_live(page, "attack")
    item = page.locator(".calc-result .calc-sources li", has=page.locator(".calc-quote")).last
    quote = item.locator(".calc-quote").inner_text().strip('“”"')
    link = item.get_by_role("link")
    href = link.get_attribute("href")
    assert "#said-" in href
    link.tap()
    page.wait_for_url(f"**{href.removeprefix('../..')}")
    # Instant navigation: the page changed in place, and the sentence is the one marked.
    expect(page.locator("h1")).not_to_have_text("Attack odds")
    page.wait_for_function("() => CSS.highlights.has('cited-sentence')")
    assert page.evaluate(HIGHLIGHTED) == [" ".join(quote.split())]
    identifier = href.split("#", 1)[1]
    page.wait_for_function(
        """(id) => { const top = document.getElementById(id).getBoundingClientRect().top;
                     return top > 0 && top < window.innerHeight / 2; }""",
        arg=identifier,
    )
    assert _in_view_under_header(page, identifier)
    page.screenshot(path=str(ARTIFACTS / f"cited-sentence-{slug}.png"))
    # Back on the calculator, nothing stays marked.
    page.go_back()
    wait_live(page, "attack")
    assert page.evaluate(HIGHLIGHTED) == []
    assert errors == []


def test_a_sentence_link_opened_directly_is_marked(phone: BrowserContext, server: str) -> None:
    data = json.loads((ROOT / "rules_core" / "data" / "systems.json").read_text("utf-8"))
    slug = _attack_systems()[0]
    cited = data["systems"][slug]["rules"]["attack"]["cite"][0]
    page = phone.new_page()
    page.goto(server + cited["url"])
    page.wait_for_function("() => CSS.highlights.has('cited-sentence')")
    assert page.evaluate(HIGHLIGHTED) == [cited["quote"]]
    assert _in_view_under_header(page, cited["url"].split("#", 1)[1])


def test_a_compare_quote_links_to_its_sentence(phone: BrowserContext, server: str) -> None:
    page = phone.new_page()
    page.goto(server + "compare/critical-hits/")
    quote = page.locator(".compare blockquote").first
    said = " ".join(quote.inner_text().split())
    link = page.locator(".compare a[href*='#said-']").first
    link.tap()
    page.wait_for_url("**#said-*")
    page.wait_for_function("() => CSS.highlights.has('cited-sentence')")
    assert page.evaluate(HIGHLIGHTED) == [said]
