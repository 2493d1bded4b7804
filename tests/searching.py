"""The site's search as a reader meets it, for the search tests: the queries go through the
page's real search, the object Material talks to in place of its worker, with its messages;
and where a result lands, read from the built page."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from playwright.sync_api import Page, expect

from hooks.content.loader import GlossaryEntry

# Asks the search Material asked, as Material asks it (a QUERY message, its words with its
# trailing "*"), and keeps of each answer the first groups: [[location, tags], ...] each.
ASK = """async ([queries, shown]) => {
  const config = JSON.parse(document.getElementById("__config").textContent);
  const search = new Worker(new URL(config.search, location.href));
  search.postMessage({ type: 0, data: { config: {}, docs: [] } });
  const answers = [];
  for (const query of queries) {
    const result = await new Promise((resolve) => {
      const heard = (event) => {
        if (event.data.type !== 3) return;
        search.removeEventListener("message", heard);
        resolve(event.data.data);
      };
      search.addEventListener("message", heard);
      search.postMessage({ type: 2, data: query.split(" ").map((w) => w + "*").join(" ") });
    });
    answers.push(result.items.slice(0, shown).map((group) =>
      group.map((doc) => [doc.location, doc.tags ?? []])));
  }
  return answers;
}"""

Group = list[tuple[str, list[str]]]


def ask(page: Page, queries: list[str], shown: int) -> list[list[Group]]:
    return page.evaluate(ASK, [queries, shown])


def landing(group: Group) -> str:
    """Where a tap on a result lands: its first section (Material lists the page's title,
    then its best sections), or the page where no section is listed."""
    sections = [location for location, _ in group[1:] if "#" in location]
    return sections[0] if sections else group[0][0]


_ELEMENT = re.compile(r'<(\w+)\b[^>]*?\sid="([^"]+)"')
_HEADING = re.compile(r"h([1-6])")


@cache
def _elements(page_file: Path) -> list[tuple[str, str]]:
    """The elements with an id in a built page's article, in order: (tag, id)."""
    html = page_file.read_text("utf-8")
    article = html[html.find("<article") : html.find("</article>")]
    return [(match.group(1), match.group(2)) for match in _ELEMENT.finditer(article)]


def lands_in(site: Path, location: str, section: str) -> bool:
    """Whether `location` ("slug/page/#id", as a result gives it, or "slug/page/") lands in
    `section` ("slug/page#anchor", or "slug/page" for the page's opening, before its first
    heading under the title): at the section's heading, or at anything with an id under it
    before the next heading of its level or above (a sentence the text defines a term in,
    an entry headed in bold)."""
    place, _, target = location.split("?")[0].partition("#")
    page, _, anchor = section.partition("#")
    if place.strip("/") != page.strip("/"):
        return False
    elements = _elements(site / page.strip("/") / "index.html")
    title = elements[0][1] if elements and elements[0][0] == "h1" else None
    if not target or target == title:
        return not anchor or anchor == title
    ids = [ident for _, ident in elements]
    start = ids.index(anchor or title) if (anchor or title) in ids else 0
    top = 1 if not anchor or anchor == title else int(_HEADING.fullmatch(elements[start][0])[1])
    for tag, ident in elements[start:]:
        level = _HEADING.fullmatch(tag)
        if ident != ids[start] and level and (top == 1 or int(level[1]) <= top):
            return False
        if ident == target:
            return True
    return False


def defining_section(slug: str, entry: GlossaryEntry) -> str:
    """The section a glossary entry says defines its term, as lands_in takes it."""
    return f"{slug}/{entry.see_page}" + (f"#{entry.see_anchor}" if entry.see_anchor else "")


def article_text(html: str) -> str:
    """The words of a built page's article, as the index reads them (tags dropped)."""
    article = html[html.find("<article") : html.find("</article>")]
    return re.sub(r"<[^>]+>", " ", article)


def search_on_phone(page: Page, words: str) -> None:
    """Material's search box opened by a tap, the words typed, the first result shown."""
    page.locator("label[for='__search']").first.tap()
    page.locator(".md-search__input").press_sequentially(words)
    expect(page.locator(".md-search-result__item").first).to_be_visible(timeout=30_000)
