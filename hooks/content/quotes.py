"""Quotes from the rule texts: the sentence a citation or a Compare passage rests on.

A quote is checked against the plain text of the section it names (its subsections
included), word for word; the rendered page later marks it (hooks/pages/sentences.py)
under the id `sentence_id` gives it, so a link can point at the sentence itself.
"""

from __future__ import annotations

import hashlib
import re

from markdown_it.token import Token

from hooks.content.loader import System
from hooks.content.source_text import plain
from hooks.content.tables import TABLE_PLACEHOLDER

_SPACES = re.compile(r"\s+")
_WORDS = re.compile(r"[a-z0-9]+")
SENTENCE_PREFIX = "said-"


def normalise(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


# Where a sentence ends: its closing punctuation (and any closing quote or bracket), then a
# space. Good enough to show a reader the sentence a word stands in; not a linguist's split.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"'’”)\]]))\s+")


def sentences(text: str) -> list[str]:
    """The sentences of a plain text, in order."""
    return [sentence for sentence in _SENTENCE_END.split(normalise(text)) if sentence]


def sentence_id(quote: str) -> str:
    """The id a quoted sentence gets on its page: its first words (readable in a link) and
    a short hash of the whole quote (two quotes that start alike stay apart)."""
    quote = normalise(quote)
    words = "-".join(_WORDS.findall(quote.lower())[:6])
    digest = hashlib.sha1(quote.encode("utf-8")).hexdigest()[:6]
    return f"{SENTENCE_PREFIX}{words}-{digest}"


def section_text(system: System, page_name: str, anchor: str | None) -> str:
    """The plain text of a section (its subsections included), whitespace collapsed."""
    page = system.pages[page_name]
    tokens = page.tokens
    parts: list[str] = []
    inside = anchor is None
    level = 0
    heading_number = -1
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            heading_number += 1
            heading = page.headings[heading_number]
            if inside and anchor is not None and heading.level <= level:
                break
            if heading.anchor == anchor:
                inside, level = True, heading.level
        if (
            inside
            and token.type == "inline"
            and not (index and tokens[index - 1].type == "heading_open")
        ):
            parts.append(_prose(system, token))
    return normalise(" ".join(parts))


def _prose(system: System, inline: Token) -> str:
    """What an inline token says in the text's words: a table placeholder is its header and
    rows, cell by cell; an erratum note is ours, not the text's, so it is never quoted."""
    content = inline.content.strip()
    if content.startswith("!!!"):
        return ""
    placeholder = TABLE_PLACEHOLDER.fullmatch(content)
    if placeholder and placeholder.group(1) in system.tables:
        table = system.tables[placeholder.group(1)]
        return " ".join(" ".join(row) for row in [table.columns, *table.rows])
    return plain(inline)


def quote_problem(system: System, page_name: str, anchor: str | None, quote: str) -> str | None:
    """Why a quote does not stand in its section (None when it does), to say what to fix."""
    section = section_text(system, page_name, anchor)
    quote = normalise(quote)
    if not quote:
        return "the quote is empty: copy the sentence the entry rests on"
    if quote in section:
        return None
    words = quote.split(" ")
    matched = 0
    while matched < len(words) and " ".join(words[: matched + 1]) in section:
        matched += 1
    if matched == 0:
        return (
            "not even its first word stands there; copy the words from the section "
            "(emphasis and link targets dropped), or cite the section that holds them"
        )
    return (
        f"it matches up to '{' '.join(words[max(0, matched - 4) : matched])}', then the "
        f"section does not go on with '{words[matched]}'; copy the words exactly"
    )
