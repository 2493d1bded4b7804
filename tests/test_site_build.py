"""Build the real site once and check what a reader gets: links, anchors, words, no other hosts."""

from __future__ import annotations

import html
import json
import re
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
import yaml
from cited import sentence_at
from searching import lands_in

from hooks.content.loader import load_content
from hooks.pages.embed import FOLDER as EMBEDS
from hooks.pages.site import citations, write_robots
from rules_core.dice import parse

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
SLUGS = yaml.safe_load((CONTENT / "systems.yml").read_text(encoding="utf-8"))["systems"]
FETCHED_RELS = {"stylesheet", "preload", "modulepreload", "prefetch", "icon", "manifest"}
WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.resources: list[str] = []  # what the browser fetches by itself
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])
        if tag in ("script", "img", "iframe", "source", "audio", "video") and attributes.get("src"):
            self.resources.append(attributes["src"])
        if tag == "link" and attributes.get("href") and attributes.get("rel") in FETCHED_RELS:
            self.resources.append(attributes["href"])
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def own_pages(site: Path, pattern: str = "index.html") -> list[Path]:
    """The site's own pages: not the embed pages, frames for other sites' pages written
    from the calculators' (tests/test_embed_pages.py checks them)."""
    return sorted(page for page in site.rglob(pattern) if not page.is_relative_to(site / EMBEDS))


@pytest.fixture(scope="module")
def pages(site: Path) -> dict[Path, _Links]:
    parsed = {}
    for path in site.rglob("*.html"):
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8"))
        parsed[path] = parser
    return parsed


def _target(site: Path, page: Path, href: str) -> tuple[Path, str] | None:
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
        return None
    if parts.path.startswith("/"):
        base = (site / unquote(parts.path).lstrip("/")).resolve()
    else:
        base = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
    if base.is_dir() or parts.path.endswith("/"):
        base = base / "index.html"
    return base, unquote(parts.fragment)


def test_no_broken_internal_links_or_anchors(site: Path, pages: dict[Path, _Links]) -> None:
    broken = []
    checked = 0
    for page, parsed in pages.items():
        for href in parsed.links:
            target = _target(site, page, href)
            if target is None:
                continue
            path, fragment = target
            checked += 1
            if not path.exists():
                broken.append(f"{page.relative_to(site)}: {href} (no such page)")
            elif fragment and fragment not in pages[path.resolve()].ids:
                broken.append(f"{page.relative_to(site)}: {href} (no such anchor)")
    assert checked > 2000
    assert broken == []


@pytest.fixture(scope="module")
def systems():
    return load_content(CONTENT)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_system_has_its_pages_and_edit_links(site: Path, systems, slug: str) -> None:
    system = systems[slug]
    assert (site / slug / "index.html").exists()
    assert (site / slug / "source" / "index.html").exists()
    terms = (site / slug / "terms" / "index.html").read_text(encoding="utf-8")
    assert f"/edit/main/content/{slug}/glossary.yml" in terms
    for name in system.pages:
        page = (site / slug / name / "index.html").read_text(encoding="utf-8")
        assert f"/edit/main/content/{slug}/pages/{name}.md" in page


def test_the_compare_pages_have_an_edit_button_to_compare_yml(site: Path) -> None:
    concepts = yaml.safe_load((CONTENT / "compare.yml").read_text(encoding="utf-8"))["concepts"]
    for page in ["", *(f"{concept['slug']}/" for concept in concepts)]:
        html = (site / "compare" / page / "index.html").read_text(encoding="utf-8")
        button = re.search(r'<a href="([^"]*)" title="Edit this page"', html)
        assert button and button[1].endswith("/edit/main/content/compare.yml"), page
    # The terms several systems define come from their glossaries: no one file to edit.
    terms = (site / "compare" / "terms" / "index.html").read_text(encoding="utf-8")
    assert 'title="Edit this page"' not in terms


