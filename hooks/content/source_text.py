"""What content/ prints, checked against the system's source text (source.txt): every
sentence of its pages and every row of its tables stands there word for word.

The comparison reads both sides as the citations' check does (hooks/content/quotes.py):
the page's plain text (emphasis and link targets dropped), and the source with its own
markup dropped (emphasis, HTML tags, an autolink's brackets); whitespace does not count,
so "turn ," and "turn," read alike. A heading is compared without case and decoration
(ALL-CAPS headings are set in title case, "• HEADING •" loses its bullets), a table row
as its cells in order ("Hard 15"), as a citation may quote it.

What is ours is not checked: the admonitions (erratum notes and editors' notes), and a
section holding an `!!! outside` note, which says where its words come from instead (the
Orcus encounter budget, from the Orcus monster document). An erratum never excuses a
difference: a misprint is kept as printed, and its note says what is meant. Anything else
that is not in the source stops the build at its file and line, with the source's
nearest words and where they differ.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cached_property, lru_cache
from html import unescape
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING

from markdown_it.token import Token

from hooks.content.tables import TABLE_PLACEHOLDER, Table
from hooks.content.yaml_lines import ContentError, read_content_text

if TYPE_CHECKING:  # the loader calls this module on what it loaded
    from hooks.content.loader import Page, System

# A word or number, or one mark of punctuation; emphasis markers (* and _) are markup.
_TOKEN = re.compile(r"[^\W_]+|[^\w\s*]")
_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9]*)(?:\s[^<>]*)?/?>")
# Tags that separate words as a line break would; any other (<i>, <b>, <sup>) joins them.
_BLOCK_TAGS = frozenset({"br", "div", "li", "ol", "p", "table", "td", "th", "tr", "ul"})
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^<>\s]+)>")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_DECORATION = "•"
_SHOWN = 160  # characters of a sentence or of the source's words a message shows
# The words of a text as its coverage counts them (tests/test_site_build.py counts the built
# pages' so, and the source's markup too): lower case, an apostrophe's ending kept. At
# least COVERAGE of a source text's words appear in its system's pages and tables.
_COVERED = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
COVERAGE = 0.98
_CLOSE = 400  # words: as far from the words found before as a changed row or sentence is likely
RECIPE = (
    'copy the text\'s words as printed (CONTRIBUTING.md, "Fix a typo"): a misprint stays '
    "as printed, with an erratum note directly after the paragraph where it changes the "
    'meaning (a line `!!! erratum "Erratum"`, then the note indented by four spaces: '
    'CONTRIBUTING.md, "Record an erratum"); words of ours go in a note (`!!! note "..."`)'
)
TABLE_RECIPE = (
    "copy the cells as printed; a misprinted cell stays as printed, with an entry under "
    "the table's `errata` (row, column, note) saying what is meant (CONTRIBUTING.md, "
    '"How errata are recorded")'
)


def words(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _key(tokens: list[str] | tuple[str, ...]) -> str:
    """Tokens as the text searched: each between spaces, so a match is of whole words."""
    return f" {' '.join(tokens)} "


@dataclass(frozen=True, eq=False)
class SourceText:
    """A source text as the words a reader sees, its markup dropped."""

    path: Path
    text: str  # the text as read: its markup dropped, its lines kept
    tokens: tuple[str, ...]
    printed: str  # _key(tokens): what a sentence is looked for in
    folded: str  # the same, case folded: what a heading is looked for in
    starts: tuple[int, ...]  # where each token's key starts in `printed`
    vocabulary: frozenset[str]  # its words as coverage counts them

    @cached_property
    def placed(self) -> tuple[tuple[int, ...], tuple[bool, ...]]:
        """Each word's line, and whether a space comes before it: what a message shows."""
        lines: list[int] = []
        spaced: list[bool] = []
        for number, line in enumerate(self.text.split("\n"), start=1):
            for found in _TOKEN.finditer(line):
                lines.append(number)
                spaced.append(found.start() == 0 or line[found.start() - 1].isspace())
        return tuple(lines), tuple(spaced)

    def first_lines(self, words: set[str]) -> dict[str, int]:
        """The line each of these words (as coverage counts them) is first printed on."""
        found: dict[str, int] = {}
        for number, line in enumerate(self.text.lower().split("\n"), start=1):
            for word in _COVERED.findall(line):
                if word in words:
                    found.setdefault(word, number)
        return found

    def find(self, tokens: list[str], after: int = 0) -> int | None:
        """Where the source prints these words in a row (the index of the first), the first
        time from word `after` on if it does there; None where it does not."""
        if not tokens:
            return after
        key = _key(tokens)
        at = self.printed.find(key, self.starts[after] if after < len(self.starts) else 0)
        if at < 0:
            at = self.printed.find(key)
        return None if at < 0 else bisect_left(self.starts, at)

    def holds_in_any_case(self, tokens: list[str]) -> bool:
        return not tokens or _key(tokens).casefold() in self.folded

    def nearest(self, wanted: list[str], near: int) -> tuple[int, int]:
        """The run of the source's words likeliest meant by `wanted` (start, end): where
        most of its words stand at their place, close to word `near` (where the words
        before it were found), starting as it does."""
        places: dict[str, list[int]] = {}
        for index, token in enumerate(self.tokens):
            places.setdefault(token.casefold(), []).append(index)
        votes: dict[int, int] = {}
        for offset, token in enumerate(wanted):
            for index in places.get(token.casefold(), []):
                votes[index - offset] = votes.get(index - offset, 0) + 1
        if not votes:
            return 0, 0

        def likeliness(start: int) -> tuple[int, bool, bool, int, int]:
            # Most words at their place; then close to where the words before were found
            # (the same table, the next paragraphs), right after them first; then the
            # longest run of its first words (a row's first cell names it); the nearest.
            same = 0
            while same < len(wanted) and self._at(start + same) == wanted[same].casefold():
                same += 1
            close = abs(start - near) <= _CLOSE
            return votes[start], close, start == near, same, -abs(start - near)

        start = min(max(0, max(votes, key=likeliness)), len(self.tokens))
        return start, min(len(self.tokens), start + len(wanted))

    def _at(self, index: int) -> str | None:
        return self.tokens[index].casefold() if 0 <= index < len(self.tokens) else None

    def shown(self, start: int, end: int) -> str:
        """The source's words from start to end, spaced as printed."""
        spaced = self.placed[1]
        said = "".join(
            (" " if spaced[index] and index > start else "") + self.tokens[index]
            for index in range(start, end)
        )
        return _short(said)


