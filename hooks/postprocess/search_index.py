"""One search across every system, from every page, offline: a chunked Pagefind index.

Material's own search builds one lunr index in the browser from the whole site's text
before its first answer, which grows with the content (1.8-2.9 s to a first result at ten
times today's text). Pagefind splits its index into chunks by word and its excerpts by page,
so a query fetches only the chunks of its words: what a page downloads before and during a
search stays bounded as systems are added. Material's search box, results and highlighting
stay; assets/javascripts/search.js answers Material's search messages from this index.

Each page marks what is searchable before the index is built:
- the article is the body (not the navigation, header or footer);
- a system's pages carry the system's slug as a filter and its short title as the result's
  label, so a result says which system it is from and the reader's system ranks first;
- a term's name in a system's Terms list weighs more, so the definition comes first;
- a calculator's form is not prose, nor a heading's "¶" link: they are left out.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Mapping
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGEFIND = ROOT / "node_modules" / ".bin" / "pagefind"
OUTPUT = "search/pagefind"  # under search/: the service worker stores it with the shell
ENTRY = f"{OUTPUT}/pagefind.js"  # what the page loads first
# Every system, in the order of the navigation, with its label: the search says which
# systems have nothing on the words searched, which the index alone cannot (it lists
# only the systems that match).
SYSTEMS = "search/systems.json"
MATERIAL_INDEX = Path("search") / "search_index.json"
# Pagefind also writes its own search interfaces; the site uses Material's.
UNUSED = re.compile(r"pagefind-(component-|modular-)?ui\.(js|css)|pagefind-highlight\.js")

_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset"')
_CALCULATOR = re.compile(r'<section class="calc"')
_PAGE_SYSTEM = re.compile(r'<p class="page-system"')
_TERM = re.compile(r"<p><strong><a ")
_HEADERLINK = re.compile(r'<a class="headerlink"')


class SearchIndexError(RuntimeError):
    pass


def mark_for_search(html: str, system: tuple[str, str] | None, terms_page: bool = False) -> str:
    """The page with what Pagefind should index marked; system is (slug, short title)."""
    body = " data-pagefind-body"
    if system is not None:
        slug, label = system
        body += (
            f' data-pagefind-filter="system:{escape(slug)}"'
            f' data-pagefind-meta="system:{escape(label)}"'
        )
    html = _ARTICLE.sub(lambda match: match.group(0) + body, html, count=1)
    html = _CALCULATOR.sub(lambda match: match.group(0) + ' data-pagefind-ignore="all"', html)
    html = _PAGE_SYSTEM.sub(lambda match: match.group(0) + " data-pagefind-ignore", html)
    html = _HEADERLINK.sub(lambda match: match.group(0) + " data-pagefind-ignore", html)
    if terms_page:
        html = _TERM.sub('<p><strong data-pagefind-weight="10"><a ', html)
    return html


def page_system(page_url: str, systems: Mapping[str, str]) -> tuple[str, str] | None:
    slug = page_url.split("/", 1)[0]
    return (slug, systems[slug]) if slug in systems else None


def write_index(
    site_dir: Path, systems: Mapping[str, str] | None = None, pagefind: Path = PAGEFIND
) -> None:
    """Index the marked pages into search/pagefind/, list the systems (slug: short title)
    beside it, and empty Material's own index (its search box still reads the file's
    settings; the text is Pagefind's)."""
    if not pagefind.exists():
        raise SearchIndexError(f"{pagefind} is missing: run `make setup` to install Pagefind")
    output = site_dir / OUTPUT
    shutil.rmtree(output, ignore_errors=True)
    result = subprocess.run(
        [str(pagefind), "--site", str(site_dir), "--output-subdir", OUTPUT, "--silent"],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0 or not (site_dir / ENTRY).is_file():
        raise SearchIndexError(f"Pagefind could not index the site:\n{result.stderr.strip()}")
    for path in output.iterdir():
        if UNUSED.fullmatch(path.name):
            path.unlink()
    listed = [{"slug": slug, "label": label} for slug, label in (systems or {}).items()]
    (site_dir / SYSTEMS).write_text(json.dumps(listed, separators=(",", ":")), encoding="utf-8")
    material = site_dir / MATERIAL_INDEX
    settings = json.loads(material.read_text(encoding="utf-8"))
    material.write_text(
        json.dumps({**settings, "docs": []}, separators=(",", ":")), encoding="utf-8"
    )
