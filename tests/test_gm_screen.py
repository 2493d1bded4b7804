"""Each system's GM screen: built from its data for every system of content/systems.yml,
every entry cited to a section that exists, every table of the system on it and titled,
a jump list to its parts at the top, content kept as text, and in Chromium, printed
landscape on A4 and on Letter in three panels with nothing past the page's edge, and no
table header broken inside a word on a phone, on screen or printed."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import markdown
import pytest
from conftest import ARTIFACTS, Returning
from playwright.sync_api import Browser

from hooks.content.loader import load_content, table_placeholders
from hooks.content.rules_data import compile_system
from hooks.pages.gm_screen import PAGE, render_gm_screen
from hooks.pages.site import front_matter, system_line

CONTENT = Path(__file__).resolve().parent.parent / "content"
SYSTEMS = load_content(CONTENT)
MM = 96 / 25.4  # CSS pixels in a millimetre
MARGIN_MM = 10  # the @page margin of gm-screen.css
# Landscape sheets, in millimetres.
PAPERS = {"A4": (297.0, 210.0), "Letter": (279.4, 215.9)}


class Anchors(HTMLParser):
    """The ids of a page, and the links and tables inside its GM screen."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.cites: list[str] = []
        self.parts: list[dict[str, int]] = []
        self._cite_depth = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(str(attributes["id"]))
        classes = (attributes.get("class") or "").split()
        if tag == "section" and "gm-part" in classes:
            self.parts.append({"entries": 0})
        if self.parts and (tag == "li" or "gm-table" in classes):
            self.parts[-1]["entries"] += 1
        if "gm-cite" in classes:
            self._cite_depth += 1
        elif tag == "a" and self._cite_depth:
            self.cites.append(str(attributes.get("href")))

    def handle_endtag(self, tag):
        if tag in ("span", "p") and self._cite_depth:
            self._cite_depth -= 1


def parsed(path: Path) -> Anchors:
    parser = Anchors()
    parser.feed(path.read_text("utf-8"))
    return parser


@pytest.mark.parametrize("slug", list(SYSTEMS))
def test_every_entry_is_cited_to_a_section_of_the_built_rules_pages(site: Path, slug: str) -> None:
    page_url = f"http://site/{slug}/{PAGE}/"
    screen = parsed(site / slug / PAGE / "index.html")
    assert screen.parts, "no part on the screen"
    # No empty heading: every part the screen shows has entries.
    assert all(part["entries"] for part in screen.parts), screen.parts
    entries = sum(part["entries"] for part in screen.parts)
    assert len(screen.cites) >= entries, "an entry without its citation"
    pages: dict[str, Anchors] = {}
    for href in screen.cites:
        target = urlsplit(urljoin(page_url, href))
        assert target.netloc == "site" and target.path.startswith(f"/{slug}/"), href
        name = target.path.strip("/").split("/")[-1]
        assert name in SYSTEMS[slug].pages, f"{href} is no rules page"
        if name not in pages:
            pages[name] = parsed(site / slug / name / "index.html")
        assert not target.fragment or target.fragment in pages[name].ids, href


@pytest.mark.parametrize("slug", list(SYSTEMS))
def test_every_table_of_the_system_is_on_its_screen(site: Path, slug: str) -> None:
    screen = parsed(site / slug / PAGE / "index.html")
    for name in SYSTEMS[slug].tables:
        assert f"table-{name}" in screen.ids, name
    landing = (site / slug / "index.html").read_text("utf-8")
    assert f'href="{PAGE}/"' in landing, "the landing page does not link the screen"


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class Outline(HTMLParser):
    """A GM screen page's parts (the ids of their headings), the targets of its jump list,
    and each table with the title it is shown under: the heading of its .gm-table
    wrapper, or its own <caption>."""

    def __init__(self) -> None:
        super().__init__()
        self.part_headings: list[str] = []
        self.jump_targets: list[str] = []
        self.tables: list[dict[str, str]] = []  # {"name": the table's, "title": shown}
        self._open: list[tuple[str, set[str]]] = []  # the open elements: tag, classes
        self._wrapper: dict[str, str] | None = None  # the .gm-table being read
        self._wrapper_depth = 0
        self._text: list[str] | None = None  # a heading's or caption's text, as read

    def _inside(self, tag: str, css_class: str) -> bool:
        return any(t == tag and css_class in c for t, c in self._open)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        if tag == "h2" and self._inside("section", "gm-part"):
            self.part_headings.append(str(attributes.get("id")))
        if tag == "a" and self._inside("div", "gm-jump"):
            self.jump_targets.append(str(attributes.get("href")))
        if tag == "div" and "gm-table" in classes:
            self._wrapper, self._wrapper_depth = {"name": "", "title": ""}, len(self._open)
        anchor = str(attributes.get("id") or "")
        if self._wrapper is not None and not self._wrapper["name"] and anchor[:6] == "table-":
            self._wrapper["name"] = anchor.removeprefix("table-")  # the first: its errata follow
        if tag == "table":
            shown = self._wrapper or {"name": "", "title": ""}
            self.tables.append({"name": shown["name"], "title": shown["title"]})
        if re.fullmatch(r"h[1-6]|caption", tag):
            self._text = []
        if tag not in VOID:
            self._open.append((tag, classes))

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if re.fullmatch(r"h[1-6]|caption", tag) and self._text is not None:
            said = " ".join("".join(self._text).replace("\u00b6", "").split())
            if tag == "caption" and self.tables:
                self.tables[-1]["title"] = said
            elif self._wrapper is not None:
                self._wrapper["title"] = said
            self._text = None
        while self._open:
            if self._open.pop()[0] == tag:
                break
        if self._wrapper is not None and len(self._open) <= self._wrapper_depth:
            self._wrapper = None


