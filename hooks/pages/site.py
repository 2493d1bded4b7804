"""Turn validated content into the Markdown pages MkDocs renders.

`render_site` returns {site path: Markdown} for every generated page; `navigation`
returns the nav; `edit_source` maps a generated page back to the content file a
contributor edits. None of this needs MkDocs.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from html import escape, unescape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hooks.content.loader import GlossaryEntry, Page, System, table_placeholders
from hooks.content.tables import TABLE_PLACEHOLDER
from hooks.pages.dice_chips import dice_rewriter
from hooks.pages.gm_screen import PAGE as GM_SCREEN_PAGE
from hooks.pages.gm_screen import TITLE as GM_SCREEN_TITLE
from hooks.pages.linker import (
    DefinitionMarker,
    GlossaryLinker,
    LinkTarget,
    TermMatcher,
    combine,
    rewrite_prose,
    term_slug,
)
from hooks.pages.shared_terms import PAGE as SHARED_PAGE
from hooks.pages.shared_terms import (
    anchor_of,
    anchors_by_term,
    render_shared_terms,
    shared_terms,
)
from hooks.pages.tables import check_table, render_table
from rules_core.calculators import CALCULATORS
from rules_core.calculators.address import PAGES, calculator_markdown_address

if TYPE_CHECKING:  # an annotation only: at run time, compare would load rules_core.web too
    from hooks.pages.compare import Concept

TERMS_PAGE = "terms"  # each system's generated list of its glossary's terms
SOURCE_PAGE = "source"  # each system's source, license and errata
# A system's pages that restate or describe its text, beside the chapters that are the text:
# search ranks a chapter's section before them (hooks/postprocess/search_index.py).
REFERENCE_PAGES = ("", TERMS_PAGE, GM_SCREEN_PAGE, SOURCE_PAGE)

ROOT_FROM_PAGE = "../"  # a system's pages sit one folder below the root

# An entry of the navigation, as mkdocs.yml's `nav` holds it: a page's path, or {title: a
# page's path, or a section's entries}. Read-only types, so a section built as plain lists
# and dicts of paths (the Compare section) is one.
type NavItem = str | Mapping[str, str | Sequence[NavItem]]


@dataclass(frozen=True)
class Note:
    """An admonition of a page (an erratum, an `outside` note), with the section it is in."""

    page: Page
    anchor: str
    section: str


def calculator_of_rules() -> dict[str, str]:
    """{rules key: the calculator whose text it is}, from each calculator's own rule (the
    key its request needs a system to define). Where two read one key, the first in the
    registry's order has it: the attack calculator, not the fight built on attacks."""
    found: dict[str, str] = {}
    for name, calculator in CALCULATORS.items():
        rule = calculator.request.RULE
        if rule is not None:
            found.setdefault(rule.path[0], name)
    return found


# A section's extra links: (label, Markdown link target relative to the system's pages).
SectionLinks = Mapping[tuple[str, str, str], list[tuple[str, str]]]


def front_matter(system: System) -> str:
    # Search shows a page's tags with each result: the tag labels the system, once. The
    # `system` key names it in the window title (overrides/main.html).
    return (
        f"---\ntags:\n  - {json.dumps(escape(system.short_title))}\n"
        f"system: {json.dumps(system.title)}\n---\n\n"
    )


def system_line(system: System) -> str:
    # Under the heading of every page, so that /orcus/combat/ and /4e-core/combat/ differ at a
    # glance; left out of the search index, where the tag names the system already.
    return f'<p class="page-system" data-search-exclude>{escape(system.title)}</p>'


def _links_line(links: list[tuple[str, str]]) -> str:
    joined = " · ".join(f"[{escape(label)}]({target})" for label, target in links)
    return f'{joined}\n{{: .section-links data-search-exclude="" }}'


