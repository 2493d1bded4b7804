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

from hooks.content import load_content
from rules_core.dice import parse

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT.parent / "shared" / "seeds"
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


def test_every_system_has_its_pages_and_edit_links(site: Path) -> None:
    for slug in ("orcus", "3d6-combat", "into-the-unknown", "4e-core"):
        assert (site / slug / "index.html").exists()
        assert (site / slug / "terms" / "index.html").exists()
        assert (site / slug / "source" / "index.html").exists()
    combat = (site / "orcus" / "combat" / "index.html").read_text(encoding="utf-8")
    assert "/edit/main/content/orcus/pages/combat.md" in combat
    terms = (site / "orcus" / "terms" / "index.html").read_text(encoding="utf-8")
    assert "/edit/main/content/orcus/glossary.yml" in terms


def test_glossary_links_carry_the_short_definition(site: Path) -> None:
    combat = (site / "orcus" / "combat" / "index.html").read_text(encoding="utf-8")
    link = re.search(
        r'<a class="term-link" href="([^"]+)" title="([^"]+)">combat advantage</a>', combat, re.I
    )
    assert link is not None
    assert "#combat-advantage" in link.group(1)


def test_errata_are_shown_with_the_print(site: Path) -> None:
    combat_rules = (site / "3d6-combat" / "combat-rules" / "index.html").read_text("utf-8")
    assert ">190</a> <sup>" in combat_rules  # the printed value, linked, with its mark
    assert "printed 190, computed 198" in combat_rules
    abilities = (site / "orcus" / "abilities" / "index.html").read_text(encoding="utf-8")
    assert abilities.count('class="admonition erratum"') >= 2  # the two "Reflex" misprints


def test_search_index_labels_each_page_with_its_system(site: Path) -> None:
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    tags = {}
    for doc in index["docs"]:
        if "tags" in doc:
            tags[doc["location"].split("/")[0]] = doc["tags"]
    assert tags["orcus"] == ["Orcus"]
    assert tags["3d6-combat"] == ["3d6 Combat"]
    assert tags["into-the-unknown"] == ["Into the Unknown"]
    assert tags["4e-core"] == ["4e Core"]


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


@pytest.mark.parametrize("slug", ["orcus", "3d6-combat", "into-the-unknown", "4e-core"])
def test_source_words_appear_on_the_systems_pages(
    slug: str, pages: dict[Path, _Links], site: Path
) -> None:
    system = load_content(ROOT / "content")[slug]
    source = SOURCES / system.source["file"]
    assert source.exists(), f"the source texts are expected in {SOURCES}"
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