def _short(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1].rstrip() + "…"


@lru_cache(maxsize=16)
def _read_source(path: Path, text: str) -> SourceText:
    text = _AUTOLINK.sub(r"\1", text)
    text = _TAG.sub(lambda tag: " " if tag[1].lower() in _BLOCK_TAGS else "", text)
    text = unescape(text).replace("*", "")
    tokens = tuple(_TOKEN.findall(text))
    printed = _key(tokens)
    starts = tuple(accumulate((len(token) + 1 for token in tokens[:-1]), initial=0))
    vocabulary = frozenset(_COVERED.findall(text.lower()))
    return SourceText(path, text, tokens, printed, printed.casefold(), starts, vocabulary)


def source_text(system: System, line: int | None = None) -> SourceText:
    """The system's source text, read as words (`line`: where system.yml names it)."""
    path = system.folder / system.source["file"]
    if not path.is_file():
        raise ContentError(
            system.folder / "system.yml",
            line,
            f"the source text '{system.source['file']}' is not in content/{system.slug}/: "
            "add the text the pages are converted from, or fix 'source.file'",
        )
    return _read_source(path, read_content_text(path))


def _difference(ours: list[str], theirs: list[str]) -> str:
    """Where the words first differ from the text's: a word or a few changed in place, else
    words added or left out."""
    changed = [index for index, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b]
    if changed and len(ours) == len(theirs) and changed[-1] - changed[0] < 3:
        here = " ".join(ours[changed[0] : changed[-1] + 1])
        there = " ".join(theirs[changed[0] : changed[-1] + 1])
        return f" ('{_short(here)}' where the text has '{_short(there)}')"
    matcher = SequenceMatcher(None, ours, theirs, autojunk=False)
    for kind, i1, i2, j1, j2 in matcher.get_opcodes():
        here, there = _short(" ".join(ours[i1:i2])), _short(" ".join(theirs[j1:j2]))
        if kind == "replace":
            return f" ('{here}' where the text has '{there}')"
        if kind == "delete":
            return f" ('{here}' is not in the text)"
        if kind == "insert":
            return f" (the text has '{there}' too)"
    return ""


