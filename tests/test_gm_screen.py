"""Each system's GM screen: built from its data for every system of content/systems.yml,
every entry cited to a section that exists, every table of the system on it, content kept
as text, and in Chromium, printed landscape on A4 and on Letter in three panels with
nothing past the page's edge."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import markdown
import pytest
from conftest import ARTIFACTS
from playwright.sync_api import Browser

from hooks.content.loader import load_content
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
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
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
    finally:
        context.close()
