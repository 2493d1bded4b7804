"""Link glossary terms in a page's Markdown, deciding from markdown-it-py's token stream.

The token stream says what is prose: text inside headings, code, links, raw HTML and
images is never touched. Edits are spliced back into the source at the positions of
the text tokens, so everything else in the page (admonitions, attribute lists) stays
byte for byte as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from html import escape

from markdown_it import MarkdownIt
from markdown_it.token import Token

_markdown = MarkdownIt("commonmark")
_WORD = re.compile(r"\w+")
VOID_ELEMENTS = {"br", "hr", "img", "wbr", "input", "source"}


@dataclass(frozen=True)
class LinkTarget:
    """Where a term points: the page, the anchor and the short definition."""

    key: str  # one key per glossary entry, so each entry links once per section
    href: str
    definition: str
    page: str
    anchor: str | None
    kind: str = "term"  # the glossary kind: an "action" is a verb, any other kind a noun


# A noun term English also uses as a verb ("reach", "cover") is the verb right after a
# modal ("you can reach it"), or after an infinitive "to" that takes an object
# ("required to reach a level"; "a bonus to AC" keeps its link: no object follows).
MODALS = frozenset(
    {"can", "cannot", "can't", "could", "may", "might", "must", "shall", "should", "will", "would"}
)
OBJECTS = frozenset(
    {"a", "an", "the", "one", "it", "its", "them", "their", "his", "her", "your", "this",
     "that", "these", "those", "any", "each", "every", "some", "all", "another"}
)  # fmt: skip
VERB_KINDS = frozenset({"action"})
_WORD_BEFORE = re.compile(r"([\w'’]+)\W*$")
_WORD_AFTER = re.compile(r"\W*([\w'’]+)")


def reads_as_verb(text: str, start: int, end: int, kind: str) -> bool:
    """Whether text[start:end], a mention of a noun term, is used as a verb there."""
    if kind in VERB_KINDS:
        return False
    before = _WORD_BEFORE.search(text, 0, start)
    word = before.group(1).casefold().replace("’", "'") if before else ""
    if word in MODALS:
        return True
    after = _WORD_AFTER.match(text, end)
    return word == "to" and after is not None and after.group(1).casefold() in OBJECTS


@dataclass(frozen=True)
class Edit:
    line: int  # 0-based source line
    start: int
    end: int
    replacement: str


class TermMatcher:
    """Finds whole-word, case-insensitive mentions of any term form, longest first."""

    def __init__(self, forms: dict[str, LinkTarget]) -> None:
        self.targets = {form.casefold(): target for form, target in forms.items()}
        ordered = sorted(forms, key=len, reverse=True)
        alternatives = "|".join(re.escape(form) for form in ordered)
        self.pattern = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE)
        # Trying every alternative at every character is slow; try them only where a
        # word starts that some form starts with.
        self.first_words = {
            match.group(0).casefold() for form in forms if (match := _WORD.match(form))
        }

    def find(self, text: str) -> Iterable[tuple[int, int, LinkTarget]]:
        if not self.targets:
            return
        end = 0
        for word in _WORD.finditer(text):
            if word.start() < end or word.group(0).casefold() not in self.first_words:
                continue
            match = self.pattern.match(text, word.start())
            if match:
                end = match.end()
                yield match.start(), end, self.targets[match.group(0).casefold()]


# Characters an attribute list value may hold as they are: anything else (quotes, braces,
# Markdown's own punctuation) is written as a character reference, which Python-Markdown's
# attr_list passes through and the browser reads back.
_PLAIN = re.compile(r"[^\W_]|[ .,;:?!'()-]")


def _attribute_value(text: str) -> str:
    return "".join(c if _PLAIN.fullmatch(c) else f"&#{ord(c)};" for c in " ".join(text.split()))


def _link(text: str, target: LinkTarget) -> str:
    # The class marks a glossary link for the tap preview (previews.mjs). The definition is
    # data, not a title: the theme mounts a tooltip on every titled element when a page
    # loads, ~0.4 s of a phone's main thread on a rules page; previews.mjs titles a link
    # when it is hovered or focused.
    definition = _attribute_value(target.definition)
    return f'[{text}]({target.href}){{ .term-link data-definition="{definition}" }}'


Rewrite = Callable[[str, str | None], list[tuple[int, int, str]]]
"""Given a text token and the anchor of its section: (start, end, replacement) edits."""


class GlossaryLinker:
    """Links the first mention of each term per section, never in the defining section."""

    def __init__(self, matcher: TermMatcher, page: str) -> None:
        self.matcher = matcher
        self.page = page
        self.section: str | None = None
        self.linked: set[str] = set()
        self.skip_keys: set[str] = set()

    def __call__(self, text: str, section: str | None) -> list[tuple[int, int, str]]:
        if section != self.section:
            self.section, self.linked = section, set()
            self.skip_keys = {
                target.key
                for target in self.matcher.targets.values()
                if target.page == self.page and target.anchor == section
            }
        edits = []
        for start, end, target in self.matcher.find(text):
            if target.key in self.linked or target.key in self.skip_keys:
                continue
            if reads_as_verb(text, start, end, target.kind):
                continue
            self.linked.add(target.key)
            edits.append((start, end, _link(text[start:end], target)))
        return edits


def term_slug(term: str) -> str:
    """A term as an id's words: lower case, joined by hyphens ("Cover (combat)": "cover-combat")."""
    return "-".join(re.findall(r"[^\W_]+", term.casefold())) or "term"