def _not_printed(what: str, said: str, source: SourceText, near: int, recipe: str) -> str:
    """Why words are refused: them, the source's nearest words (of those as near as any to
    word `near`), where they differ, and the fix."""
    tokens = words(said)
    start, end = source.nearest(tokens, near)
    printed = list(source.tokens[start:end])
    differs = _difference(tokens, printed)
    nearest = (
        f'{source.path.name}:{source.placed[0][start]} prints "{source.shown(start, end)}"{differs}'
        if printed
        else f"{source.path.name} prints none of its words"
    )
    return (
        f'{what} is not in the source text word for word: "{_short(" ".join(said.split()))}"; '
        f"{nearest}: {recipe}"
    )


# --------------------------------------------------------------------------- pages


def plain(inline: Token) -> str:
    """An inline token's words as a reader sees them (hooks/content/quotes.py reads them so)."""
    said = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            said.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            said.append(" ")
    return "".join(said)


@dataclass(frozen=True)
class _Block:
    text: str  # as a reader sees it (a heading without its explicit {#id})
    heading: bool
    line: int


def _top_level_blocks(tokens: list[Token]) -> Iterator[tuple[int, int]]:
    """(first, last) token index of each top-level block: a paragraph, heading, list..."""
    start = None
    for index, token in enumerate(tokens):
        if token.level != 0:
            continue
        if token.nesting == 1:
            start = index
        elif token.nesting == -1 and start is not None:
            yield start, index
            start = None
        elif token.nesting == 0:
            yield index, index


def _note(tokens: list[Token], first: int) -> str | None:
    """The kind of an admonition ("erratum", "outside", "note") opening at a block, else None."""
    if tokens[first].type != "paragraph_open":
        return None
    opening = tokens[first + 1].content.lstrip()
    if not opening.startswith("!!!"):
        return None
    kind = opening[3:].split(maxsplit=1)
    return kind[0] if kind else ""


def _sections(page: Page) -> list[set[int]]:
    """For each heading of a page (by number), the headings whose sections hold it: itself
    and those above it."""
    above: list[tuple[int, int]] = []  # (level, number) of the headings open here
    held = []
    for number, heading in enumerate(page.headings):
        while above and above[-1][0] >= heading.level:
            above.pop()
        above.append((heading.level, number))
        held.append({open_number for _, open_number in above})
    return held


def _page_blocks(page: Page) -> tuple[list[_Block], set[str]]:
    """The blocks of a page the source must hold, and the tables placed where it need not
    (in a section with an `!!! outside` note, subsections included)."""
    tokens = page.tokens
    blocks = list(_top_level_blocks(tokens))
    notes = [_note(tokens, first) for first, _ in blocks]
    under: list[int] = []  # the number of the heading each block is under
    for first, _ in blocks:
        under.append((under[-1] if under else -1) + (tokens[first].type == "heading_open"))
    outside_notes = {under[index] for index, kind in enumerate(notes) if kind == "outside"}
    held = _sections(page)
    checked: list[_Block] = []
    outside_tables: set[str] = set()
    for index, (first, last) in enumerate(blocks):
        if notes[index] is not None:
            continue  # an admonition is ours
        outside = under[index] >= 0 and bool(held[under[index]] & outside_notes)
        is_heading = tokens[first].type == "heading_open"
        for inline in tokens[first : last + 1]:
            if inline.type != "inline":
                continue
            placeholder = TABLE_PLACEHOLDER.fullmatch(inline.content.strip())
            if placeholder:
                if outside:
                    outside_tables.add(placeholder[1])
            elif not outside:
                text = page.headings[under[index]].text if is_heading else plain(inline)
                checked.append(_Block(text, is_heading, inline.map[0] + 1 if inline.map else 0))
    return checked, outside_tables