def test_the_calculator_pages_edit_button_opens_a_rules_file(site: Path, systems) -> None:
    """The pencil of the attack calculator (and every page holding a calculator that reads
    the rules data: tests/test_calculator_pages.py) opens rules.yml, where its rules live."""
    first = next(slug for slug, system in systems.items() if system.rules is not None)
    html = (site / "calculators" / "attack" / "index.html").read_text(encoding="utf-8")
    button = re.search(r'<a href="([^"]*)" title="Edit this page"', html)
    assert button and button[1].endswith(f"/edit/main/content/{first}/rules.yml"), button


@pytest.mark.parametrize("slug", SLUGS)
def test_every_rules_page_names_its_system(site: Path, systems, slug: str) -> None:
    system = systems[slug]
    for name, page in system.pages.items():
        text = (site / slug / name / "index.html").read_text(encoding="utf-8")
        title = re.search(r"<title>([^<]*)</title>", text).group(1)
        assert html.unescape(title).startswith(f"{page.title} · {system.title} - "), title
        # Under the heading, and left out of the search index (a result's label names it).
        after_heading = re.search(r"</h1>\s*<p class=\"page-system\"([^>]*)>([^<]*)<", text)
        assert after_heading and html.unescape(after_heading.group(2)) == system.title, name
        assert "data-pagefind-ignore" in after_heading.group(1), name


def test_each_page_carries_only_its_own_systems_navigation(site: Path, systems) -> None:
    for slug, system in systems.items():
        first = next(iter(system.pages))
        page = site / slug / first / "index.html"
        text = page.read_text(encoding="utf-8")
        primary = text.split("md-nav--primary", 1)[1].split("md-sidebar--secondary", 1)[0]
        linked = set()
        for href in re.findall(r'href="([^"#]+)"', primary):
            target = (page.parent / href).resolve()
            if target.is_relative_to(site):
                linked.add(target.relative_to(site).as_posix())
        own = {f"{slug}/{name}" for name in system.pages}
        assert own <= linked
        for other_slug, other in systems.items():
            if other_slug != slug:
                assert other_slug in linked  # one link to the other system
                assert not {f"{other_slug}/{name}" for name in other.pages} & linked


def test_meta_descriptions_come_from_each_pages_own_text(site: Path) -> None:
    descriptions = {}
    for page in own_pages(site):
        text = page.read_text(encoding="utf-8")
        match = re.search(r'<meta name="description" content="([^"]*)">', text)
        assert match, page
        descriptions[page] = html.unescape(match.group(1))
    assert len(set(descriptions.values())) >= 0.9 * len(descriptions)
    for slug in SLUGS:
        for page in (site / slug).glob("*/index.html"):
            text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))
            description = descriptions[page]
            assert len(description) <= 160
            assert description.removesuffix("…") in " ".join(text.split()), page


def test_nothing_points_at_a_local_address(site: Path) -> None:
    """A build without SITE_URL: no canonical link, sitemap paths only, robots.txt present."""
    for page in own_pages(site, "*.html"):
        text = page.read_text(encoding="utf-8")
        assert 'rel="canonical"' not in text, page
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    locations = re.findall(r"<loc>([^<]*)</loc>", sitemap)
    assert len(locations) == len(own_pages(site))  # every page, no 404
    assert all(location.startswith("/") for location in locations), locations[:3]
    robots = (site / "robots.txt").read_text(encoding="utf-8")
    assert "User-agent: *" in robots and "Sitemap:" not in robots
    for text in (sitemap, robots):
        assert "127.0.0.1" not in text and "localhost" not in text


def test_home_page_lists_every_system_of_systems_yml(site: Path, systems) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r'<td><a href="([a-z0-9-]+)/">([^<]*)</a></td>', home)
    assert [slug for slug, _ in rows] == list(systems)
    assert [html.unescape(title) for _, title in rows] == [s.title for s in systems.values()]
    for destination in ("calculators/", "compare/"):
        assert f'href="{destination}"' in home


def test_sections_link_to_the_calculators_that_cite_them(site: Path, systems) -> None:
    data = json.loads((ROOT / "rules_core" / "data" / "systems.json").read_text("utf-8"))
    checked = 0
    for slug in systems:
        attack = data["systems"][slug]["rules"].get("attack") or {}
        for cited in attack.get("cite", []):
            page, _, anchor = cited["section_url"].partition("#")
            text = (site / page / "index.html").read_text(encoding="utf-8")
            section = text.split(f'id="{anchor}"', 1)[1].split("<h", 1)[0] if anchor else text
            assert f'href="../../calculators/attack/?system={slug}"' in section, cited["url"]
            checked += 1
    assert checked >= 2