def citations(value: Any) -> Iterator[dict[str, str]]:
    """The citations anywhere in a compiled rules value ({page, section, quote, url,
    section_url}, as hooks/content/rules_data.py compiles them)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "cite" and isinstance(item, list):
                yield from (cited for cited in item if isinstance(cited, dict))
            else:
                yield from citations(item)
    elif isinstance(value, list):
        for item in value:
            yield from citations(item)


def section_links(
    compiled: Mapping[str, Any],
    page_titles: Mapping[str, str],
    concepts: list[Concept],
) -> dict[tuple[str, str, str], list[tuple[str, str]]]:
    """Links to add under each section heading: the calculators that cite the section (from
    each system's compiled rules data), named by their page's title (`page_titles`, by
    calculator), and the Compare pages that quote it."""
    links: dict[tuple[str, str, str], list[tuple[str, str]]] = defaultdict(list)
    reads = calculator_of_rules()
    for slug, system in compiled.items():
        for key, value in (system.get("rules") or {}).items():
            # not_defined is no calculator's: its sections say what the text lacks.
            name = reads.get(key)
            if name is None:
                continue
            title = page_titles[name]
            target = calculator_markdown_address(name, {"system": slug}, ROOT_FROM_PAGE)
            for url in dict.fromkeys(cited["section_url"] for cited in citations(value)):
                page_path, _, anchor = url.partition("#")
                key_of = (slug, page_path.strip("/").split("/")[-1], anchor)
                if (f"Calculator: {title}", target) not in links[key_of]:
                    links[key_of].append((f"Calculator: {title}", target))
    for concept in concepts:
        for slug, passages in concept.passages.items():
            for passage in passages:
                entry = (f"Compare: {concept.title}", f"../compare/{concept.slug}.md")
                key_of = (slug, passage.page, passage.anchor or "")
                if entry not in links[key_of]:
                    links[key_of].append(entry)
    return dict(links)


def term_matcher(system: System) -> TermMatcher:
    return _term_matcher(tuple(system.glossary))


# The same glossary gives the same matcher object, so that a page's linked prose, keyed on
# it, is not linked again (_linked_prose) while neither changed.
@lru_cache(maxsize=64)
def _term_matcher(glossary: tuple[GlossaryEntry, ...]) -> TermMatcher:
    forms: dict[str, LinkTarget] = {}
    for entry in glossary:
        anchor = f"#{entry.see_anchor}" if entry.see_anchor else ""
        target = LinkTarget(
            key=entry.term,
            href=f"{entry.see_page}.md{anchor}",
            definition=entry.definition,
            page=entry.see_page,
            anchor=entry.see_anchor,
            kind=entry.kind,
        )
        for form in entry.forms:
            forms[form] = target
    return TermMatcher(forms)


# Under the dev server, a build links the prose of only the pages whose text or glossary
# changed since the last (a page and a matcher are the same objects while they are the same:
# parse_page, _term_matcher).
@lru_cache(maxsize=1024)
def _linked_prose(slug: str, page: Page, matcher: TermMatcher) -> str:
    """A page's prose with its dice and terms linked, and its definitions marked."""
    # Dice first: a term is never linked inside a dice expression.
    rewrite = combine(
        dice_rewriter(slug, ROOT_FROM_PAGE),
        GlossaryLinker(matcher, page.name),
        DefinitionMarker(matcher, page.name),
    )
    return rewrite_prose(
        page.text,
        rewrite,
        anchors_of_headings=[heading.anchor for heading in page.headings],
        skip=lambda content: TABLE_PLACEHOLDER.match(content.strip()) is not None,
        tokens=page.tokens,
    )


def render_page(
    system: System,
    page: Page,
    matcher: TermMatcher,
    tables: dict[str, str],
    links: SectionLinks | None = None,
) -> str:
    lines = _linked_prose(system.slug, page, matcher).split("\n")
    for name, line in table_placeholders(page):
        lines[line - 1] = tables[name]
    # Insert from the bottom up, so that the line numbers of the headings above still hold.
    for heading in sorted(page.headings, key=lambda heading: -heading.line):
        extra = [system_line(system)] if heading.level == 1 else []
        # A citation of the page itself ("combat") belongs under its title.
        anchors = ("", heading.anchor) if heading.level == 1 else (heading.anchor,)
        section = list(
            dict.fromkeys(
                link
                for anchor in anchors
                for link in (links or {}).get((system.slug, page.name, anchor), [])
            )
        )
        if section:
            extra.append(_links_line(section))
        if extra:
            lines[heading.line : heading.line] = ["", *("\n\n".join(extra).split("\n")), ""]
    return front_matter(system) + "\n".join(lines)


def notes_of(page: Page, kind: str) -> list[Note]:
    """The admonitions of one kind ("erratum", "outside") of a page, with the section each
    sits in."""
    notes = []
    headings = iter(page.headings)
    current = next(headings)
    upcoming = next(headings, None)
    for number, line in enumerate(page.text.split("\n"), start=1):
        while upcoming is not None and upcoming.line <= number:
            current, upcoming = upcoming, next(headings, None)
        if line.lstrip().startswith(f"!!! {kind} ") or line.strip() == f"!!! {kind}":
            notes.append(Note(page, current.anchor, current.text))
    return notes


def _landing(system: System) -> str:
    source = system.source
    lines = [
        front_matter(system) + f"# {escape(system.title)}",
        "",
        system.summary,
        "",
        f"- **Core roll:** {escape(system.dice)}",
        f"- **Source:** {escape(source['document'])} ([source and license](source.md))",
        f"- **License stated in the text:** {escape(source['license'])}",
        "",
        "## Chapters",
        "",
    ]
    lines += [f"1. [{escape(page.title)}]({page.name}.md)" for page in system.pages.values()]
    lines += [
        "",
        "## Reference",
        "",
        f"- [Terms]({TERMS_PAGE}.md): {len(system.glossary)} terms with short definitions.",
        f"- [{GM_SCREEN_TITLE}]({GM_SCREEN_PAGE}.md): the rolls, difficulties, situations, "
        "conditions, actions, dying rule and tables on one printable page.",
        "- [Source and license](source.md): where the text comes from, its license, "
        "and the errata noted on these pages.",
        "",
    ]
    return "\n".join(lines)


def _terms(system: System, shared: dict[str, str]) -> str:
    """The Terms page; `shared` gives the anchor of each term other systems define too
    (hooks/pages/shared_terms.py), which the entry links."""
    by_kind: dict[str, list[GlossaryEntry]] = defaultdict(list)
    for entry in system.glossary:
        by_kind[entry.kind].append(entry)
    lines = [
        front_matter(system) + "# Terms",
        "",
        system_line(system),
        "",
        f"The terms of {system.title} from A to Z, each with its kind, a short definition "
        "and a link to the section of the text that defines it. In the rule pages, the "
        "first mention of a term in each section links to that same section, with the "
        "short definition shown on hover or tap.",
        "",
    ]
    by_letter: dict[str, list[GlossaryEntry]] = defaultdict(list)
    for entry in sorted(system.glossary, key=lambda entry: entry.term.casefold()):
        initial = entry.term[:1].upper()
        by_letter[initial if initial.isalpha() else "#"].append(entry)
    jumps = [f"[{letter}](#letter-{_letter_id(letter)})" for letter in by_letter]
    lines += [" ".join(jumps), '{: .terms-jump aria-label="Terms from A to Z" }', ""]
    ids = term_ids(system)
    for letter, entries in by_letter.items():
        lines += [f"## {letter} {{#letter-{_letter_id(letter)}}}", ""]
        for entry in entries:
            anchor = f"#{entry.see_anchor}" if entry.see_anchor else ""
            also = [form for form in (*entry.aliases, entry.plural) if form]
            extra = f" (also: {', '.join(also)})" if also else ""
            kind = entry.kind.replace("-", " ")
            across = anchor_of(shared, entry.term)
            compared = f" ([in other systems](../{SHARED_PAGE}#{across}))" if across else ""
            lines += [
                f"**[{entry.term}]({entry.see_page}.md{anchor})**{extra} *{kind}*: "
                f"{entry.definition}{compared}",
                # Its own anchor: a search for the term lands on the entry, not on its letter.
                f"{{: #{ids[entry.term]} }}",
                "",
            ]
    return "\n".join(lines)


def term_ids(system: System) -> dict[str, str]:
    """{term: the id of its entry on the Terms page}: "term-" and the term in lower case,
    words joined by hyphens ("Cover (combat)" -> "term-cover-combat"), numbered where two
    would be the same."""
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for entry in system.glossary:
        base = f"term-{term_slug(entry.term)}"
        ident, number = base, 1
        while ident in taken:
            number += 1
            ident = f"{base}-{number}"
        taken.add(ident)
        ids[entry.term] = ident
    return ids


def _letter_id(letter: str) -> str:
    return letter.lower() if letter.isalpha() else "other"


def _source(system: System, notes: list[Note], table_errata: list[str], outside: list[Note]) -> str:
    source = system.source
    lines = [
        front_matter(system) + "# Source and license",
        "",
        system_line(system),
        "",
        f"- **Document:** {escape(source['document'])}",
        f"- **Source file:** `content/{system.slug}/{source['file']}` in the repository"
        + (f" (distributed as `{source['original_file']}`)" if source.get("original_file") else ""),
        f"- **License stated in the text:** {escape(source['license'])}",
    ]
    if source.get("license_page"):
        page = system.pages[source["license_page"]]
        lines.append(f"- **License text:** [{escape(page.title)}]({page.name}.md)")
    lines += [
        "",
        "The pages follow the text word for word: the build checks every sentence and "
        "every table row against the source file"
        + (", but for the sections from outside this text listed below" if outside else "")
        + ". Misprints are kept as printed and marked with an erratum note; arithmetic "
        "tables are recomputed by the build.",
        "",
    ]
    if outside:
        lines += ["## From outside this text", ""]
        lines += [
            f"- [{escape(note.page.title)}: {escape(note.section)}]"
            f"({note.page.name}.md#{note.anchor})"
            for note in outside
        ]
        lines.append("")
    if system.notes:
        lines += ["## Editorial repairs", ""]
        lines += [f"- {note}" for note in system.notes]
        lines.append("")
    lines += ["## Errata", ""]
    if notes or table_errata:
        lines += [
            f"- [{escape(note.page.title)}: {escape(note.section)}]"
            f"({note.page.name}.md#{note.anchor})"
            for note in notes
        ]
        lines += table_errata
    else:
        lines.append("No misprints are noted for this text.")
    lines.append("")
    return "\n".join(lines)


def render_system(
    system: System, links: SectionLinks | None = None, shared: dict[str, str] | None = None
) -> dict[str, str]:
    """Every page of one system, keyed by its path in the site; `shared` as for _terms."""
    matcher = term_matcher(system)
    rendered_tables = {}
    table_errata = []
    placed = {name: page for page in system.pages.values() for name, _ in table_placeholders(page)}
    for name, table in system.tables.items():
        rendered_tables[name] = render_table(table, check_table(table))
        page = placed[name]
        for erratum in table.errata:
            table_errata.append(
                f"- [{page.title}: {table.title or name}, row {erratum.row}, "
                f"column {erratum.column}]({page.name}.md#table-{name}-errata)"
            )
    files = {}
    notes: list[Note] = []
    outside: list[Note] = []
    for page in system.pages.values():
        files[f"{system.slug}/{page.name}.md"] = render_page(
            system, page, matcher, rendered_tables, links
        )
        notes.extend(notes_of(page, "erratum"))
        outside.extend(notes_of(page, "outside"))
    files[f"{system.slug}/index.md"] = _landing(system)
    files[f"{system.slug}/{TERMS_PAGE}.md"] = _terms(system, shared or {})
    files[f"{system.slug}/{SOURCE_PAGE}.md"] = _source(system, notes, table_errata, outside)
    return files


def render_site(systems: dict[str, System], links: SectionLinks | None = None) -> dict[str, str]:
    """Every system's pages, and the page of the terms several of them define."""
    shared = shared_terms(systems)
    anchors = anchors_by_term(shared)
    files: dict[str, str] = {}
    for system in systems.values():
        files.update(render_system(system, links, anchors))
    files[SHARED_PAGE] = render_shared_terms(systems, shared)
    return files


SYSTEMS_TABLE = "[[systems]]"


def systems_table(systems: dict[str, System]) -> str:
    """The home page's table of systems, one row per entry of content/systems.yml: each
    system's GM screen one tap away."""
    lines = ["| System | Core roll | At the table, and the text |", "| --- | --- | --- |"]
    for system in systems.values():
        title = system.title.replace("|", "\\|")
        lines.append(
            f"| [{escape(title)}]({system.slug}/index.md) | {escape(system.dice)} | "
            f"[{GM_SCREEN_TITLE}]({system.slug}/{GM_SCREEN_PAGE}.md) · "
            f"[source and license]({system.slug}/{SOURCE_PAGE}.md) |"
        )
    return "\n".join(lines)


def expand_systems_table(markdown: str, systems: dict[str, System]) -> str:
    return "\n".join(
        systems_table(systems) if line.strip() == SYSTEMS_TABLE else line
        for line in markdown.split("\n")
    )


_PARAGRAPH = re.compile(r"<(p|li)>(.*?)</\1>", re.S)
_TAG = re.compile(r"<[^>]+>")
DESCRIPTION_LENGTH = 160


def describe(html: str) -> str | None:
    """A page's meta description: its first plain paragraph (or list item, for a page that
    starts with a list), cut at a word near 160 characters. Paragraphs with a class (the
    system line, section links) are skipped. Returned HTML-escaped, ready for an attribute."""
    for match in _PARAGRAPH.finditer(html):
        text = " ".join(unescape(_TAG.sub("", match.group(2))).split())
        if len(text) < 40:
            continue
        if len(text) > DESCRIPTION_LENGTH:
            text = text[: DESCRIPTION_LENGTH - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        # Material writes the description into an attribute as it is: escape it here, since
        # the text is content ('"' would end the attribute, '&lt;' would become '<').
        return escape(text, quote=True)
    return None


def navigation(systems: dict[str, System], home: Sequence[NavItem]) -> list[NavItem]:
    """The nav: the hand-written pages first, then one tab per system. The theme prints
    navigation titles as HTML, and content is text: every title is escaped here."""
    nav: list[NavItem] = list(home)
    for system in systems.values():
        section: list[NavItem] = [{escape(system.title): f"{system.slug}/index.md"}]
        section += [
            {escape(page.title): f"{system.slug}/{page.name}.md"} for page in system.pages.values()
        ]
        section += [
            {"Terms": f"{system.slug}/{TERMS_PAGE}.md"},
            {GM_SCREEN_TITLE: f"{system.slug}/{GM_SCREEN_PAGE}.md"},
            {"Source and license": f"{system.slug}/{SOURCE_PAGE}.md"},
        ]
        nav.append({escape(system.short_title): section})
    return nav


def site_root(page_url: str) -> str:
    """The relative way from a page ("orcus/combat/", "" for the home) to the site root."""
    return "../" * page_url.count("/")


def edit_source(systems: dict[str, System], site_path: str) -> str | None:
    """The content file behind a generated page, relative to the repository root; for a
    calculator page (docs/calculators/), the rules.yml its calculators read, the first
    system's (the form's default)."""
    if site_path in calculator_pages_reading_rules():
        first = next((slug for slug, system in systems.items() if system.rules is not None), None)
        return f"content/{first}/rules.yml" if first else None
    slug, _, name = site_path.partition("/")
    system = systems.get(slug)
    if system is None:
        return None
    name = name.removesuffix(".md")
    if name in system.pages:
        return f"content/{slug}/pages/{name}.md"
    if name == TERMS_PAGE:
        return f"content/{slug}/glossary.yml"
    if name in ("index", "source"):
        return f"content/{slug}/system.yml"
    return None


def calculator_pages_reading_rules() -> frozenset[str]:
    """The docs-relative path of each calculator page that holds a calculator reading the
    rules data (the registry's, with its RULE): calculators/attack.md, ..."""
    return frozenset(
        f"calculators/{PAGES[name]}.md"
        for name, calculator in CALCULATORS.items()
        if calculator.request.RULE is not None
    )


def write_robots(site_dir: Path, site_url: str | None) -> None:
    """robots.txt: everything may be crawled; the sitemap is named only where the site's
    public address is known (SITE_URL), never a local one."""
    lines = ["User-agent: *", "Allow: /"]
    if site_url:
        lines.append(f"Sitemap: {site_url.rstrip('/')}/sitemap.xml")
    (site_dir / "robots.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