def outline(path: Path) -> Outline:
    parser = Outline()
    parser.feed(path.read_text("utf-8"))
    return parser


@pytest.mark.parametrize("slug", list(SYSTEMS))
def test_a_jump_list_at_the_top_leads_to_every_part(site: Path, slug: str) -> None:
    """On a phone the screen is one long column: its top links each part's heading."""
    screen = outline(site / slug / PAGE / "index.html")
    assert screen.part_headings, "no part on the screen"
    assert screen.jump_targets == [f"#{anchor}" for anchor in screen.part_headings]


@pytest.mark.parametrize("slug", [slug for slug, system in SYSTEMS.items() if system.tables])
def test_every_table_on_the_screen_has_a_title_from_its_data(site: Path, slug: str) -> None:
    """Its own title, or for a table printed without one the heading of the section its
    rules page shows it under."""
    system = SYSTEMS[slug]
    screen = outline(site / slug / PAGE / "index.html")
    assert len(screen.tables) == len(system.tables)
    for shown in screen.tables:
        table = system.tables[shown["name"]]
        assert shown["title"], f"table {shown['name']} has no title"
        if table.title:
            assert shown["title"] == " ".join(table.title.split())
        else:
            page = next(
                page
                for page in system.pages.values()
                if shown["name"] in dict(table_placeholders(page))
            )
            headings = {" ".join(heading.text.split()) for heading in page.headings}
            assert shown["title"] in headings, shown


HOSTILE = "<script>window.pwned=1</script> *em* [x](javascript:alert(1)) {: .evil } | a"


def test_nothing_from_content_becomes_markup() -> None:
    """A glossary entry and a situation label holding markup come out as the same text."""
    system = next(iter(SYSTEMS.values()))
    entry = next(entry for entry in system.glossary if entry.kind in ("condition", "action"))
    poisoned = replace(
        system, glossary=[replace(entry, term=HOSTILE, definition=HOSTILE), *system.glossary]
    )
    compiled = compile_system(system)
    situations = compiled["rules"].get("attack", {}).get("situations") or {}
    for situation in situations.values():
        situation["label"] = HOSTILE
    screen = render_gm_screen(poisoned, compiled, front_matter(system), system_line(system))
    html = markdown.markdown(
        screen.split("\n---\n", 1)[1],
        extensions=["attr_list", "md_in_html", "tables", "admonition"],
    )
    assert "<script" not in html and 'href="javascript:' not in html
    assert "<em>em</em>" not in html and "evil" not in re.findall(r'class="([^"]*)"', html)
    shown = "&lt;script&gt;window.pwned=1&lt;/script&gt; *em* [x](javascript:alert(1))"
    assert html.count(shown) >= 2 + bool(situations)


# ------------------------------------------------------------------------- in Chromium

# In print media, with the viewport the printable area: the page's edge, every element's
# right edge, each entry's own scroll width (a wider entry is clipped on paper), and the
# number of sheets the panels make. The sheets are counted by letting the panels run on
# sideways at the height of one sheet's printable area (what the printer paginates).
MEASURE = """(height) => {
  const screen = document.querySelector('.gm-screen');
  const page = document.documentElement.clientWidth;
  const overflowing = [];
  for (const element of document.querySelectorAll('.md-content *')) {
    const box = element.getBoundingClientRect();
    const name = `${element.tagName}.${element.className}`;
    if (box.width && box.right > page + 1) overflowing.push(name);
  }
  const clipped = [...screen.querySelectorAll('li, .gm-table')]
    .filter((entry) => entry.scrollWidth > entry.clientWidth + 1)
    .map((entry) => entry.textContent.slice(0, 60));
  const before = screen.getBoundingClientRect().top + window.scrollY;
  const style = getComputedStyle(screen);
  const gap = parseFloat(style.columnGap);
  const width = (screen.clientWidth - 2 * gap) / 3;
  screen.style.height = `${height - before}px`;
  const columns = Math.round((screen.scrollWidth + gap) / (width + gap));
  screen.style.height = '';
  return {overflowing, clipped, columns, scrollWidth: document.documentElement.scrollWidth, page};
}"""


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?!s)", pdf))


