"""Search as players type: questions (assets/javascripts/search-words.mjs,
search-results.mjs, search-notes.mjs), in the built site, through the page's real search.

The queries come from the content of every system of content/systems.yml: each glossary
term put as a question ("how do I grapple someone", "how does cover work", "what happens if
someone is prone"). A question lands where its naming words do, its small words deciding
nothing. A system whose pages mention a word only outside its text (its home page's "It
covers skill checks") says it has no rule on it, and the other systems' rules lead.

The share of these queries that land as their term does is printed by
`pytest -s tests/test_search_questions.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import Watched
from playwright.sync_api import Browser, Page
from searching import article_text, ask, defining_section, landing, lands_in

from hooks.content.loader import GlossaryEntry, load_content
from hooks.pages.site import SOURCE_PAGE

CONTENT = Path(__file__).resolve().parent.parent / "content"
SYSTEMS = load_content(CONTENT)
LABELS = {system.short_title: slug for slug, system in SYSTEMS.items()}


def question(entry: GlossaryEntry) -> str:
    """The term as a player asks about it."""
    term = entry.term.lower()
    if entry.kind == "action":
        return f"how do I {term} someone"
    if entry.kind == "condition":
        return f"what happens if someone is {term}"
    return f"how does {term} work"


NOTES = """() => [...document.querySelectorAll(".search-spelling, .search-absent li")]
  .map((note) => note.textContent)"""


def first_landings(page: Page, queries: list[str]) -> list[str | None]:
    return [landing(groups[0]) if groups else None for groups in ask(page, queries, 1)]


@pytest.fixture
def watched(browser: Browser, server: str):
    watched = Watched(browser, server)
    yield watched
    watched.close()


@pytest.mark.parametrize("slug", list(SYSTEMS))
def test_a_question_lands_where_its_naming_words_do(
    watched: Watched, server: str, slug: str
) -> None:
    """Asked as a question ("how do I grapple someone"), each term lands where the term
    does: "how", "do", "I", "someone", "is" decide nothing."""
    page = watched.page
    page.goto(f"{server}{slug}/")
    glossary = SYSTEMS[slug].glossary
    terms = first_landings(page, [entry.term for entry in glossary])
    questions = first_landings(page, [question(entry) for entry in glossary])
    missed = [
        (question(entry), found, wanted)
        for entry, wanted, found in zip(glossary, terms, questions, strict=True)
        if found != wanted
    ]
    print(f"{slug}: {len(glossary) - len(missed)} of {len(glossary)} questions land as the term")
    assert missed == []


def mentioned_outside_the_text(site: Path) -> tuple[str, str, list[tuple[str, GlossaryEntry]]]:
    """A one-word term some systems define, and a system whose text (its chapters) and the
    pages that restate it (its Terms list, its GM screen) never hold a form of it, but its
    home or source page does ("It covers skill checks"): (the system, the term, the systems
    that define it with their entries)."""
    about = ("", SOURCE_PAGE)
    for slug in SYSTEMS:
        texts = {
            path.parent.relative_to(site / slug).as_posix().strip("."): article_text(
                path.read_text("utf-8")
            ).lower()
            for path in (site / slug).rglob("index.html")
        }
        chapters = " ".join(text for name, text in texts.items() if name not in about)
        others = " ".join(text for name, text in texts.items() if name in about)
        for other, defining in SYSTEMS.items():
            for entry in defining.glossary if other != slug else ():
                # Any form of the term ("mark" for "marked") is one the search finds.
                term = entry.term.lower()
                stem = re.compile(rf"\b{re.escape(term[: max(4, len(term) - 3)])}")
                if " " in term or not term.isalpha() or stem.search(chapters):
                    continue
                if re.search(rf"\b{re.escape(term)}", others):
                    defined = [
                        (where, found)
                        for where, system_of in SYSTEMS.items()
                        for found in system_of.glossary
                        if found.term.lower() == term
                    ]
                    return slug, term, defined
    raise AssertionError("no system mentions another's term only outside its text")


def test_a_system_that_only_mentions_a_word_says_it_has_no_rule_on_it(
    watched: Watched, server: str, site: Path
) -> None:
    """From the home page of a system whose text has no section on a word that only its
    home or source page mentions, the results open with another system's rule on it (where
    that system's text defines it), and say that this system's text has no rule on it."""
    slug, term, defined = mentioned_outside_the_text(site)
    page = watched.page
    page.goto(f"{server}{slug}/")
    (groups,) = ask(page, [term], 10)
    first = groups[0]
    assert first[0][1] != [SYSTEMS[slug].short_title], first
    where = LABELS[first[0][1][0]]
    assert any(
        lands_in(site, landing(first), defining_section(other, entry))
        for other, entry in defined
        if other == where
    ), (term, landing(first))
    label = SYSTEMS[slug].short_title
    assert f"{label}: no rule on “{term}” in its text" in page.evaluate(NOTES)
