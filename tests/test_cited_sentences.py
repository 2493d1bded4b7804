"""A citation in an answer, or a Compare quote, lands on its sentence, highlighted: in
Chromium at 375 px, by the theme's instant navigation and by a full page load."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import yaml
from conftest import ARTIFACTS, ROOT, Returning, wait_live
from playwright.sync_api import Browser, Page, expect

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
def phone(browser: Browser, server: str) -> Iterator[Page]:
    """A phone's page that must end with no console error and no request to another host."""
    device = Returning(browser, server, "phone")
    yield device.page
    device.close()


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
def test_a_citation_in_an_answer_lands_on_its_sentence(phone: Page, server: str, slug: str) -> None:
    phone.goto(f"{server}calculators/attack/?system={slug}&bonus=5&defense=15")
    wait_live(phone, "attack")
    item = phone.locator(".calc-result .calc-sources li", has=phone.locator(".calc-quote")).last
    quote = item.locator(".calc-quote").inner_text().strip('“”"')
    link = item.get_by_role("link")
    href = link.get_attribute("href")
    assert "#said-" in href
    link.tap()
    phone.wait_for_url(f"**{href.removeprefix('../..')}")
    # Instant navigation: the page changed in place, and the sentence is the one marked.
    expect(phone.locator("h1")).not_to_have_text("Attack odds")
    phone.wait_for_function("() => CSS.highlights.has('cited-sentence')")
    assert phone.evaluate(HIGHLIGHTED) == [" ".join(quote.split())]
    identifier = href.split("#", 1)[1]
    phone.wait_for_function(
        """(id) => { const top = document.getElementById(id).getBoundingClientRect().top;
                     return top > 0 && top < window.innerHeight / 2; }""",
        arg=identifier,
    )
    assert _in_view_under_header(phone, identifier)
    phone.screenshot(path=str(ARTIFACTS / f"cited-sentence-{slug}.png"))
    # Back on the calculator, nothing stays marked.
    phone.go_back()
    wait_live(phone, "attack")
    assert phone.evaluate(HIGHLIGHTED) == []


def test_a_sentence_link_opened_directly_is_marked(phone: Page, server: str) -> None:
    data = json.loads((ROOT / "rules_core" / "data" / "systems.json").read_text("utf-8"))
    slug = _attack_systems()[0]
    cited = data["systems"][slug]["rules"]["attack"]["cite"][0]
    phone.goto(server + cited["url"])
    phone.wait_for_function("() => CSS.highlights.has('cited-sentence')")
    assert phone.evaluate(HIGHLIGHTED) == [cited["quote"]]
    # Painted in the theme's mark colour, down to the words inside the sentence's links.
    painted = phone.evaluate(
        """(id) => {
          const words = document.getElementById(id).parentElement.querySelectorAll("*");
          const mark = getComputedStyle(document.body).getPropertyValue("--md-typeset-mark-color");
          const probe = document.createElement("span");
          probe.style.backgroundColor = mark;
          document.body.append(probe);
          const expected = getComputedStyle(probe).backgroundColor;
          probe.remove();
          return [...words].map((element) =>
            getComputedStyle(element, "::highlight(cited-sentence)").backgroundColor === expected);
        }""",
        cited["url"].split("#", 1)[1],
    )
    assert painted and all(painted)
    assert _in_view_under_header(phone, cited["url"].split("#", 1)[1])


def test_a_compare_quote_links_to_its_sentence(phone: Page, server: str) -> None:
    concepts = yaml.safe_load((ROOT / "content" / "compare.yml").read_text("utf-8"))["concepts"]
    phone.goto(f"{server}compare/{concepts[0]['slug']}/")
    quote = phone.locator(".compare blockquote").first
    said = " ".join(quote.inner_text().split())
    link = phone.locator(".compare a[href*='#said-']").first
    link.tap()
    phone.wait_for_url("**#said-*")
    phone.wait_for_function("() => CSS.highlights.has('cited-sentence')")
    assert phone.evaluate(HIGHLIGHTED) == [said]