@pytest.mark.parametrize("paper", list(PAPERS))
@pytest.mark.parametrize("slug", list(SYSTEMS))
def test_printed_screen_fits_three_panels_a_sheet(
    browser: Browser, server: str, slug: str, paper: str
) -> None:
    sheet_width, sheet_height = PAPERS[paper]
    width = round((sheet_width - 2 * MARGIN_MM) * MM)
    height = round((sheet_height - 2 * MARGIN_MM) * MM)
    reader = Returning(browser, server)
    page = reader.page
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server}{slug}/{PAGE}/")
    page.emulate_media(media="print")
    measured = page.evaluate(MEASURE, height)
    assert measured["overflowing"] == [], measured["overflowing"][:5]
    assert measured["clipped"] == [], measured["clipped"][:5]
    assert measured["scrollWidth"] <= measured["page"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"gm-screen-{slug}-{paper}.png"), full_page=True)
    margin = f"{MARGIN_MM}mm"
    pdf = page.pdf(
        format=paper,
        landscape=True,
        margin={"top": margin, "right": margin, "bottom": margin, "left": margin},
    )
    (ARTIFACTS / f"gm-screen-{slug}-{paper}.pdf").write_bytes(pdf)
    sheets = pdf_pages(pdf)
    print(f"{slug} {paper}: {sheets} sheets, {measured['columns']} panels")
    assert 1 <= sheets <= 6
    # Three panels a sheet. The sideways run is one long fragment where the printer
    # starts each sheet afresh (an entry kept whole may move to the next panel at a
    # different place), so it may count one sheet more than the printer makes.
    expected = math.ceil(measured["columns"] / 3)
    assert expected - 1 <= sheets <= expected, measured
    reader.close()


# Each word of each table header cell of the screen, and the lines it takes: one per word
# unless the word is broken ("Le / vel"). A Range over the word gives one box per line.
# A hyphen is where a line may break ("1- / mile", "[Hex- / Crawls]"): the parts a hyphen
# joins count as words.
BROKEN_HEADER_WORDS = """() => {
  const broken = [];
  let words = 0;
  for (const header of document.querySelectorAll('.gm-screen table th')) {
    const walker = document.createTreeWalker(header, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/[^\\s\\-\u2010\u2013\u2014]+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].map((box) => Math.round(box.top)));
        words += 1;
        if (lines.size > 1) broken.push(`${header.textContent.trim()}: ${word[0]}`);
      }
    }
  }
  return {words, broken};
}"""


@pytest.mark.parametrize("slug", [slug for slug, system in SYSTEMS.items() if system.tables])
def test_no_table_header_breaks_inside_a_word_on_a_phone(
    browser: Browser, server: str, slug: str
) -> None:
    """At 375 px, on screen and printed: a header wraps between its words ("XP to Reach /
    Next Level"), never inside one ("Le / vel")."""
    reader = Returning(browser, server, "phone")
    page = reader.page
    page.goto(f"{server}{slug}/{PAGE}/")
    for media in ("screen", "print"):
        page.emulate_media(media=media)
        measured = page.evaluate(BROKEN_HEADER_WORDS)
        assert measured["words"], "no header word measured"
        assert measured["broken"] == [], (media, measured["broken"][:5])
    reader.close()


def _links(html: str) -> list[str]:
    return re.findall(r'<a [^>]*href="([^"]+)"', html)


def test_every_screen_is_one_tap_from_the_home_page_and_the_menus_top_level(site: Path) -> None:
    """The home page links each system's screen; the menu's top level (the navigation's
    first level, on every page) has "GM screens", whose page links each system's screen."""
    home = (site / "index.html").read_text("utf-8")
    article = home[home.find("<article") : home.find("</article>")]
    for slug in SYSTEMS:
        assert f"{slug}/{PAGE}/" in _links(article), slug
    top_level = re.search(
        r'<li class="md-nav__item[^"]*">\s*<a href="([^"]*gm-screens/)"[^>]*>\s*'
        r'<span class="md-ellipsis">\s*GM screens',
        (site / SYSTEMS[next(iter(SYSTEMS))].slug / "index.html").read_text("utf-8"),
    )
    assert top_level, "no GM screens item at the menu's top level"
    listing = (site / "gm-screens" / "index.html").read_text("utf-8")
    listed = listing[listing.find("<article") : listing.find("</article>")]
    assert [link for link in _links(listed) if link.endswith(f"/{PAGE}/")] == [
        f"../{slug}/{PAGE}/" for slug in SYSTEMS
    ]
