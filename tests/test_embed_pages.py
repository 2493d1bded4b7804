"""The embed pages (hooks/pages/embed.py, hooks/package/embeds.py) as built, and the link
previews of the calculators' pages.

An embed page per calculator of the registry, the calculator alone: its form and build-time
answer as its page has them, no header, menu, search or footer, no Copy link or party, every
link opening outside the frame; the site's policy with no inline script at all; no page of
the site's own (not in its sitemap, not searched), and stored by its service worker for a
frame seen once. The browser half is tests/test_browser_embed.py.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest
from test_security import EXPECTED, _Page, directives

from hooks.package.offline import offline_manifest
from hooks.pages.calculators import form_defaults, render_calculator
from hooks.pages.embed import FOLDER, STARTS_PYTHON, embed_path, render_embed
from rules_core.calculators import CALCULATORS
from rules_core.calculators.address import PAGES

ROOT = Path(__file__).resolve().parent.parent
SITE_NAME = re.search(r"^site_name: (.+)$", (ROOT / "mkdocs.yml").read_text("utf-8"), re.M).group(1)
PALETTE = {"dir": "ltr", "data-md-color-primary": "deep-purple", "data-md-color-scheme": "default"}


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_an_embed_page_holds_the_calculator_alone(name: str) -> None:
    html = render_embed(
        name, bundle="0123abcd", site_name="A & B", stylesheets=["a.css"], palette=PALETTE
    )
    calculator = CALCULATORS[name]
    # The same form and build-time answer as the site's widget, but its tools and party note.
    site = render_calculator(name, "../../")
    form = re.search(r'<form class="calc-form".*?</form>', site, re.S)
    result = re.search(r'<div class="calc-result.*?</section>', site, re.S)
    assert form and form.group(0) in html
    assert result and result.group(0) in html
    for absent in (
        "calc-tools",
        "calc-copy",
        "calc-embed",
        "calc-party",
        "md-header",
        "md-footer",
        "md-search",
    ):
        assert absent not in html, absent
    assert f'<h2 id="{name}-title">' in html
    assert f'data-calculator="{name}"' in html and 'data-bundle="0123abcd"' in html
    # Links open outside the frame; the full page is named, canonical, and linked.
    assert '<base target="_blank">' in html
    full = f"../../calculators/{PAGES[name]}/"
    assert f'<link rel="canonical" href="{full}">' in html
    assert f'<a class="embed-full" href="{full}">' in html
    assert f"{calculator.title} in full on A &amp; B" in html
    assert '<meta name="robots" content="noindex">' in html
    # The theme's attributes on the root (the scheme is embed-boot.js's), its stylesheets.
    assert '<html lang="en" class="embed" data-md-color-scheme="default" dir="ltr"' in html
    assert 'data-md-color-primary="deep-purple"' in html
    assert html.index('href="a.css"') < html.index('href="../../assets/stylesheets/embed.css"')
    # What embed-boot.js reads before the first paint: the widget's values as built.
    boot = re.search(
        r'<script src="../../assets/javascripts/embed-boot.js" data-defaults="([^"]*)">', html
    )
    assert boot and json.loads(unescape(boot.group(1))) == form_defaults(html)
    assert "<script>" not in html


def test_an_embed_page_is_served_by_calculator_name() -> None:
    assert [embed_path(name) for name in CALCULATORS] == [
        f"{FOLDER}/{name}/" for name in CALCULATORS
    ]
    with pytest.raises(KeyError):
        embed_path("nothing")


@pytest.fixture(scope="module")
def embeds(site: Path) -> dict[str, str]:
    pages = {
        path.parent.name: path.read_text("utf-8") for path in (site / FOLDER).glob("*/index.html")
    }
    assert set(pages) == set(CALCULATORS)
    return pages


def test_every_embed_page_has_the_sites_policy_and_no_inline_script(embeds: dict[str, str]) -> None:
    for name, html in embeds.items():
        parsed = _Page()
        parsed.feed(html)
        tag, attributes = parsed.first_in_head
        assert tag == "meta" and attributes.get("http-equiv") == "Content-Security-Policy", name
        policy = directives(parsed.policies[0])
        assert policy.pop("script-src") == ["'self'", "'wasm-unsafe-eval'"], name
        assert policy == EXPECTED, name
        assert all("src" in attributes for attributes, _ in parsed.scripts), name
        assert parsed.handlers == [] and parsed.javascript_urls == [] and parsed.styles == [], name


def test_the_embed_pages_take_their_calculator_pages_stylesheets_and_python(
    site: Path, embeds: dict[str, str]
) -> None:
    for name, html in embeds.items():
        page = (site / "calculators" / PAGES[name] / "index.html").read_text("utf-8")
        head = page[: page.index("</head>")]
        sheets = re.findall(r'<link rel="stylesheet" href="([^"]+)"', head)
        assert sheets and re.findall(r'<link rel="stylesheet" href="([^"]+)"', html) == [
            *sheets,
            "../../assets/stylesheets/embed.css",
        ]
        for sheet in sheets:
            assert (site / FOLDER / name / sheet).resolve().is_file(), sheet
        # The build's Python bundle, as its page names it: one build's rules core.
        bundle = re.search(r'data-bundle="([0-9a-f]+)"', page)
        assert bundle and f'data-bundle="{bundle.group(1)}"' in html, name


def test_the_embed_pages_are_no_pages_of_the_sites_own(site: Path, embeds: dict[str, str]) -> None:
    """Not in the sitemap, not searched; stored by the service worker as a group of their own,
    which a frame's visit keeps alone (tests/test_browser_embed.py)."""
    assert f"/{FOLDER}/" not in (site / "sitemap.xml").read_text("utf-8")
    for html in embeds.values():
        assert "data-pagefind-body" not in html
        # A frame in another site's page is no app to install: no manifest, no touch icon.
        assert 'rel="manifest"' not in html and 'rel="apple-touch-icon"' not in html
    manifest = offline_manifest(site)
    assert sorted(manifest["groups"][FOLDER]["files"]) == sorted(
        f"{FOLDER}/{name}/index.html" for name in CALCULATORS
    )
    assert "assets/javascripts/embed-page.mjs" in manifest["shell"]["files"]
    assert "assets/stylesheets/embed.css" in manifest["shell"]["files"]