def test_sections_quoted_by_compare_link_to_the_concept(site: Path) -> None:
    compare = yaml.safe_load((CONTENT / "compare.yml").read_text(encoding="utf-8"))
    checked = 0
    for concept in compare["concepts"]:
        for slug, passages in concept["systems"].items():
            for passage in passages:
                page, _, anchor = passage["see"].partition("#")
                text = (site / slug / page / "index.html").read_text(encoding="utf-8")
                if anchor:
                    text = text.split(f'id="{anchor}"', 1)[1].split("<h", 1)[0]
                assert f'href="../../compare/{concept["slug"]}/"' in text, passage["see"]
                checked += 1
    assert checked >= 10


def test_terms_page_has_an_a_to_z_jump_list(site: Path, systems) -> None:
    for slug, system in systems.items():
        text = (site / slug / "terms" / "index.html").read_text(encoding="utf-8")
        jumps = re.findall(r'<a href="#letter-([a-z]+)">', text)
        initials = {entry.term[0].lower() for entry in system.glossary if entry.term[0].isalpha()}
        assert set(jumps) == initials
        for letter in jumps:
            assert f'id="letter-{letter}"' in text


@pytest.mark.parametrize("slug", SLUGS)
def test_glossary_links_carry_the_short_definition(site: Path, systems, slug: str) -> None:
    system = systems[slug]
    definitions = {entry.definition: entry for entry in system.glossary}
    linked = 0
    for name in system.pages:
        text = (site / slug / name / "index.html").read_text(encoding="utf-8")
        links = re.findall(r'<a class="term-link" data-definition="([^"]+)" href="([^"]+)">', text)
        assert '<a class="term-link" title=' not in text  # no theme tooltip per link
        for definition, href in links:
            entry = definitions.get(html.unescape(definition))
            if entry is not None:
                assert entry.see_anchor is None or href.endswith(f"#{entry.see_anchor}"), href
                linked += 1
    assert linked >= min(len(system.glossary), 5)


@pytest.mark.parametrize("slug", SLUGS)
def test_errata_are_shown_with_the_print(site: Path, systems, slug: str) -> None:
    system = systems[slug]
    for name, page in system.pages.items():
        text = (site / slug / name / "index.html").read_text(encoding="utf-8")
        notes = sum(line.lstrip().startswith("!!! erratum") for line in page.text.split("\n"))
        # Each erratum note of the page, plus the notes under tables with errata.
        assert text.count('class="admonition erratum"') >= notes, name
        for table in system.tables.values():
            if f"[[table:{table.name}]]" not in page.text:
                continue
            for erratum in table.errata:
                row = next(row for row in table.rows if row[0] == erratum.row)
                printed = row[table.columns.index(erratum.column)]
                note = f"Row {erratum.row}, column {erratum.column}: printed {printed}, computed"
                assert note in html.unescape(text), (name, note)


def test_search_indexes_each_page_labelled_with_its_system(site: Path) -> None:
    """Pagefind indexes each page's article, with its system's slug as a filter and its
    short title as the result's label; a calculator's form is left out."""
    systems = load_content(CONTENT)
    for path in own_pages(site):
        if path.is_relative_to(site / "assets"):
            continue
        text = path.read_text(encoding="utf-8")
        article = re.search(r"<article [^>]*>", text).group(0)
        assert "data-pagefind-body" in article, path
        slug = path.relative_to(site).parts[0] if len(path.relative_to(site).parts) > 1 else ""
        if slug in systems:
            assert f'data-pagefind-filter="system:{slug}"' in article, path
            label = html.escape(systems[slug].short_title)
            assert f'data-pagefind-meta="system:{label}"' in article, path
        else:
            assert "data-pagefind-filter" not in article, path
        for section in re.findall(r'<section class="calc"[^>]*>', text):
            assert 'data-pagefind-ignore="all"' in section, path
        # A chapter says it is the text itself; search ranks its sections first.
        name = path.parent.relative_to(site / slug).as_posix() if slug in systems else ""
        chapter = slug in systems and name in systems[slug].pages
        assert ('data-pagefind-meta="kind:rules"' in text) == chapter, path
    assert (site / "search" / "pagefind" / "pagefind.js").is_file()
    material = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert material["docs"] == []  # the text is searched in Pagefind's index only
    # No stemmer: "dying" is not "die" (search.js reads the forms a reader types).
    entry = json.loads((site / "search" / "pagefind" / "pagefind-entry.json").read_text("utf-8"))
    assert [language["wasm"] for language in entry["languages"].values()] == [None]


