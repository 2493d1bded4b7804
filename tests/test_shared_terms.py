"""Terms across systems, made from the glossaries: each term two or more systems define,
with each one's definition, and the systems that do not define it named."""

from __future__ import annotations

from pathlib import Path

from hooks.content.loader import load_content
from hooks.pages.shared_terms import render_shared_terms, shared_terms
from hooks.pages.site import render_site

CONTENT = Path(__file__).resolve().parent.parent / "content"
SYSTEMS = load_content(CONTENT)


def sections(markdown: str) -> dict[str, str]:
    """{anchor: the section's Markdown} of the generated page."""
    found = {}
    for part in markdown.split("\n## ")[1:]:
        anchor = part.split("{#", 1)[1].split("}", 1)[0]
        found[anchor] = part
    return found


def test_every_term_two_systems_define_has_its_section_and_no_other() -> None:
    defined: dict[str, set[str]] = {}
    for slug, system in SYSTEMS.items():
        for entry in system.glossary:
            defined.setdefault(entry.term.casefold(), set()).add(slug)
    expected = {term for term, slugs in defined.items() if len(slugs) > 1}
    shared = shared_terms(SYSTEMS)
    assert expected, "no two systems define the same term"
    assert {term.name.casefold() for term in shared} == expected
    page = sections(render_shared_terms(SYSTEMS, shared))
    for term in shared:
        section = page[term.anchor]
        for slug, entry in term.entries:
            link = f"**[{SYSTEMS[slug].short_title}](../{slug}/{entry.see_page}.md"
            assert link in section and entry.definition in section, (term.name, slug)
        missing = [s.short_title for slug, s in SYSTEMS.items() if slug not in dict(term.entries)]
        said = section.split("\n\n")[1]
        assert ("not define it" in said) == bool(missing), term.name
        assert all(title in said for title in missing), term.name


def test_each_systems_terms_page_links_its_shared_terms() -> None:
    pages = render_site(SYSTEMS)
    for term in shared_terms(SYSTEMS):
        for slug, _ in term.entries:
            assert f"(../compare/terms.md#{term.anchor}))" in pages[f"{slug}/terms.md"], term.name