def test_every_calculator_page_unfurls_with_its_title_and_what_it_answers(site: Path) -> None:
    for stem in set(PAGES.values()):
        html = (site / "calculators" / stem / "index.html").read_text("utf-8")
        head = html[: html.index("</head>")]
        title = re.search(r'<meta property="og:title" content="([^"]+)">', head)
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S)
        assert title and heading, stem
        words = re.sub(r'<a class="headerlink".*?</a>|<[^>]+>', "", heading.group(1))
        assert unescape(title.group(1)) == unescape(words).strip(), stem
        description = re.search(r'<meta name="description" content="([^"]+)">', head)
        assert description, stem
        for key in ('property="og:description"', 'name="twitter:description"'):
            assert f'<meta {key} content="{description.group(1)}">' in head, (stem, key)
        assert '<meta name="twitter:card" content="summary">' in head
        assert f'<meta property="og:site_name" content="{SITE_NAME}">' in head
    # A page without a calculator has none.
    assert "og:title" not in (site / "index.html").read_text("utf-8")


# A static import of a page module, as its first lines write them.
_IMPORT = re.compile(r'^import\s[^;]*?\sfrom\s"\./([\w-]+\.mjs)";', re.M | re.S)


def test_what_starts_python_is_fetched_with_the_page() -> None:
    """The embed page preloads embed-page.mjs and every module it imports, however deep: the
    module that starts Python waits for no round trip once the page has loaded."""
    scripts = ROOT / "docs" / "assets" / "javascripts"
    assert STARTS_PYTHON[0] == "embed-page.mjs"
    for module in STARTS_PYTHON:
        imported = set(_IMPORT.findall((scripts / module).read_text("utf-8")))
        assert imported <= set(STARTS_PYTHON), (module, imported - set(STARTS_PYTHON))
    html = render_embed(
        next(iter(CALCULATORS)), bundle="0", site_name="S", stylesheets=[], palette={}
    )
    for module in STARTS_PYTHON:
        assert f'<link rel="modulepreload" href="../../assets/javascripts/{module}">' in html
