"""Turn validated content into the Markdown pages MkDocs renders.

`render_site` returns {site path: Markdown} for every generated page; `navigation`
returns the nav; `edit_source` maps a generated page back to the content file a
contributor edits. None of this needs MkDocs.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from hooks.content import TABLE_PLACEHOLDER, Page, System, table_placeholders
from hooks.dice_chips import dice_rewriter
from hooks.linker import GlossaryLinker, LinkTarget, TermMatcher, combine, rewrite_prose
from hooks.tables import check_table, render_table

CALCULATORS_FROM_PAGE = "../calculators/"  # a system's pages sit one folder below the root

KIND_TITLES = {
    "term": "Terms",
    "condition": "Conditions",
    "action": "Actions",
    "damage-type": "Damage types",
    "keyword": "Keywords",
    "skill": "Skills",
    "ability": "Abilities",
    "rule": "Rules",
}


@dataclass(frozen=True)
class ErratumNote:
    page: Page
    anchor: str
    section: str


def _front_matter(system: System) -> str:
    # Search shows a page's tags with each result: the tag labels the system.
    return f"---\ntags:\n  - {json.dumps(system.short_title)}\n---\n\n"


def term_matcher(system: System) -> TermMatcher:
    forms: dict[str, LinkTarget] = {}
    for entry in system.glossary:
        anchor = f"#{entry.see_anchor}" if entry.see_anchor else ""
        target = LinkTarget(
            key=entry.term,
            href=f"{entry.see_page}.md{anchor}",
            title=entry.definition,
            page=entry.see_page,
            anchor=entry.see_anchor,
            kind=entry.kind,
        )
        for form in entry.forms:
            forms[form] = target
    return TermMatcher(forms)


def render_page(system: System, page: Page, matcher: TermMatcher, tables: dict[str, str]) -> str:
    # Dice first: a term is never linked inside a dice expression.
    rewrite = combine(
        dice_rewriter(system.slug, CALCULATORS_FROM_PAGE), GlossaryLinker(matcher, page.name)
    )
    markdown = rewrite_prose(
        page.text,
        rewrite,
        anchors_of_headings=[heading.anchor for heading in page.headings],
        skip=lambda content: TABLE_PLACEHOLDER.match(content.strip()) is not None,
        tokens=page.tokens,
    )
    lines = markdown.split("\n")
    for name, line in table_placeholders(page):
        lines[line - 1] = tables[name]
    return _front_matter(system) + "\n".join(lines)


def errata_notes(page: Page) -> list[ErratumNote]:
    """Erratum admonitions of a page, with the section each sits in."""
    notes = []
    headings = iter(page.headings)
    current = next(headings)
    upcoming = next(headings, None)
    for number, line in enumerate(page.text.split("\n"), start=1):
        while upcoming is not None and upcoming.line <= number:
            current, upcoming = upcoming, next(headings, None)
        if line.lstrip().startswith("!!! erratum"):
            notes.append(ErratumNote(page, current.anchor, current.text))
    return notes


def _landing(system: System) -> str:
    source = system.source
    lines = [
        _front_matter(system) + f"# {system.title}",
        "",
        system.summary,
        "",
        f"- **Core roll:** {system.dice}",
        f"- **Source:** {source['document']} ([source and license](source.md))",
        f"- **License stated in the text:** {source['license']}",
        "",
        "## Chapters",
        "",
    ]
    lines += [f"1. [{page.title}]({page.name}.md)" for page in system.pages.values()]
    lines += [
        "",
        "## Reference",
        "",
        f"- [Terms](terms.md): {len(system.glossary)} terms with short definitions.",
        "- [Source and license](source.md): where the text comes from, its license, "
        "and the errata noted on these pages.",
        "",
    ]
    return "\n".join(lines)


def _terms(system: System) -> str:
    by_kind: dict[str, list] = defaultdict(list)
    for entry in system.glossary:
        by_kind[entry.kind].append(entry)
    lines = [
        _front_matter(system) + "# Terms",
        "",
        f"The terms of {system.title}, each with a short definition and a link to the "
        "section of the text that defines it. In the rule pages, the first mention of a "
        "term in each section links here to its definition.",
        "",
    ]
    for kind, title in KIND_TITLES.items():
        if kind not in by_kind:
            continue
        lines += [f"## {title}", ""]
        for entry in sorted(by_kind[kind], key=lambda entry: entry.term.casefold()):
            anchor = f"#{entry.see_anchor}" if entry.see_anchor else ""
            also = [form for form in (*entry.aliases, entry.plural) if form]
            extra = f" (also: {', '.join(also)})" if also else ""
            lines += [
                f"**[{entry.term}]({entry.see_page}.md{anchor})**{extra}: {entry.definition}",
                "",
            ]
    return "\n".join(lines)


def _source(system: System, notes: list[ErratumNote], table_errata: list[str]) -> str:
    source = system.source
    lines = [
        _front_matter(system) + "# Source and license",
        "",
        f"- **Document:** {source['document']}",
        f"- **Source file:** `{source['file']}`",
        f"- **License stated in the text:** {source['license']}",
    ]
    if source.get("license_page"):
        page = system.pages[source["license_page"]]
        lines.append(f"- **License text:** [{page.title}]({page.name}.md)")
    lines += [
        "",
        "The pages follow the text word for word. Misprints are kept as printed and "
        "marked with an erratum note; arithmetic tables are recomputed by the build.",
        "",
    ]
    if system.notes:
        lines += ["## Editorial repairs", ""]
        lines += [f"- {note}" for note in system.notes]
        lines.append("")
    lines += ["## Errata", ""]
    if notes or table_errata:
        lines += [
            f"- [{note.page.title}: {note.section}]({note.page.name}.md#{note.anchor})"
            for note in notes
        ]
        lines += table_errata
    else:
        lines.append("No misprints are noted for this text.")
    lines.append("")
    return "\n".join(lines)


def render_system(system: System) -> dict[str, str]:
    """Every page of one system, keyed by its path in the site."""
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
    notes: list[ErratumNote] = []
    for page in system.pages.values():
        files[f"{system.slug}/{page.name}.md"] = render_page(system, page, matcher, rendered_tables)
        notes.extend(errata_notes(page))
    files[f"{system.slug}/index.md"] = _landing(system)
    files[f"{system.slug}/terms.md"] = _terms(system)
    files[f"{system.slug}/source.md"] = _source(system, notes, table_errata)
    return files


def render_site(systems: dict[str, System]) -> dict[str, str]:
    files: dict[str, str] = {}
    for system in systems.values():
        files.update(render_system(system))
    return files


def navigation(systems: dict[str, System], home: list) -> list:
    """The nav: the hand-written pages first, then one tab per system."""
    nav = list(home)
    for system in systems.values():
        section: list = [f"{system.slug}/index.md"]
        section += [{page.title: f"{system.slug}/{page.name}.md"} for page in system.pages.values()]
        section += [
            {"Terms": f"{system.slug}/terms.md"},
            {"Source and license": f"{system.slug}/source.md"},
        ]
        nav.append({system.short_title: section})
    return nav


def site_root(page_url: str) -> str:
    """The relative way from a page ("orcus/combat/", "" for the home) to the site root."""
    return "../" * page_url.count("/")


def edit_source(systems: dict[str, System], site_path: str) -> str | None:
    """The content file behind a generated page, relative to the repository root."""
    slug, _, name = site_path.partition("/")
    system = systems.get(slug)
    if system is None:
        return None
    name = name.removesuffix(".md")
    if name in system.pages:
        return f"content/{slug}/pages/{name}.md"
    if name == "terms":
        return f"content/{slug}/glossary.yml"
    if name in ("index", "source"):
        return f"content/{slug}/system.yml"
    return None