def test_each_terms_entry_and_each_definition_is_a_search_section(site: Path) -> None:
    """Each entry of a Terms list, and the sentence where a chapter defines a term, is a
    section of the index of its own (an id, and its term as its title): a search lands
    there, not on the letter heading above it or the top of a long section."""
    systems = load_content(CONTENT)
    for slug, system in systems.items():
        terms = (site / slug / "terms" / "index.html").read_text("utf-8")
        titled = dict(re.findall(r'<p id="(term-[^"]+)" data-pagefind-title="([^"]*)"', terms))
        assert sorted(map(html.unescape, titled.values())) == sorted(
            entry.term for entry in system.glossary
        ), slug
        by_term = {entry.term: entry for entry in system.glossary}
        defined = 0
        for page in system.pages:
            text = (site / slug / page / "index.html").read_text("utf-8")
            for ident, title in re.findall(
                r'<span id="(defines-[^"]+)" data-pagefind-title="([^"]*)"></span>', text
            ):
                # In the section the glossary says defines the term, once.
                entry = by_term[html.unescape(title)]
                section = f"{slug}/{entry.see_page}" + (
                    f"#{entry.see_anchor}" if entry.see_anchor else ""
                )
                assert lands_in(site, f"{slug}/{page}/#{ident}", section), (slug, ident)
                assert text.count(f'id="{ident}"') == 1, (slug, ident)
                defined += 1
        assert defined, slug


def test_nothing_is_fetched_from_another_host(site: Path, pages: dict[Path, _Links]) -> None:
    external = [
        f"{page.relative_to(site)}: {url}"
        for page, parsed in pages.items()
        for url in parsed.resources
        if urlsplit(url).scheme or url.startswith("//")
    ]
    assert external == []
    for stylesheet in site.rglob("*.css"):
        text = stylesheet.read_text(encoding="utf-8")
        assert not re.search(r"@import|url\((['\"]?)(https?:)?//", text), stylesheet


@pytest.mark.parametrize("slug", SLUGS)
def test_source_words_appear_on_the_systems_pages(
    slug: str, pages: dict[Path, _Links], site: Path, systems
) -> None:
    system = systems[slug]
    source = CONTENT / slug / system.source["file"]
    assert source.exists(), f"the source text named by content/{slug}/system.yml is missing"
    source_words = set(WORD.findall(source.read_text(encoding="utf-8").lower()))
    shown: set[str] = set()
    for page, parsed in pages.items():
        if page.is_relative_to(site / slug):
            shown |= set(WORD.findall(html.unescape(" ".join(parsed.text)).lower()))
    missing = source_words - shown
    coverage = 1 - len(missing) / len(source_words)
    assert coverage >= 0.98, f"{coverage:.4f}; missing e.g. {sorted(missing)[:20]}"


CHIP = re.compile(r'<(a|button) ([^>]*class="dice-chip"[^>]*)>([^<]+)</(?:a|button)>')
ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')