def _first_not_printed(blocks: list[_Block], source: SourceText) -> tuple[int, str] | None:
    """The line and message of the first block the source does not hold, or None."""
    near = 0  # where the last block found stands: a changed one is looked for after it
    for block in blocks:
        tokens = words(block.text)
        if block.heading:
            tokens = [token for token in tokens if token != _DECORATION]
            if not source.holds_in_any_case(tokens):
                return block.line, _not_printed("this heading", block.text, source, near, RECIPE)
            continue
        found = source.find(tokens, near)
        if found is not None:
            near = found + len(tokens)
            continue
        for sentence in _SENTENCE_END.split(block.text.strip()):
            said = words(sentence)
            found = source.find(said, near)
            if found is None:
                return block.line, _not_printed("this sentence", sentence, source, near, RECIPE)
            near = found + len(said)  # every sentence stands, only not all in a row
    return None


@lru_cache(maxsize=1024)
def _page_problem(page: Page, source: SourceText) -> tuple[tuple[int, str] | None, frozenset[str]]:
    """(the first block of a page the source does not hold, as _first_not_printed; the
    tables placed in an outside section). Under the dev server a page is read again only
    when its text changed (parse_page gives the same Page while it is the same)."""
    blocks, outside_tables = _page_blocks(page)
    return _first_not_printed(blocks, source), frozenset(outside_tables)


# --------------------------------------------------------------------------- tables

_GROUP_LABEL = re.compile(r"^(\[[^\]]+\])\s+(.+)$")


def _table_problem(table: Table, source: SourceText) -> tuple[int, str] | None:
    """The first caption, header or row of a table the source does not hold."""
    near = 0  # where the last part found stands: a changed one is looked for after it
    # A header printed on two rows is one row here, each column with the label above it
    # in front ("[Hex-Crawls] 1-mile hex"): the lower row is checked as a row, each label
    # on its own.
    names, labels = [], []
    for column in table.columns:
        grouped = _GROUP_LABEL.match(column)
        names.append(grouped[2] if grouped else column)
        if grouped and grouped[1] not in labels:
            labels.append(grouped[1])
    parts = [(table.title_line, "the caption", table.title)]
    parts += [(table.columns_line, "the header", said) for said in [*labels, " ".join(names)]]
    parts += [
        (line, "this row", " ".join(row))
        for row, line in zip(table.rows, table.row_lines, strict=True)
    ]
    for line, what, said in parts:
        tokens = words(said)
        found = source.find(tokens, near)
        if found is None:
            return line, _not_printed(what, said, source, near, TABLE_RECIPE)
        near = found + len(tokens)
    return None


@lru_cache(maxsize=1024)
def _page_words(page: Page) -> frozenset[str]:
    return frozenset(
        word
        for inline in page.tokens
        if inline.type == "inline"
        for word in _COVERED.findall(plain(inline).lower())
    )


def _coverage_problem(system: System, source: SourceText) -> tuple[int, str] | None:
    """Where the words of the text that no page or table shows begin, and what to do,
    when they are more than the coverage allows (a page left out, or cut short)."""
    shown = set().union(*(_page_words(page) for page in system.pages.values()))
    for table in system.tables.values():
        cells = [table.title, *table.columns, *(cell for row in table.rows for cell in row)]
        shown.update(_COVERED.findall(" ".join(cells).lower()))
    left_out = source.vocabulary - shown
    covered = 1 - len(left_out) / max(1, len(source.vocabulary))
    if covered >= COVERAGE:
        return None
    missing = sorted((line, word) for word, line in source.first_lines(set(left_out)).items())
    named = ", ".join(f"'{word}'" for _, word in missing[:8])
    return missing[0][0], (
        f"only {covered:.1%} of the words of this text appear on {system.slug}'s pages and "
        f"tables, under {COVERAGE:.0%}: {named}... are on no page (from this line on): every "
        "passage of the text has its page, in the reading order of system.yml; a page may "
        "be missing or cut short"
    )


def check_source(system: System, source_line: int | None = None) -> None:
    """Refuse the first sentence, heading or table row of a system that its source text
    does not print (ContentError at its file and line), and a system whose pages and
    tables leave out more of its text than COVERAGE allows (at the source text's line)."""
    source = source_text(system, source_line)
    outside: set[str] = set()
    for page in system.pages.values():
        problem, tables = _page_problem(page, source)
        if problem is not None:
            raise ContentError(page.path, *problem)
        outside |= tables
    for name, table in system.tables.items():
        if name in outside:
            continue
        problem = _table_problem(table, source)
        if problem is not None:
            raise ContentError(table.path, *problem)
    coverage = _coverage_problem(system, source)
    if coverage is not None:
        raise ContentError(source.path, *coverage)