class DefinitionMarker:
    """Marks where the text defines each term: the first mention of a term in its defining
    section (the section the glossary's `see` names, where it is never linked) gets an
    empty anchor before it, titled by the term for the search index (Pagefind's
    sub-result): a search for the term lands on the sentence that defines it, where the
    section's heading does not name it (4e's "Opportunity Attack", under "Actions")."""

    def __init__(self, matcher: TermMatcher, page: str) -> None:
        self.matcher = matcher
        self.page = page
        self.marked: set[str] = set()

    def __call__(self, text: str, section: str | None) -> list[tuple[int, int, str]]:
        edits = []
        for start, end, target in self.matcher.find(text):
            if target.page != self.page or target.anchor != section:
                continue
            if target.key in self.marked:
                continue
            self.marked.add(target.key)
            anchor = f'id="defines-{term_slug(target.key)}"'
            title = f'data-pagefind-title="{escape(target.key, quote=True)}"'
            edits.append((start, end, f"<span {anchor} {title}></span>{text[start:end]}"))
        return edits


def combine(*rewrites: Rewrite) -> Rewrite:
    """Apply several rewrites to the same text; an earlier one wins where they overlap."""

    def rewrite(text: str, section: str | None) -> list[tuple[int, int, str]]:
        taken: list[tuple[int, int, str]] = []
        for each in rewrites:
            for start, end, replacement in each(text, section):
                if all(end <= s or start >= e for s, e, _ in taken):
                    taken.append((start, end, replacement))
        return taken

    return rewrite


def _inline_edits(
    inline: Token, lines: list[str], rewrite: Rewrite, section: str | None
) -> list[Edit]:
    """Edits for one inline token (a paragraph, list item or similar)."""
    if inline.map is None or not inline.children:
        return []
    raw = inline.content
    raw_lines = raw.split("\n")
    first = inline.map[0]
    # Where each line of the inline content starts in the source file.
    line_starts: list[tuple[int, int]] = []
    for offset, raw_line in enumerate(raw_lines):
        source_line = lines[first + offset] if first + offset < len(lines) else ""
        column = source_line.find(raw_line)
        if column < 0:
            return []  # content does not map back to the source verbatim: leave it alone
        line_starts.append((first + offset, column))
    line_offsets = [0]
    for raw_line in raw_lines[:-1]:
        line_offsets.append(line_offsets[-1] + len(raw_line) + 1)

    def locate(position: int) -> tuple[int, int]:
        for index in range(len(line_offsets) - 1, -1, -1):
            if position >= line_offsets[index]:
                source_line, column = line_starts[index]
                return source_line, column + position - line_offsets[index]
        raise AssertionError("position before the start of the inline content")

    edits: list[Edit] = []
    cursor = 0
    depth_link = 0
    depth_html = 0  # inside an inline HTML element written by hand: leave its text alone
    for child in inline.children:
        if child.type == "link_open":
            depth_link += 1
            continue
        if child.type == "link_close":
            depth_link -= 1
            # Move past the link's destination so later text is never found inside it.
            closing = raw.find(")", cursor)
            if closing >= 0:
                cursor = closing + 1
            continue
        if child.type == "html_inline":
            tag = child.content
            if tag.startswith("</"):
                depth_html = max(0, depth_html - 1)
            elif tag[1:2].isalpha() and not tag.endswith("/>"):
                name = tag[1:].split(None, 1)[0].rstrip(">").lower()
                depth_html += name not in VOID_ELEMENTS
        if child.type in ("code_inline", "html_inline", "image"):
            found = raw.find(child.content, cursor) if child.content else -1
            if found >= 0:
                cursor = found + len(child.content)
            continue
        if child.type != "text" or not child.content:
            continue
        found = raw.find(child.content, cursor)
        if found < 0:
            continue  # escapes or entities changed the text: do not guess positions
        cursor = found + len(child.content)
        if depth_link or depth_html:
            continue
        line, column = locate(found)
        if lines[line].lstrip().startswith(("!!!", "???")):
            continue  # an admonition's title line: a link would break its syntax
        for start, end, replacement in rewrite(child.content, section):
            edits.append(Edit(line, column + start, column + end, replacement))
    return edits


def rewrite_prose(
    markdown: str,
    rewrite: Rewrite,
    *,
    anchors_of_headings: list[str],
    skip: Callable[[str], bool] = lambda content: False,
    tokens: list[Token] | None = None,
) -> str:
    """Apply `rewrite` to the prose of a page: every text token outside headings, code,
    links and inline HTML, with the anchor of the section it sits in.

    `anchors_of_headings` lists the page's heading anchors in document order (as the
    content loader computed them). Inline content for which `skip` returns true is left
    alone. `tokens`, when given, are the page already parsed.
    """
    lines = markdown.split("\n")
    tokens = _markdown.parse(markdown) if tokens is None else tokens
    edits: list[Edit] = []
    section: str | None = None
    heading_number = 0
    in_heading = False
    for token in tokens:
        if token.type == "heading_open":
            section = anchors_of_headings[heading_number]
            heading_number += 1
            in_heading = True
        elif token.type == "heading_close":
            in_heading = False
        elif token.type == "inline" and not in_heading and not skip(token.content):
            edits.extend(_inline_edits(token, lines, rewrite, section))
    for edit in sorted(edits, key=lambda edit: (edit.line, edit.start), reverse=True):
        line = lines[edit.line]
        lines[edit.line] = line[: edit.start] + edit.replacement + line[edit.end :]
    return "\n".join(lines)


def link_terms(
    markdown: str,
    matcher: TermMatcher,
    *,
    page: str,
    anchors_of_headings: list[str],
    skip: Callable[[str], bool] = lambda content: False,
    tokens: list[Token] | None = None,
) -> str:
    """Link the first mention of each term per section of one page."""
    return rewrite_prose(
        markdown,
        GlossaryLinker(matcher, page),
        anchors_of_headings=anchors_of_headings,
        skip=skip,
        tokens=tokens,
    )
