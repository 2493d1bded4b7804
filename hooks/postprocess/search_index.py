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
- a system's chapters, the text itself, say so (`kind: rules`): search.js ranks a section of
  the text whose heading names the words before a page that restates it (the Terms, the GM
  screen, a Compare page), and every other page weighs less in Pagefind's own ranking, so a
  system's best result is among its first few;
- a system's Terms list and GM screen restate its text (`kind: restated`): a word they
  mention is part of one of the system's rules (a death save's "3: stable"), where a word
  only its home page mentions ("It covers skill checks") is not, and search.js says the
  system has no rule on it;
- each entry of a system's Terms list is a section of its own, titled by its term, so a
  term found there lands on its entry, not on the letter heading above it;
- so is each entry of a chapter that the text heads with its name in bold ("**Second
  Wind:** As a standard action..."), and the sentence where the text defines a term
  (hooks/pages/linker.py, DefinitionMarker): a search lands on the rule's own words, where
  the section's heading does not name it;
- a calculator's form is not prose, nor a heading's "¶" link, nor what a page marks for
  Material's search to leave out (data-search-exclude: the system's name under the
  heading, a section's links to its calculators and Compare pages): they are left out.

The index has no stemmer. Pagefind's English one makes one word of two rule terms
("dying" and "die", "natural" and "nature", "initiative" and "initial"): search.js reads
the plurals and inflections a reader types itself, a word at a time, and keeps a result
only where the page holds a form of each word typed.

Beside the index, the site's vocabulary (search/vocabulary.json): every word of the text
Pagefind indexed, read back from its own page fragments once it has written them (so the
words are the index's, not a second reading of the pages), with how often each occurs and
which are words of a heading or a term's name: of a question's words that no section holds
together, search.js lets go first the one that says least. Pagefind has no spelling
correction, and its index can only be asked for a word's beginning: a word typed that the
site does not hold is searched as the likeliest word that it does ("initative":
"initiative"), told apart from another as near by the headings and names of two words or
more that hold it with the other words asked ("half coer": "half cover").
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from html import escape, unescape
from pathlib import Path
from typing import TypedDict

ROOT = Path(__file__).resolve().parents[2]
PAGEFIND = ROOT / "node_modules" / ".bin" / "pagefind"
OUTPUT = "search/pagefind"  # under search/: the service worker stores it with the shell
ENTRY = f"{OUTPUT}/pagefind.js"  # what the page loads first
# Every system, in the order of the navigation, with its label: the search says which
# systems have nothing on the words searched, which the index alone cannot (it lists
# only the systems that match).
SYSTEMS = "search/systems.json"
MATERIAL_INDEX = Path("search") / "search_index.json"
# The words of the index, for search.js.
VOCABULARY = "search/vocabulary.json"
# A page fragment of Pagefind's (1.x): this signature, then the page's data as JSON, gzipped.
_FRAGMENT_SIGNATURE = b"pagefind_dcd"
# The words of a text as search.js splits the words typed; of them the vocabulary keeps
# those of letters only, of three or more: a misspelt "d20" or "3d6" is not corrected,
# and a word shorter than three letters never is.
_PARTS = re.compile(r"[^\W_]+")
# The index's language: "und" (undetermined) has no stemmer, so every word is indexed as
# written. A page of any language loads the only index there is.
LANGUAGE = "und"
# The weight of a page that restates or points at the text (Terms, GM screen, Compare, a
# calculator), against the chapters' 1: Pagefind weighs a word by its square.
RESTATED_WEIGHT = 0.5
# Pagefind also writes its own search interfaces; the site uses Material's.
UNUSED = re.compile(r"pagefind-(component-|modular-)?ui\.(js|css)|pagefind-highlight\.js")

_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset"')
_CALCULATOR = re.compile(r'<section class="calc"')
# What the pages leave out of search (Material's attribute, which its own index honoured):
# the system's name under each heading, a section's links to its calculators and Compare
# pages ("Calculator: Attack odds · Compare: Cover and concealment": a chapter that links
# to the Compare page on cover has no cover rule of its own), the GM screen's intro.
_SEARCH_EXCLUDE = re.compile(r"<[a-z][^>]*\sdata-search-exclude\b[^>]*>")
_TITLE = re.compile(r"<h1 ")
# A Terms entry: its paragraph's id (hooks/pages/site.py) and the term, its first link.
_TERM_ENTRY = re.compile(r'<p id="(term-[^"]+)"><strong><a [^>]*>(.*?)</a></strong>', re.S)
_HEADERLINK = re.compile(r'<a class="headerlink"')
_TAG = re.compile(r"<[^>]+>")
# A paragraph or list item the text heads with a name in bold: "**Shift:** Move 1 square".
_RUN_IN = re.compile(r"<(p|li)><strong>((?:(?!</strong>).){1,300}?)</strong>", re.S)
_RUN_IN_NAME = re.compile(r"([^.:]{1,60})[.:]")
_ID = re.compile(r'\sid="([^"]+)"')


class SearchIndexError(RuntimeError):
    pass


def mark_for_search(
    html: str,
    system: tuple[str, str] | None,
    *,
    rules_text: bool = False,
    terms_page: bool = False,
    restating: bool = False,
) -> str:
    """The page with what Pagefind should index marked; system is (slug, short title),
    rules_text says the page is one of the system's chapters, restating that it restates
    them (the Terms list, the GM screen)."""
    body = " data-pagefind-body"
    if not rules_text:
        body += f' data-pagefind-weight="{RESTATED_WEIGHT}"'
    if system is not None:
        slug, label = system
        body += (
            f' data-pagefind-filter="system:{escape(slug)}"'
            f' data-pagefind-meta="system:{escape(label)}"'
        )
    html = _ARTICLE.sub(lambda match: match.group(0) + body, html, count=1)
    html = _CALCULATOR.sub(lambda match: match.group(0) + ' data-pagefind-ignore="all"', html)
    html = _SEARCH_EXCLUDE.sub(_ignored, html)
    html = _HEADERLINK.sub(lambda match: match.group(0) + " data-pagefind-ignore", html)
    if rules_text:
        html = _TITLE.sub('<h1 data-pagefind-meta="kind:rules" ', html, count=1)
        html = _title_run_in_entries(html)
    elif restating:
        html = _TITLE.sub('<h1 data-pagefind-meta="kind:restated" ', html, count=1)
    if terms_page:
        html = _TERM_ENTRY.sub(_titled_entry, html)
    return html


def _ignored(match: re.Match[str]) -> str:
    tag = match.group(0)
    return tag if "data-pagefind-ignore" in tag else tag[:-1] + " data-pagefind-ignore>"


def _title_run_in_entries(html: str) -> str:
    """Each entry of a chapter headed by its name in bold (at most six words, ending in a
    colon or full stop) as a section of its own: its element gets an id ("entry-" and the
    name) and the name as its title."""
    taken = set(_ID.findall(html))

    def titled(match: re.Match[str]) -> str:
        element, bold = match.group(1), match.group(2)
        name = _RUN_IN_NAME.fullmatch(" ".join(unescape(_TAG.sub("", bold)).split()))
        if name is None or len(name.group(1).split()) > 6:
            return match.group(0)
        title = name.group(1).strip()
        base = "entry-" + ("-".join(re.findall(r"[^\W_]+", title.casefold())) or "rule")
        ident, number = base, 1
        while ident in taken:
            number += 1
            ident = f"{base}-{number}"
        taken.add(ident)
        attributes = f'id="{ident}" data-pagefind-title="{escape(title, quote=True)}"'
        return f"<{element} {attributes}><strong>{bold}</strong>"

    return _RUN_IN.sub(titled, html)


def _titled_entry(match: re.Match[str]) -> str:
    """A Terms entry as a section of its own (Pagefind's sub-result), titled by its term."""
    term = escape(unescape(_TAG.sub("", match.group(2))), quote=True)
    return match.group(0).replace(
        f'<p id="{match.group(1)}">', f'<p id="{match.group(1)}" data-pagefind-title="{term}">', 1
    )


def page_system(page_url: str, systems: Mapping[str, str]) -> tuple[str, str] | None:
    slug = page_url.split("/", 1)[0]
    return (slug, systems[slug]) if slug in systems else None


@cache
def _executable(pagefind: Path) -> str:
    """Pagefind's own executable, found once as its npm wrapper finds it: the wrapper starts
    Node before it, a tenth of a second of every build under the dev server. The wrapper
    itself where that fails."""
    resolver = pagefind.resolve().parent.parent / "resolveBinary.js"
    if not resolver.is_file():
        return str(pagefind)
    found = subprocess.run(
        [
            "node",
            "--input-type=module",
            "--eval",
            f"import {{ resolveBinaryPath }} from {json.dumps(resolver.as_uri())};"
            "console.log(resolveBinaryPath(['pagefind_extended', 'pagefind']));",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    executable = found.stdout.strip()
    return executable if found.returncode == 0 and Path(executable).is_file() else str(pagefind)


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
        [
            _executable(pagefind),
            *("--site", str(site_dir), "--output-subdir", OUTPUT),
            *("--force-language", LANGUAGE, "--silent"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0 or not (site_dir / ENTRY).is_file():
        raise SearchIndexError(f"Pagefind could not index the site:\n{result.stderr.strip()}")
    for path in output.iterdir():
        if UNUSED.fullmatch(path.name):
            path.unlink()
    write_vocabulary(site_dir / VOCABULARY, _fragments(output / "fragment"))
    listed = [{"slug": slug, "label": label} for slug, label in (systems or {}).items()]
    (site_dir / SYSTEMS).write_text(json.dumps(listed, separators=(",", ":")), encoding="utf-8")
    material = site_dir / MATERIAL_INDEX
    settings = json.loads(material.read_text(encoding="utf-8"))
    material.write_text(
        json.dumps({**settings, "docs": []}, separators=(",", ":")), encoding="utf-8"
    )


class _Anchor(TypedDict, total=False):
    element: str
    id: str
    text: str
    title: str  # where the element is a section of its own (data-pagefind-title)


class PageFragment(TypedDict, total=False):
    """What Pagefind keeps of a page it indexed (the parts read here)."""

    url: str
    content: str
    meta: dict[str, str]
    anchors: list[_Anchor]


def _fragments(folder: Path) -> Iterator[PageFragment]:
    """The data of each page Pagefind indexed, as it wrote it."""
    for path in sorted(folder.glob("*.pf_fragment")):
        data = gzip.decompress(path.read_bytes())
        if not data.startswith(_FRAGMENT_SIGNATURE):
            raise SearchIndexError(f"{path.name} is not a Pagefind page fragment as read here")
        fragment: PageFragment = json.loads(data[len(_FRAGMENT_SIGNATURE) :])
        yield fragment


def vocabulary(pages: Iterable[PageFragment]) -> dict[str, object]:
    """{"counts": {word: occurrences}, "headings": [the words of a heading], "terms": [the
    words of a term's or an entry's name], "titles": [the headings and names of two words
    or more, as their words]} of the pages' indexed text: words of letters only, of three
    or more, in lower case."""
    counts: Counter[str] = Counter()
    headings: set[str] = set()
    terms: set[str] = set()
    titles: set[str] = set()

    def words(text: str) -> list[str]:
        return [
            part for part in _PARTS.findall(text.casefold()) if len(part) > 2 and part.isalpha()
        ]

    for page in pages:
        counts.update(words(page.get("content", "")))
        headings.update(words(page.get("meta", {}).get("title", "")))
        for anchor in page.get("anchors", []):
            if "title" in anchor:  # a section of its own: a Terms entry, a defined term
                title = words(anchor["title"])
                terms.update(title)
            elif re.fullmatch(r"h[1-6]", anchor.get("element", "")):
                title = words(anchor.get("text", ""))
                headings.update(title)
            else:
                continue
            if len(title) > 1:
                titles.add(" ".join(title))
    return {
        "counts": dict(sorted(counts.items())),
        "headings": sorted(headings & counts.keys()),
        "terms": sorted(terms & counts.keys()),
        "titles": sorted(titles),
    }


def write_vocabulary(path: Path, pages: Iterable[PageFragment]) -> None:
    path.write_text(json.dumps(vocabulary(pages), separators=(",", ":")), encoding="utf-8")