def test_every_dice_chip_shows_the_cores_figures(site: Path) -> None:
    chips = 0
    for page in site.glob("*/*/index.html"):
        for tag, attributes, text in CHIP.findall(page.read_text(encoding="utf-8")):
            chip = {name: html.unescape(value) for name, value in ATTRIBUTE.findall(attributes)}
            # The preview's dice (canonical, weapon dice resolved) give every figure shown.
            distribution = parse(chip["data-roll"]).distribution()
            if tag == "a":
                query = parse_qs(urlsplit(chip["href"]).query)
                if "expression" in query:
                    assert query["expression"] == [html.unescape(text)]
            figures = re.search(r": (-?\d+) to (-?\d+), average ([\d.]+)", chip["title"])
            assert figures, chip["title"]
            assert int(figures.group(1)) == distribution.min == int(chip["data-min"])
            assert int(figures.group(2)) == distribution.max == int(chip["data-max"])
            assert Fraction(figures.group(3)) == distribution.mean()
            assert Fraction(chip["data-mean"]) == distribution.mean()
            chips += 1
    assert chips >= 25


QUOTE = re.compile(
    r"<blockquote>\s*<p>(.*?)</p>\s*</blockquote>\s*<p>— <a href=\"([^\"]+)\">", re.S
)


def _words(text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())


def test_compare_pages_quote_only_what_their_links_show(site: Path, pages) -> None:
    quotes = 0
    for page in (site / "compare").glob("*/index.html"):
        for quote, href in QUOTE.findall(page.read_text(encoding="utf-8")):
            target = _target(site, page, html.unescape(href))
            assert target is not None and target[0].exists(), href
            shown = " ".join("".join(pages[target[0].resolve()].text).split())
            assert _words(quote) in shown, (page, href)
            quotes += 1
    assert quotes >= 60


def test_robots_names_the_sitemap_only_at_a_public_address(tmp_path: Path) -> None:
    write_robots(tmp_path, "https://rules.example.org/sub/")
    robots = (tmp_path / "robots.txt").read_text(encoding="utf-8")
    assert "Sitemap: https://rules.example.org/sub/sitemap.xml" in robots.splitlines()
    write_robots(tmp_path, None)
    assert "Sitemap" not in (tmp_path / "robots.txt").read_text(encoding="utf-8")


def test_each_page_links_the_styles_of_what_it_holds(site: Path) -> None:
    """The calculators' styles and worker boot only where a page has a calculator; the
    comparisons' styles (tabs on a phone, columns on a wide screen) on every Compare
    page, whether it has the reader's-numbers widget or not."""
    pages = {page: page.read_text(encoding="utf-8") for page in own_pages(site)}
    for page, text in pages.items():
        has_calculator = '<section class="calc"' in text
        assert ("assets/stylesheets/calculators.css" in text) == has_calculator, page
        assert ("assets/javascripts/calculator-boot.js" in text) == has_calculator, page
        assert ("assets/stylesheets/compare.css" in text) == ('class="compare"' in text), page
    without_widget = [
        page
        for page, text in pages.items()
        if 'class="compare"' in text and '<section class="calc"' not in text
    ]
    assert without_widget, "some Compare page should quote the systems without the widget"


def test_every_citation_lands_on_its_sentence(site: Path, systems) -> None:
    """Each citation of each system's rules data links to a sentence the built page marks,
    and the words between the markers are the quote, word for word."""
    data = json.loads((ROOT / "rules_core" / "data" / "systems.json").read_text("utf-8"))
    for slug in systems:
        cited = list(citations(data["systems"][slug]["rules"]))
        assert cited, slug
        for citation in cited:
            assert citation["quote"], f"{slug}: {citation['section_url']} quotes no sentence"
            assert citation["url"].startswith(f"{slug}/") and "#said-" in citation["url"]
            assert sentence_at(site, citation["url"]) == citation["quote"], citation["url"]


def test_every_compare_quote_links_to_its_sentence(site: Path, systems) -> None:
    checked = 0
    for page in sorted((site / "compare").glob("*/index.html")):
        text = page.read_text(encoding="utf-8")
        quotes = re.findall(r"<blockquote>\s*<p>(.*?)</p>\s*</blockquote>", text, re.S)
        links = re.findall(r'href="\.\./\.\./([a-z0-9-]+/[a-z0-9-]+/#said-[^"]+)"', text)
        assert len(quotes) == len(links), page
        for quote, link in zip(quotes, links, strict=True):
            said = " ".join(html.unescape(re.sub(r"<[^>]*>", "", quote)).split())
            assert sentence_at(site, link) == said, link
            checked += 1
    assert checked >= len(systems)
