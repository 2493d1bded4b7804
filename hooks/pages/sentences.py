"""Mark each quoted sentence on its rendered page, so a citation can link to the sentence.

A quote (checked against the Markdown when the content loads, hooks/content/quotes.py)
is found again in the page's HTML, within its section, and gets two empty markers: one
before its first character, with the id `sentence_id` gives, and one after its last
(the same id + "-end"). A link to the id scrolls to the sentence; sentences.mjs marks the
text between the two markers when a reader arrives. Empty markers leave the text, its
links and the search index as they were, and two quotes may overlap.

A quote the rendered page no longer holds fails the build: the citation would point at
a sentence that is not there.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import unescape
from html.parser import HTMLParser
from typing import Any

from hooks.content.quotes import SENTENCE_PREFIX, normalise, sentence_id
from hooks.pages.compare import Concept
from hooks.pages.site import citations

# Elements that separate text as a space would (the Markdown's paragraphs and items).
_BLOCKS = frozenset(
    {"address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt",
     "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
     "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td",
     "tfoot", "th", "thead", "tr", "ul"}
)  # fmt: skip
_HEADINGS = re.compile(r"h([1-6])")
_SPACE = re.compile(r"\s")


class SentenceNotFound(Exception):
    """A quoted sentence the rendered page does not hold."""


@dataclass(frozen=True)
class Quote:
    anchor: str | None  # the heading id of the cited section (None: the whole page)
    text: str


@dataclass
class _Section:
    anchor: str
    level: int
    start: int  # index into the text stream
    end: int | None = None


class _TextStream(HTMLParser):
    """The page's text outside headings, whitespace collapsed, each character with where
    it starts and ends in the HTML source."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=False)
        self.line_starts = [0]
        for line in html.split("\n")[:-1]:
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)
        self.chars: list[str] = []
        self.spans: list[tuple[int, int]] = []
        self.sections: list[_Section] = []
        self.in_heading = 0
        self.feed(html)
        self.close()

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def _add(self, text: str, start: int, end: int, *, per_character: bool) -> None:
        if self.in_heading:
            return
        for index, char in enumerate(text):
            span = (start + index, start + index + 1) if per_character else (start, end)
            if _SPACE.match(char):
                if self.chars and self.chars[-1] == " ":
                    continue
                char = " "
            self.chars.append(char)
            self.spans.append(span)

    def _separate(self) -> None:
        if self.chars and self.chars[-1] != " ":
            offset = self._offset()
            self.chars.append(" ")
            self.spans.append((offset, offset))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        heading = _HEADINGS.fullmatch(tag)
        if heading:
            level = int(heading.group(1))
            for section in self.sections:
                if section.end is None and section.level >= level:
                    section.end = len(self.chars)
            anchor = dict(attrs).get("id")
            if anchor:
                self.sections.append(_Section(anchor, level, len(self.chars)))
            self.in_heading += 1
        if tag in _BLOCKS:
            self._separate()

    def handle_endtag(self, tag: str) -> None:
        if _HEADINGS.fullmatch(tag):
            self.in_heading = max(0, self.in_heading - 1)
        if tag in _BLOCKS:
            self._separate()

    def handle_data(self, data: str) -> None:
        start = self._offset()
        self._add(data, start, start + len(data), per_character=True)

    def _reference(self, raw: str) -> None:
        start = self._offset()
        self._add(unescape(raw), start, start + len(raw), per_character=False)

    def handle_entityref(self, name: str) -> None:
        self._reference(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self._reference(f"&#{name};")

    def text(self) -> str:
        return "".join(self.chars)

    def bounds(self, anchor: str | None) -> tuple[int, int]:
        if anchor is None:
            return 0, len(self.chars)
        for section in self.sections:
            if section.anchor == anchor:
                return section.start, len(self.chars) if section.end is None else section.end
        raise SentenceNotFound(f"the page has no section with the id '{anchor}'")


def mark_sentences(html: str, quotes: Iterable[Quote]) -> tuple[str, set[str]]:
    """The page's HTML with each quote marked, and the ids it now holds."""
    # The ids are the build's: a page that already holds one (raw HTML in the content)
    # could make a citation land on words it chose.
    claimed = re.search(rf"""\bid\s*=\s*["']?{SENTENCE_PREFIX}""", html)
    if claimed:
        raise SentenceNotFound(
            f"the page itself holds an id starting with '{SENTENCE_PREFIX}' "
            f"(…{html[max(0, claimed.start() - 40) : claimed.end() + 20]}…): "
            "those ids mark cited sentences; choose another id"
        )
    stream = _TextStream(html)
    text = stream.text()
    inserts: list[tuple[int, int, str]] = []  # (offset, order, markup)
    ids: set[str] = set()
    for quote in dict.fromkeys(quotes):
        said = normalise(quote.text)
        identifier = sentence_id(said)
        if identifier in ids:
            continue
        start, end = stream.bounds(quote.anchor)
        found = text.find(said, start, end)
        if found < 0:
            where = f"#{quote.anchor}" if quote.anchor else "the page"
            raise SentenceNotFound(f'the page no longer says, in {where}: "{said}"')
        first = stream.spans[found][0]
        last = stream.spans[found + len(said) - 1][1]
        # Openers sort after closers at one offset: two quotes that touch stay apart.
        inserts.append((first, 1, f'<span class="said" id="{identifier}"></span>'))
        inserts.append((last, 0, f'<span class="said-end" id="{identifier}-end"></span>'))
        ids.update((identifier, f"{identifier}-end"))
    for offset, _, markup in sorted(inserts, reverse=True):
        html = html[:offset] + markup + html[offset:]
    return html, ids


def quoted_sentences(
    compiled: Mapping[str, Any], concepts: Iterable[Concept]
) -> dict[str, list[Quote]]:
    """Every quote a citation or a Compare passage points at, by the docs-relative path of
    its page ("orcus/combat.md"): from each system's compiled rules data, and from the
    passages of the Compare pages' concepts."""
    quotes: dict[str, list[Quote]] = defaultdict(list)
    for system in compiled.values():
        for cited in citations(system.get("rules") or {}):
            page, _, anchor = cited["section_url"].partition("#")
            quotes[page.strip("/") + ".md"].append(Quote(anchor or None, cited["quote"]))
    for concept in concepts:
        for passages in concept.passages.values():
            for passage in passages:
                page = f"{passage.system}/{passage.page}.md"
                quotes[page].append(Quote(passage.anchor, passage.quote))
    return {page: list(dict.fromkeys(listed)) for page, listed in quotes.items()}
